/*
 * devmon_table.c: the vendors' monitors `watch` tries, in order (devmon.h):
 * the first that finds a device is the run's. A new vendor is a file of its
 * own and a row here.
 */
#include <stdio.h>
#include <string.h>

#include "../common/rt.h"
#include "devmon.h"

static const rt_devmon_vendor *const vendors[] = {
#ifdef __APPLE__
    &rt_devmon_ioreport,
#else
    &rt_devmon_nvml,
    &rt_devmon_rsmi,
#endif
};

rt_devmon *rt_devmon_open_any(char *why, size_t len)
{
	char one[RT_ERRLEN];
	size_t used = 0;
	if (why && len)
		why[0] = '\0';
	for (size_t i = 0; i < RT_COUNT(vendors); i++) {
		rt_devmon *m = rt_devmon_open(vendors[i], NULL, one, sizeof one);
		if (m)
			return m;
		if (why && used < len) {
			int k = snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "",
			                 vendors[i]->label, one);
			used += k > 0 ? (size_t)k : 0;
		}
	}
	return NULL;
}
