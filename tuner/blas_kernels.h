/*
 * blas_kernels.h: whether the kernels a DYNAMIC_ARCH OpenBLAS picked fit
 * the CPU. OpenBLAS picks them by the CPU's model; one older than the CPU
 * falls back to kernels for an older one. On the H100 machine lent to
 * this project (a Xeon with AVX-512 and AMX, a Firecracker guest),
 * Debian's OpenBLAS 0.3.21 ran its Prescott kernels (SSE3): the CPU's
 * fp32 GEMMs at a fraction of its speed, in every framework that loads
 * that library, and no error anywhere.
 *
 * Two tables: the vector instructions each x86 kernel set uses, and the
 * CPU flags that name the widest the CPU has. Other architectures' names
 * are in neither, and nothing is said of them.
 */
#ifndef RT_BLAS_KERNELS_H
#define RT_BLAS_KERNELS_H

#include <stddef.h>

/*
 * The widest vector instructions among /proc/cpuinfo's space-separated
 * flags: "avx512_bf16", "avx512", "avx2", "avx", "sse"; "" where none
 * of the x86 ones is there (another architecture).
 */
const char *rt_cpu_vector_isa(const char *cpuinfo_flags);

/*
 * Into buf, when OpenBLAS's kernels `core` ("Prescott", as
 * openblas_get_corename names them) use narrower instructions than the
 * CPU's widest `isa` (rt_cpu_vector_isa): what runs, what the CPU has and
 * the OPENBLAS_CORETYPE that selects kernels for it; else "". Unknown
 * names say nothing.
 */
void rt_blas_kernels_note(const char *core, const char *isa, char *buf, size_t len);

/*
 * The OPENBLAS_CORETYPE candidates wider than `core` that the CPU's widest
 * `isa` allows, narrowest first: OpenBLAS's kernel set for each level of
 * instructions above core's up to isa's ("Haswell" on "avx512_bf16":
 * SkylakeX, Cooperlake). Into out (max of them); their count, 0 where
 * core already fits or a name is unknown.
 */
int rt_blas_kernels_wider(const char *core, const char *isa, const char **out, int max);

#endif
