/*
 * A fake librocm_smi64 for tests/test_gpu_host.c: one device at PCI
 * 0000:03:00 whose busy percentage is fake_rsmi_busy (the test sets it with
 * dlsym); fake_rsmi_reads counts the polls.
 */
#include <stdint.h>

enum { SUCCESS = 0, INVALID_ARGS = 1, NOT_INIT = 8 };

unsigned int fake_rsmi_busy;
volatile int fake_rsmi_reads;
static int initialized;

int rsmi_init(uint64_t flags)
{
	(void)flags;
	initialized++;
	return SUCCESS;
}

int rsmi_shut_down(void)
{
	initialized--;
	return SUCCESS;
}

int rsmi_num_monitor_devices(uint32_t *n)
{
	*n = 1;
	return initialized ? SUCCESS : NOT_INIT;
}

/* BDF id: domain << 32 | bus << 8 | device << 3 | function. */
int rsmi_dev_pci_id_get(uint32_t dev, uint64_t *bdfid)
{
	if (dev != 0)
		return INVALID_ARGS;
	*bdfid = (uint64_t)3 << 8;
	return SUCCESS;
}

int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *percent)
{
	if (dev != 0)
		return INVALID_ARGS;
	*percent = fake_rsmi_busy;
	__atomic_fetch_add(&fake_rsmi_reads, 1, __ATOMIC_RELAXED);
	return SUCCESS;
}
