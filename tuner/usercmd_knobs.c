/* usercmd_knobs.c: what a point of a user's command sets (usercmd_knobs.h). */
#include "usercmd_knobs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envnames.h"
#include "measure.h"
#include "params.h"
#include "../workloads/loader.h"

/*
 * The backend and device index of a device knob's value BACKEND:N (not cpu):
 * backend gets BACKEND (len bytes). -1 when value is not of that form.
 */
static int gpu_device(const char *value, char *backend, size_t len, long *index)
{
	const char *colon = strchr(value, ':');
	size_t n = colon ? (size_t)(colon - value) : 0;
	if (!n || n >= len || rt_parse_long(colon + 1, index) != RT_OK || *index < 0)
		return -1;
	memcpy(backend, value, n);
	backend[n] = '\0';
	return rt_backend_on_host(backend) ? -1 : 0;
}

int rt_cmdknobs_device_check(const char *value)
{
	char backend[RT_BACKEND_NAMELEN];
	long index;
	if (rt_backend_on_host(value))
		return 0;
	return gpu_device(value, backend, sizeof backend, &index) == 0 &&
			       rt_backend_known(backend)
		   ? 0
		   : -1;
}

const char *rt_cmdknobs_name_bad(const char *name)
{
	_Static_assert(RT_KNOB_NAMELEN == 32, "the message says 32");
	static const char syntax[] = "letters, digits and _, not starting with a digit, under "
				     "32 characters";
	size_t n = strlen(name);
	if (n == 0 || n >= RT_KNOB_NAMELEN || isdigit((unsigned char)name[0]))
		return syntax;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return syntax;
	return rt_env_knob_ok(name) ? NULL
				    : "its variable RIGTUNE_<KNOB> is one of rigtune's own settings";
}

static void setenv_at(rt_usercmd_env *env, const char *name, const char *value)
{
	/* a point sets a fixed few variables: RT_CMD_MAX_ENV is sized for them all */
	RT_BUG_ON(env->n >= RT_CMD_MAX_ENV);
	snprintf(env->var[env->n], RT_CMD_ENV_LEN, "%s=%s", name, value);
	env->ptr[env->n] = env->var[env->n];
	env->n++;
	env->ptr[env->n] = NULL;
}

/*
 * The visible-devices variables for the device knob, each backend's own (its
 * plugin table's, kept by the probe): every one empty on the cpu, device N's
 * backend's set to N. A backend the probe could not load has none to set.
 */
static void device_env(rt_usercmd_env *env, const rt_machine *m, const char *device)
{
	char backend[RT_BACKEND_NAMELEN], n[24];
	long index;
	int cpu = rt_backend_on_host(device);
	if (!cpu && gpu_device(device, backend, sizeof backend, &index))
		return;
	snprintf(n, sizeof n, "%ld", cpu ? 0L : index);
	for (int i = 0; m && i < m->naccel; i++) {
		const rt_accel *a = &m->accel[i];
		if (a->visible[0] && (cpu || !strcmp(a->backend, backend)))
			setenv_at(env, a->visible, cpu ? "" : n);
	}
}

void rt_cmdknobs_env(const rt_cmd_point *pt, const rt_machine *m, rt_usercmd_env *env)
{
	const rt_cmd_knob *threads = rt_cmd_point_find(pt, "threads");
	const rt_cmd_knob *blas = rt_cmd_point_find(pt, "blas_threads");
	const rt_cmd_knob *device = rt_cmd_point_find(pt, "device");
	rt_knob_value shown[RT_CMD_MAX_KNOBS];
	env->n = 0;
	env->ptr[0] = NULL;
	if (threads) {
		setenv_at(env, "OMP_NUM_THREADS", threads->text);
		setenv_at(env, "MKL_NUM_THREADS", threads->text);
	}
	if (blas) {
		setenv_at(env, "OPENBLAS_NUM_THREADS", blas->text);
		setenv_at(env, "VECLIB_MAXIMUM_THREADS", blas->text);
	}
	if (device)
		device_env(env, m, device->text);
	rt_cmdknobs_placeholders(pt, shown);
	for (int i = 0; i < pt->n; i++) {
		char name[RT_KNOB_NAMELEN + 8];
		rt_env_knob_var(shown[i].name, name, sizeof name);
		/* every knob name read from a file was checked (rt_cmdknobs_name_bad) */
		RT_BUG_ON(!rt_env_knob_ok(shown[i].name));
		setenv_at(env, name, shown[i].value);
	}
}

/*
 * A device knob's value as the process sees its device, the only one its
 * backend shows it (device_env): the frameworks' name of the backend's
 * devices (its table's framework_device) with index 0, "cuda:0". Asked once
 * per backend and kept for the process.
 */
static const char *seen_device(const char *device)
{
	static char backends[RT_MAX_BACKENDS][RT_BACKEND_NAMELEN], shown[RT_MAX_BACKENDS][32];
	static int n;
	char backend[RT_BACKEND_NAMELEN], name[24];
	long index;
	if (gpu_device(device, backend, sizeof backend, &index))
		snprintf(backend, sizeof backend, "%s", device);
	for (int i = 0; i < n; i++)
		if (!strcmp(backends[i], backend))
			return shown[i];
	int i = n < RT_MAX_BACKENDS ? n++ : RT_MAX_BACKENDS - 1;
	rt_backend_framework_device(backend, name, sizeof name);
	snprintf(backends[i], sizeof backends[i], "%s", backend);
	snprintf(shown[i], sizeof shown[i], "%s:0", name);
	return shown[i];
}

void rt_cmdknobs_placeholders(const rt_cmd_point *pt, rt_knob_value *out)
{
	for (int i = 0; i < pt->n; i++) {
		const rt_cmd_knob *k = &pt->k[i];
		out[i] = (rt_knob_value){k->name, k->text};
		if (!strcmp(k->name, "device") && !rt_backend_on_host(k->text))
			out[i].value = seen_device(k->text);
	}
}

int rt_cmdknobs_cpus(const rt_cmd_point *pt, int usable_cores)
{
	long threads = rt_cmd_point_num(pt, "threads", 0);
	long blas = rt_cmd_point_num(pt, "blas_threads", 0);
	long compute = threads > blas ? threads : blas;
	return (int)((compute ? compute : usable_cores) + rt_cmd_point_num(pt, "workers", 0));
}

rt_pin rt_cmdknobs_pin(const rt_cmd_point *pt)
{
	/* pin's row is the built-in table's: its number is an rt_pin */
	return (rt_pin)rt_cmd_point_num(pt, "pin", RT_PIN_NONE);
}

/* Whether m has an accelerator available that a command could use. */
static int gpu_here(const rt_machine *m)
{
	for (int i = 0; m && i < m->naccel; i++)
		if (!rt_backend_on_host(m->accel[i].backend) && m->accel[i].available)
			return 1;
	return 0;
}

uint64_t rt_cmdknobs_mem_cap(const rt_cmd_point *pt, const rt_machine *m)
{
	const rt_cmd_knob *device = rt_cmd_point_find(pt, "device");
	int cpu_only = device ? rt_backend_on_host(device->text) : !gpu_here(m);
	return cpu_only ? rt_measure_mem_cap() : 0;
}

void rt_cmdknobs_limits(const rt_cmd_point *pt, const rt_machine *m, rt_usercmd *uc)
{
	uc->pin = rt_cmdknobs_pin(pt);
	uc->pin_cpus = rt_cmdknobs_cpus(pt, rt_machine_pcores(m));
	uc->mem_cap = rt_cmdknobs_mem_cap(pt, m);
}
