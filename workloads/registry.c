/* The table of workloads: one line per workload, nothing else to register. */
#include <string.h>

#include "ppo.h"
#include "transformer.h"
#include "workload.h"

extern const rt_workload rt_workload_gemm;

static const rt_workload *const workloads[] = {
	&rt_workload_gemm,
	&rt_workload_transformer,
	&rt_workload_ppo,
};

const rt_workload *const *rt_workload_list(int *count)
{
	*count = (int)RT_COUNT(workloads);
	return workloads;
}

const rt_workload *rt_workload_find(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(workloads); i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}

void rt_shape_default(const rt_workload *w, rt_shape *sh)
{
	sh->n = w->nkeys;
	for (int i = 0; i < w->nkeys; i++)
		sh->v[i] = w->keys[i].def;
}

int rt_shape_index(const rt_workload *w, const char *key)
{
	for (int i = 0; i < w->nkeys; i++)
		if (strcmp(w->keys[i].name, key) == 0)
			return i;
	return -1;
}
