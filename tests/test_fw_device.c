/*
 * The device a framework's line names. Its name for a plugin comes through
 * the accelerator probe's record (read from its table in the probe's
 * child), and naming it in a hint or a command's {device} loads no plugin
 * into this process: this binary's own, as the loader's other tests load
 * the fake plugin, which then stays mapped (RTLD_NODELETE). Which device
 * an RL library's line names (tuner/fwdevice.h): the one faster for the
 * library's step, from the crossover's fits (tests/fw_fits.h: a simulated
 * H100 and a 30 GFLOP/s CPU).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "../tuner/backends.h"
#include "../tuner/fwdevice.h"
#include "../tuner/hints.h"
#include "../workloads/loader.h"
#include "fw_fits.h"
#include "plugin_dir.h"

static int setup_path(void **state)
{
	(void)state;
	static char dir[1024];
	test_plugin_dir(dir, sizeof dir);
	setenv("RIGTUNE_FAKE_FRAMEWORK_DEVICE", "mps", 1);
	setenv("RIGTUNE_FAKE_UNIFIED", "1", 1);
	return setenv("RIGTUNE_BACKEND_PATH", dir, 1);
}

/* Whether this process has a file whose path holds part mapped. */
static int mapped(const char *part)
{
	char line[1024];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		found |= strstr(line, part) != NULL;
	fclose(f);
	return found;
}

static const rt_accel *accel_of(const rt_machine *m, const char *backend)
{
	for (int i = 0; i < m->naccel; i++)
		if (!strcmp(m->accel[i].backend, backend))
			return &m->accel[i];
	fail_msg("no accelerator record for %s", backend);
	return NULL;
}

static void test_device_name_from_probe(void **state)
{
	(void)state;
	static rt_machine m;
	char dev[24];
	rt_backend_framework_device("fake", dev, sizeof dev);
	assert_string_equal(dev, "cuda"); /* not probed yet: PyTorch's default accelerator */
	rt_probe_accelerators(&m);
	const rt_accel *a = accel_of(&m, "fake");
	assert_true(a->available);
	assert_string_equal(a->framework_device, "mps");
	assert_int_equal(a->dev[0].unified_memory, 1);
	rt_backend_framework_device("fake", dev, sizeof dev);
	assert_string_equal(dev, "mps");
	rt_backend_framework_device("cpu", dev, sizeof dev);
	assert_string_equal(dev, "cpu");

	rt_point pt;
	rt_shape sh;
	rt_hints h;
	const rt_workload *w = rt_workload_find("transformer"); /* no policy: the point's device */
	rt_point_default(&pt);
	snprintf(pt.backend, sizeof pt.backend, "fake");
	pt.precision = RT_FP16;
	rt_shape_default(w, &sh);
	rt_hints_for(NULL, w, &pt, &sh, NULL, &h);
	int named = 0;
	for (int i = 0; i < h.fw[RT_FW_PYTORCH].n; i++)
		named |= strstr(h.fw[RT_FW_PYTORCH].line[i], "torch.device('mps')") != NULL;
	assert_true(named);
	assert_false(mapped("librigtune_fake"));
}

/* PPO's shape with num_envs, stocks, minibatch and rollout as given (the rest its defaults). */
static void ppo_shape(rt_shape *sh, long envs, long stocks, long minibatch, long rollout)
{
	const rt_workload *w = rt_workload_find("ppo");
	rt_shape_default(w, sh);
	sh->v[rt_shape_known(w, "num_envs")] = envs;
	sh->v[rt_shape_known(w, "stocks")] = stocks;
	sh->v[rt_shape_known(w, "minibatch")] = minibatch;
	sh->v[rt_shape_known(w, "rollout")] = rollout;
}

/* SB3's policy for PPO at sh, and the choice on the simulated H100's fits. */
static void choose_at(const rt_shape *sh, rt_policy *p, rt_fw_device_choice *c)
{
	static const rt_fw_step_kernels sb3 = {12, 4, 80, 8};
	const rt_workload *w = rt_workload_find("ppo");
	rt_fw_device_fits f;
	rt_point pt;
	rt_point_default(&pt);
	test_fw_fits(&f, "sim");
	assert_int_equal(w->policy(RT_HINT_SB3, &pt, sh, NULL, p), 1);
	rt_fw_device_choose(&f, p, &sb3, c);
}

/*
 * SB3's MlpPolicy (actor and critic apart, 64 units) at 16 envs of 30
 * stocks (211 observations), minibatch 256, 4 epochs. By hand, per vector
 * step: on the CPU its six GEMMs 51.7 us; on the device 6 GEMM steps and 12
 * kernels at 16 us, 4 copies at 10.1 us: 328 us. Per minibatch: the CPU 3 x
 * 647 us, the device 18 GEMMs and 80 kernels at 16 us, 8 copies: 1652 us.
 * Per env-step: 3.2 + 4/256 x 1940 = 33.5 us against 20.5 + 25.8 = 46.4 us:
 * the CPU. From 64 envs a step the device's launches are shared enough
 * (328 / 64 + 25.8 = 30.9 us against 33.0).
 */
static void test_small_policy_on_the_cpu(void **state)
{
	(void)state;
	rt_shape sh;
	rt_policy p;
	rt_fw_device_choice c;
	ppo_shape(&sh, 16, 30, 256, 128);
	choose_at(&sh, &p, &c);
	assert_int_equal(p.envs, 16);
	assert_int_equal(p.layer[0].k, 211);
	assert_int_equal(p.layer[2].n, 30);
	assert_false(c.device_faster);
	assert_true(fabs(c.rollout_host_s - 51.7e-6) < 0.5e-6);
	assert_true(fabs(c.rollout_device_s - 328e-6) < 3e-6);
	assert_true(fabs(c.update_host_s - 1940e-6) < 10e-6);
	assert_true(fabs(c.update_device_s - 1652e-6) < 10e-6);
	assert_true(fabs(c.host_s - 33.5e-6) < 0.3e-6);
	assert_true(fabs(c.device_s - 46.4e-6) < 0.3e-6);
	assert_int_equal(c.device_from_envs, 64);
}

/*
 * Where the device wins: a large policy (1000 stocks: 7001 observations) at
 * 1024 envs, where one vector step's first GEMMs are 60 ms on the CPU; and
 * the small policy with minibatches of 4096, whose update the device runs
 * at 1.7 ms against the CPU's 30 ms (per env-step 22 us against 33 us, from
 * 16 envs a step).
 */
static void test_large_policy_or_batch_on_the_device(void **state)
{
	(void)state;
	rt_shape sh;
	rt_policy p;
	rt_fw_device_choice c;
	ppo_shape(&sh, 1024, 1000, 4096, 128);
	choose_at(&sh, &p, &c);
	assert_true(c.device_faster);
	assert_true(c.rollout_host_s > 60e-3 && c.rollout_device_s < 1e-3);
	assert_true(c.device_from_envs >= 1 && c.device_from_envs <= 1024);

	ppo_shape(&sh, 16, 30, 4096, 256);
	choose_at(&sh, &p, &c);
	assert_true(c.device_faster);
	assert_true(fabs(c.host_s - 33.0e-6) < 0.5e-6);
	assert_true(fabs(c.device_s - 22.2e-6) < 0.5e-6);
	assert_int_equal(c.device_from_envs, 16);
}

/*
 * A hand-written PyTorch loop's policy (CleanRL's Agent) is SB3's network,
 * stepped at the point's envs (gymnasium's vector env), where SB3's envs
 * grow until its timed vector-step cost is shared (300 us fixed, 50 an env:
 * 128 envs); gymnasium's block names no device, so it runs none.
 */
static void test_pytorch_policy(void **state)
{
	(void)state;
	const rt_workload *w = rt_workload_find("ppo");
	rt_hint_cost cost = {.fixed_us = 300, .per_env_us = 50};
	rt_shape sh;
	rt_point pt;
	rt_policy sb3, torch;
	rt_point_default(&pt);
	ppo_shape(&sh, 16, 30, 256, 128);
	assert_int_equal(w->policy(RT_HINT_SB3, &pt, &sh, &cost, &sb3), 1);
	assert_int_equal(w->policy(RT_HINT_PYTORCH, &pt, &sh, &cost, &torch), 1);
	assert_int_equal(sb3.envs, 128);
	assert_int_equal(torch.envs, 16);
	assert_int_equal(torch.nlayers, sb3.nlayers);
	for (int i = 0; i < torch.nlayers; i++) {
		assert_int_equal(torch.layer[i].k, sb3.layer[i].k);
		assert_int_equal(torch.layer[i].n, sb3.layer[i].n);
		assert_int_equal(torch.layer[i].count, sb3.layer[i].count);
	}
	assert_int_equal(torch.minibatch, 256);
	assert_int_equal(torch.epochs, 4);
	assert_int_equal(w->policy(RT_HINT_GYMNASIUM, &pt, &sh, &cost, &torch), 0);
}

/* The SB3 line and its block's sentence at a device point of sh on fits dev (NULL: none). */
static const rt_hint_block *sb3_at(const char *backend, const rt_shape *sh,
				   const rt_fw_device_fits *dev, rt_hints *h)
{
	rt_point pt;
	rt_point_default(&pt);
	snprintf(pt.backend, sizeof pt.backend, "%s", backend);
	rt_hints_for(NULL, rt_workload_find("ppo"), &pt, sh, dev, h);
	assert_int_equal(h->fw[RT_FW_SB3].n, 2);
	return &h->fw[RT_FW_SB3];
}

/*
 * The SB3 line names the faster device, says why in a comment and its
 * block's sentence when the GPU wins; unmeasured, it follows SB3's advice
 * for an MlpPolicy (the CPU) and says so; a CPU point's names the CPU alone.
 */
static void test_sb3_line_names_the_faster_device(void **state)
{
	(void)state;
	static rt_hints h;
	rt_fw_device_fits f;
	rt_shape sh;
	test_fw_fits(&f, "sim");
	ppo_shape(&sh, 16, 30, 256, 128);
	const rt_hint_block *b = sb3_at("sim", &sh, &f, &h);
	assert_string_equal(b->line[1], "model = PPO('MlpPolicy', env, n_steps=128, batch_size=256, "
					"n_epochs=4, device='cpu')  # 33.5 us an env-step here, "
					"46.4 on cuda");
	assert_false(b->line_untested[1]);
	assert_non_null(strstr(b->about, "device='cpu': the policy runs once per vector step, at 16 "
					 "envs here (6 GEMMs with their launches and copies): "
					 "0.0517 ms a step on the CPU against 0.329 on 'cuda', and "
					 "1.94 ms against 1.65 a minibatch of 256, so 33.5 us an "
					 "env-step against 46.4 (from the crossover's fp32 GEMM "
					 "fits); the GPU wins from 64 envs a step here; a larger "
					 "policy (wider observations, a CNN) or larger minibatches "
					 "move the balance to it"));

	ppo_shape(&sh, 1024, 1000, 4096, 128);
	b = sb3_at("sim", &sh, &f, &h);
	assert_non_null(strstr(b->line[1], "n_epochs=4, device='cuda')  # "));
	assert_non_null(strstr(b->line[1], "on the CPU"));
	assert_true(b->line_untested[1]); /* 'cuda': no GPU here */
	assert_non_null(strstr(b->about, "device='cuda': the policy runs once per vector step, at "
					 "1024 envs here"));

	ppo_shape(&sh, 16, 30, 256, 128);
	const char *unmeasured = "model = PPO('MlpPolicy', env, n_steps=128, batch_size=256, "
				 "n_epochs=4, device='cpu')  # SB3's advice for an MlpPolicy; not "
				 "measured here";
	assert_string_equal(sb3_at("sim", &sh, NULL, &h)->line[1], unmeasured);
	assert_non_null(strstr(h.fw[RT_FW_SB3].about, "device='cpu': not measured here"));
	test_fw_fits(&f, "cuda"); /* another device's fits say nothing of this one */
	assert_string_equal(sb3_at("sim", &sh, &f, &h)->line[1], unmeasured);
	assert_string_equal(sb3_at("cpu", &sh, &f, &h)->line[1],
			    "model = PPO('MlpPolicy', env, n_steps=128, batch_size=256, "
			    "n_epochs=4, device='cpu')");
	assert_null(strstr(h.fw[RT_FW_SB3].about, "device="));
}

/* A crossover's fp32 curves of the CPU and of a device, each t(n) sampled at n = 32 .. 1024. */
static void add_curve(rt_replay *r, const char *label, const char *prec, const rt_fit *f)
{
	for (double n = 32; n <= 1024; n *= 2)
		assert_int_equal(rt_replay_add(r, label, prec, n, rt_fit_eval(f, n), NULL, 0), 0);
}

/* The fits come from the fp32 curves of the host and of the point's device, resident and with transfers. */
static void test_fits_of_a_crossover(void **state)
{
	(void)state;
	rt_fw_device_fits want, got;
	rt_crossover_data d = {0};
	rt_crossover_shape none = {0};
	rt_crossover_analysis a;
	char err[RT_ERRLEN];
	test_fw_fits(&want, "sim");
	d.square = rt_replay_new();
	assert_non_null(d.square);
	add_curve(d.square, "cpu:1t", "fp32", &want.host[0]);
	add_curve(d.square, "sim", "bf16", &want.host[0]); /* another precision: not taken */
	add_curve(d.square, "sim", "fp32", &want.device);
	add_curve(d.square, "sim+xfer", "fp32", &want.device_xfer);
	assert_int_equal(rt_crossover_fit(&d, &none, &a, err, sizeof err), 0);
	assert_int_equal(rt_fw_device_fits_of(&a, "sim", &got, err, sizeof err), 0);
	assert_int_equal(got.nhost, 1);
	for (double n = 32; n <= 1024; n *= 2) {
		assert_true(fabs(rt_fit_eval(&got.host[0], n) / rt_fit_eval(&want.host[0], n) - 1) < 0.01);
		assert_true(fabs(rt_fit_eval(&got.device, n) / rt_fit_eval(&want.device, n) - 1) < 0.01);
		assert_true(fabs(rt_fit_eval(&got.device_xfer, n) / rt_fit_eval(&want.device_xfer, n) - 1) <
			    0.01);
	}
	assert_int_equal(rt_fw_device_fits_of(&a, "cuda", &got, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "the crossover has no fp32 resident device curve");
	assert_int_equal(rt_fw_device_fits_of(NULL, "sim", &got, err, sizeof err), RT_EINVAL);
	assert_string_equal(err, "the crossover has no fp32 CPU curve");
	rt_crossover_analysis_free(&a);
	rt_crossover_data_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_name_from_probe),
		cmocka_unit_test(test_small_policy_on_the_cpu),
		cmocka_unit_test(test_large_policy_or_batch_on_the_device),
		cmocka_unit_test(test_pytorch_policy),
		cmocka_unit_test(test_sb3_line_names_the_faster_device),
		cmocka_unit_test(test_fits_of_a_crossover),
	};
	return cmocka_run_group_tests(tests, setup_path, NULL);
}
