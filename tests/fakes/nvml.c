/*
 * A fake libnvidia-ml for tests/test_gpu_host.c: one device at PCI bus id
 * 0000:01:00.0 whose utilization samples are the ones the test adds with
 * fake_nvml_add() (reached with dlsym), each stamped 1 us after the time it
 * was added (so after any time its reader took before), as NVML stamps the
 * samples of its buffer.
 */
#include <string.h>
#include <time.h>

enum { SUCCESS = 0, INVALID_ARGUMENT = 2, NOT_FOUND = 6, INSUFFICIENT_SIZE = 7 };

typedef struct sample {
	unsigned long long timestamp;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
	} value;
} sample;

static sample buf[100];
static int nbuf, initialized, device;

void fake_nvml_add(unsigned int percent)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long now = (unsigned long long)ts.tv_sec * 1000000ull +
				 (unsigned long long)ts.tv_nsec / 1000 + 1;
	if (nbuf && now <= buf[nbuf - 1].timestamp)
		now = buf[nbuf - 1].timestamp + 1;
	if (nbuf == (int)(sizeof buf / sizeof buf[0]))
		memmove(buf, buf + 1, sizeof buf - sizeof buf[0]), nbuf--;
	buf[nbuf].timestamp = now;
	buf[nbuf++].value.ui = percent;
}

int nvmlInit_v2(void)
{
	initialized++;
	return SUCCESS;
}

int nvmlShutdown(void)
{
	initialized--;
	return SUCCESS;
}

const char *nvmlErrorString(int r)
{
	return r == NOT_FOUND ? "Not Found" : r == SUCCESS ? "Success" : "Unknown Error";
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
	if (!initialized)
		return INVALID_ARGUMENT;
	if (strcmp(bus, "0000:01:00.0"))
		return NOT_FOUND;
	*dev = &device;
	return SUCCESS;
}

/* The samples newer than last; NOT_FOUND when there is none, as NVML says. */
int nvmlDeviceGetSamples(void *dev, int type, unsigned long long last, int *valtype,
			 unsigned int *count, sample *out)
{
	unsigned int n = 0;
	if (dev != &device || type != 1)
		return INVALID_ARGUMENT;
	for (int i = 0; i < nbuf; i++)
		if (buf[i].timestamp > last) {
			if (out && n >= *count)
				return INSUFFICIENT_SIZE;
			if (out)
				out[n] = buf[i];
			n++;
		}
	*valtype = 1; /* unsigned int */
	*count = n;
	return n ? SUCCESS : NOT_FOUND;
}
