/*
 * The part of Apple's Accelerate umbrella header that rigtune uses, written from
 * Apple's documented CBLAS interface (vecLib's cblas.h) for the macOS cross-build,
 * which has no SDK: the enums and the two GEMMs, 32-bit ints (Accelerate's LP64
 * interface). A Mac compiles against the real header instead.
 */
#ifndef RT_STUB_ACCELERATE_H
#define RT_STUB_ACCELERATE_H

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_ORDER;
typedef enum CBLAS_TRANSPOSE CBLAS_TRANSPOSE;

void cblas_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_TRANSPOSE transb, const int m, const int n, const int k,
                 const float alpha, const float *a, const int lda, const float *b,
                 const int ldb, const float beta, float *c, const int ldc);
void cblas_dgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_TRANSPOSE transb, const int m, const int n, const int k,
                 const double alpha, const double *a, const int lda, const double *b,
                 const int ldb, const double beta, double *c, const int ldc);

#endif
