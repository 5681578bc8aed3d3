/*
 * usercmd_knobs.h: the knobs of a user's command (`rigtune tune --cmd`, a space
 * file with `workload: command`) and what a point means for the process.
 *
 * A point is an rt_cmd_point (cmdpoint.h: rt_cmd_point_*); what it means for
 * the process is here (rt_cmdknobs_*). The knobs rigtune gives a meaning:
 *
 *   threads       the framework's own intra-op pool: OMP_NUM_THREADS and
 *                 MKL_NUM_THREADS (PyTorch sizes its pool from either, MKL
 *                 takes precedence; an MKL build's BLAS runs in that pool)
 *   blas_threads  the BLAS's pool where it has its own (OpenBLAS built with
 *                 pthreads, Accelerate): OPENBLAS_NUM_THREADS and
 *                 VECLIB_MAXIMUM_THREADS
 *   workers       processes beside the trainer (DataLoader workers, vector
 *                 environments): counted for the CPUs to bind, not against
 *                 the cores (they may mostly wait)
 *   device        cpu (every backend's visible-devices variable empty: no
 *                 GPU), or BACKEND:N, device N of a backend alone (cuda:1:
 *                 CUDA_VISIBLE_DEVICES=1, hip:0: HIP_VISIBLE_DEVICES=0); the
 *                 variable is the backend's own, from its plugin table
 *                 (rt_backend_ops.visible_devices, which the machine's probe
 *                 keeps in rt_accel.visible); {device} and RIGTUNE_DEVICE say
 *                 what the process should use: cpu, or cuda:0 (the one GPU
 *                 it sees, PyTorch's name on CUDA and ROCm alike)
 *   precision     fp64 fp32 tf32 bf16 fp16: for the command to read
 *   pin           none compact spread pcores: the CPUs the process is bound
 *                 to, max(threads, blas_threads) + workers of them
 *   batch         for the command to read; the knee is taken along it
 *
 * Every knob, these and the user's own, is also RIGTUNE_<KNOB> (upper case)
 * in the environment, and {knob} in the command.
 */
#ifndef RT_CMDKNOBS_H
#define RT_CMDKNOBS_H

#include "cmdpoint.h"
#include "machine.h"
#include "usercmd.h"

/*
 * The env variables a point sets: RIGTUNE_<KNOB> each, 2 for threads, 2 for
 * blas_threads, one per backend for device.
 */
#define RT_CMD_MAX_ENV (RT_CMD_MAX_KNOBS + 4 + RT_MAX_ACCEL)
/* "NAME=value": the longest name (a visible-devices variable, RIGTUNE_<KNOB>), =, a value */
#define RT_CMD_ENV_LEN (48 + 1 + RT_CMD_VALUE_LEN)

/*
 * 0 when value is a device a command can be given, else -1: cpu, or
 * BACKEND:N for a GPU backend rigtune knows (rt_backend_known: cuda:0, hip:1).
 */
int rt_cmdknobs_device_check(const char *value);

/*
 * Why name cannot be a knob of a user's command, or NULL when it can: it
 * must be [A-Za-z_][A-Za-z0-9_]*, shorter than RT_KNOB_NAMELEN, and its
 * variable RIGTUNE_<KNOB> not one of rigtune's own settings (envnames.h):
 * a knob called backend_path would point the command's rigtune at another
 * plugin directory. Every knob name read from a file passes here.
 */
const char *rt_cmdknobs_name_bad(const char *name);

/* The environment of a point: "NAME=value" strings. */
typedef struct rt_usercmd_env {
	int n;
	char var[RT_CMD_MAX_ENV][RT_CMD_ENV_LEN];
	char *ptr[RT_CMD_MAX_ENV + 1]; /* var[i], NULL-terminated: for rt_usercmd.env */
} rt_usercmd_env;

/*
 * What point pt sets in the environment, in the order above. The device
 * knob's variables are those of m's accelerators (NULL: none).
 */
void rt_cmdknobs_env(const rt_cmd_point *pt, const rt_machine *m, rt_usercmd_env *env);

/*
 * The values placeholders take at point pt: each knob's own text, but
 * device as the process sees it (cpu, or the frameworks' name of its
 * backend's devices with index 0: cuda:0). Fills out (pt->n entries,
 * pointing into pt or static text).
 */
void rt_cmdknobs_placeholders(const rt_cmd_point *pt, rt_knob_value *out);

/*
 * The CPUs the point uses, for its pin policy: max(threads, blas_threads)
 * + workers, with usable_cores for threads when neither is a knob.
 */
int rt_cmdknobs_cpus(const rt_cmd_point *pt, int usable_cores);

/* The point's pin policy: its pin knob, RT_PIN_NONE without one. */
rt_pin rt_cmdknobs_pin(const rt_cmd_point *pt);

/*
 * The memory cap of a run of the point on machine m (usercmd.h's mem_cap:
 * an oversized batch fails as memory, not swap; RLIMIT_AS, or where that
 * does not hold the watchdog on the command's whole tree): the CPU trials'
 * cap (measure.h) only where no GPU runtime can be in the run, device cpu
 * or no device knob on a machine with no accelerator available (CUDA
 * reserves far more address space than it uses); else 0, none. m may be
 * NULL: no accelerator. tune --cmd and check --cmd both take it.
 */
uint64_t rt_cmdknobs_mem_cap(const rt_cmd_point *pt, const rt_machine *m);

/*
 * How a run of pt is placed and capped on machine m, the same for tune's
 * runs and check's trials (so that the two measure alike): uc's pin policy,
 * its CPUs (rt_cmdknobs_cpus with m's usable cores, rt_machine_pcores: the
 * physical cores, not the logical CPUs) and rt_cmdknobs_mem_cap; m is not
 * NULL.
 */
void rt_cmdknobs_limits(const rt_cmd_point *pt, const rt_machine *m, rt_usercmd *uc);

#endif
