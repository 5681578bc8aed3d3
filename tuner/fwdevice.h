/*
 * fwdevice.h: the device a framework's line names, chosen for the
 * framework's own step rather than rigtune's.
 *
 * An RL library (SB3's PPO, a gymnasium loop) runs its policy once per
 * environment step, at a batch of the envs of one vector step, copying the
 * observations to the device and the actions back each time, and trains on
 * minibatches, each launching a hundred small kernels and waiting on the
 * device for its statistics. A small MLP policy then loses on a GPU to the
 * launches and copies that its GEMMs are too small to hide, where rigtune's
 * own C step (a few launches, nothing to wait on) may win: SB3's PPO with an
 * MlpPolicy at 16 envs ran 0.68x as fast on an H200 as on its host's CPU
 * (issue 45), and SB3's documentation puts such a policy on the CPU.
 *
 * The estimate, per env-step, for each side, from what the crossover sweep
 * measured (fp32 square GEMM fits t(n) = c + a n^b, crossover.h):
 *   a GEMM m x k x n takes t(cbrt(m k n)), its flop-equivalent square size,
 *   on the CPU's fastest curve at that size or on the device's resident one;
 *   on the device, every other kernel of the step costs what the smallest
 *   measured GEMM step did (launch and synchronize: an upper bound), and
 *   every copy the round trip the transfer curve adds to the resident one
 *   (a third of it: a step copies A, B in and C out), plus its bytes at the
 *   link's rate; the framework's per-op Python cost is paid on either device
 *   and left out;
 *   env-step = forward at the envs / envs + epochs x update / minibatch,
 *   the update being the forward and backward GEMMs (3x) at the minibatch.
 */
#ifndef RT_FWDEVICE_H
#define RT_FWDEVICE_H

#include "../search/fit.h"
#include "../workloads/workload.h"
#include "crossover.h"

#define RT_FW_DEVICE_MAX_HOST 4
/* The most envs a vector step the GPU's win is looked for up to. */
#define RT_FW_DEVICE_MAX_ENVS 65536

/* The fits the estimate needs: the host's fp32 curves, a device's resident and with transfers. */
typedef struct rt_fw_device_fits {
	char backend[16]; /* the device's backend, as rigtune names it ("cuda", "sim") */
	int nhost;
	rt_fit host[RT_FW_DEVICE_MAX_HOST];
	rt_fit device, device_xfer;
} rt_fw_device_fits;

/*
 * The fits of a (a crossover analysis) for backend's device against the
 * host: RT_EINVAL with why when a lacks one of them (no host curve at fp32,
 * no resident or transfer curve of backend).
 */
int rt_fw_device_fits_of(const rt_crossover_analysis *a, const char *backend,
			 rt_fw_device_fits *out, char *err, size_t errlen);
/* The same from a configuration's crossover as read back (a kept one: the last tune's). */
int rt_fw_device_fits_of_doc(const rt_crossover_doc *x, const char *backend,
			     rt_fw_device_fits *out, char *err, size_t errlen);

/* What a framework's step launches beside its policy's GEMMs. */
typedef struct rt_fw_step_kernels {
	int rollout_kernels, rollout_copies; /* per vector step */
	int update_kernels, update_copies;   /* per minibatch */
} rt_fw_step_kernels;

/* The estimate's figures, in seconds. */
typedef struct rt_fw_device_choice {
	int device_faster;              /* 1: the device, 0: the CPU */
	double host_s, device_s;        /* per env-step */
	double rollout_host_s, rollout_device_s; /* per vector step */
	double update_host_s, update_device_s;   /* per minibatch */
	/*
	 * The fewest envs a vector step (a power of two) at which the device
	 * is faster with the policy's minibatch; 0: none up to
	 * RT_FW_DEVICE_MAX_ENVS.
	 */
	long device_from_envs;
} rt_fw_device_choice;

/* The faster side for policy p of a framework whose step launches k, on fits f. */
void rt_fw_device_choose(const rt_fw_device_fits *f, const rt_policy *p,
			 const rt_fw_step_kernels *k, rt_fw_device_choice *out);

/*
 * One sentence of why, into buf: the step's shape, both sides' figures per
 * vector step, minibatch and env-step, and where the other side would win;
 * device names the device as the framework does ('cuda'). The caller puts
 * the choice before it, as its framework spells it (device='cpu').
 */
void rt_fw_device_why(const rt_fw_device_choice *c, const rt_policy *p, const char *device,
		      char *buf, size_t len);

#endif
