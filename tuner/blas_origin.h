/*
 * blas_origin.h: which BLAS a library file is and who put it there, by its
 * path alone: probe's `blas:` names the file that holds the binary's
 * cblas_sgemm so. Two small tables (a new library or place is a row), and
 * paths as data, so that Linux tests what a Mac's paths say:
 *
 *   /opt/homebrew/opt/openblas/lib/libopenblas.0.dylib       OpenBLAS, from Homebrew
 *   /usr/local/Cellar/openblas/0.3.28/lib/libopenblas.dylib  OpenBLAS, from Homebrew (Intel)
 *   /System/Library/Frameworks/Accelerate.framework/...      Accelerate, from macOS
 *   /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0   OpenBLAS (from: not said)
 */
#ifndef RT_BLAS_ORIGIN_H
#define RT_BLAS_ORIGIN_H

typedef struct rt_blas_origin {
	const char *library; /* "OpenBLAS", "Accelerate"; NULL where the path does not say */
	const char *from;    /* "Homebrew", "macOS"; NULL where the path does not say */
} rt_blas_origin;

/* What path says of the BLAS in it (NULL or "": nothing). */
rt_blas_origin rt_blas_origin_of(const char *path);

#endif
