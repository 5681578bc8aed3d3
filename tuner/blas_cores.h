/*
 * blas_cores.h: which OpenBLAS kernel set runs this CPU's GEMMs fastest,
 * measured. Where OpenBLAS runs kernels narrower than the CPU (blas_kernels.h:
 * Debian's 0.3.21 ran Prescott's SSE kernels on an AVX-512 Xeon it did not
 * know, 5x slower on a 2048^3 SGEMM), tune measures the kernel sets the CPU's
 * flags allow (rt_blas_kernels_wider) against the one it runs, each in a
 * `rigtune bench gemm` child with OPENBLAS_CORETYPE set (OpenBLAS reads it
 * once, when it loads), and recommends the fastest in the configuration's
 * env: so that `rigtune exec` and `eval "$(rigtune env)"` give it to every
 * OpenBLAS user of the process (numpy, SciPy, Debian's PyTorch).
 *
 * The figures are kept in the cache directory (rt_cache_dir) and reused by
 * the next tune while the machine's fingerprint, the library file (its path,
 * size and time) and the candidates are the same and they are under a month
 * old: a sweep or a regression check does not spend seconds on them each run.
 * Figures measured while other processes took more of the cores than a
 * trial may lose (rt_contended_share) are used once and not kept.
 */
#ifndef RT_BLAS_CORES_H
#define RT_BLAS_CORES_H

#include "machine.h"

#define RT_BLAS_MAX_CORES 6

typedef struct rt_blas_cores {
	int n;                              /* measured: [0] the kernels OpenBLAS runs */
	char core[RT_BLAS_MAX_CORES][32];
	double gflops[RT_BLAS_MAX_CORES];   /* 1-thread SGEMM at bench's default shape; 0: failed */
	int best;                           /* index of the fastest; 0 when none is faster */
	double ratio;                       /* its GFLOP/s over [0]'s; 0 when not measured */
	double contention;                  /* the most of the cores others took meanwhile */
	char measured[24];                  /* when the figures were measured (UTC); "" now */
	char kept[512];                     /* the cache file they are kept in; "" none */
	char not_kept[RT_ERRLEN];           /* why they could not be kept; "" */
} rt_blas_cores;

/*
 * m's OpenBLAS kernels and the wider ones its CPU allows: the kept figures
 * where they hold (c->measured says when), else each set measured for
 * `seconds` by this binary's bench (which takes its lock in a directory of
 * its own: the caller holds the machine's) and kept (c->kept, or why not in
 * c->not_kept). Nothing to measure (the kernels fit, or another BLAS): c->n
 * 0. RT_OK, or RT_ERUNTIME/RT_ENOMEM with err.
 */
int rt_blas_cores_get(const rt_machine *m, double seconds, rt_blas_cores *c, char *err,
		      size_t errlen);

/* The OPENBLAS_CORETYPE to recommend ("" for none): the fastest, faster by 5% at least. */
const char *rt_blas_cores_pick(const rt_blas_cores *c);

/*
 * The cache directory: $RIGTUNE_CACHE_DIR, else $XDG_CACHE_HOME/rigtune,
 * else ~/.cache/rigtune (created when written). RT_EUNAVAIL where none.
 */
int rt_cache_dir(char *buf, size_t len);

/*
 * blas_cores_cache.c: c's candidates' kept figures into c (1: found, their
 * file in c->kept, their time in c->measured; 0: none that hold, c's figures
 * untouched), and keeping c's figures measured now (their file in c->kept,
 * else why not in c->not_kept).
 */
int rt_blas_cores_load(const rt_machine *m, double seconds, rt_blas_cores *c);
void rt_blas_cores_store(const rt_machine *m, double seconds, rt_blas_cores *c);

#endif
