/*
 * fw_fits.h: crossover fits of a CPU and a device as tuner/fwdevice.h takes
 * them, after the simulated H100 (tests/plugins/sim.c: a step 16 us at the
 * least, a copy's round trip 10 us, 50 GB/s over the link) and a CPU of 30
 * GFLOP/s whose GEMMs cost 2 us at the least.
 */
#ifndef RT_TEST_FW_FITS_H
#define RT_TEST_FW_FITS_H

#include <stdio.h>
#include <string.h>

#include "../tuner/fwdevice.h"

static inline void test_fw_fits(rt_fw_device_fits *f, const char *backend)
{
	memset(f, 0, sizeof *f);
	snprintf(f->backend, sizeof f->backend, "%s", backend);
	f->nhost = 1;
	/* t(n) = c + a n^b over the sweep's range, 32 to 1024 */
	f->host[0] = (rt_fit){.a = 2 / 30e9, .b = 3, .c = 2e-6, .n_min = 32, .n_max = 1024};
	f->device = (rt_fit){.a = 2 / 67e12, .b = 3, .c = 16e-6, .n_min = 32, .n_max = 1024};
	/* three copies of n x n floats a step: 30 us of round trips, 12 n^2 bytes at 50 GB/s */
	f->device_xfer = (rt_fit){.a = 12 / 50e9, .b = 2, .c = 46e-6, .n_min = 32, .n_max = 1024};
}

#endif
