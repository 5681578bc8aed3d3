/*
 * workload.c: what workload.h declares of every workload: the table,
 * built from the one list in registry.h, and the shape helpers.
 */
#include <string.h>

#include "workload.h"

#define RT_WORKLOAD(name) extern const rt_workload rt_workload_##name;
#include "registry.h"
#undef RT_WORKLOAD

static const rt_workload *const workloads[] = {
#define RT_WORKLOAD(name) &rt_workload_##name,
#include "registry.h"
#undef RT_WORKLOAD
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

void rt_workload_names(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < RT_COUNT(workloads); i++)
		rt_list_append(buf, len, ", ", workloads[i]->name);
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

int rt_shape_known(const rt_workload *w, const char *key)
{
	int i = rt_shape_index(w, key);
	RT_BUG_ON(i < 0);
	return i;
}

const rt_workload *rt_workload_builtin(const char *name)
{
	const rt_workload *w = rt_workload_find(name);
	RT_BUG_ON(!w);
	return w;
}

int rt_shape_equal(const rt_shape *a, const rt_shape *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return 0;
	return 1;
}

int rt_workload_hints_lib(const rt_workload *w, rt_hint_lib lib)
{
	char lines[4][RT_HINT_LEN];
	rt_point pt;
	rt_shape sh;
	if (!w->hints)
		return 0;
	rt_point_default(&pt);
	rt_shape_default(w, &sh);
	return w->hints(lib, &pt, &sh, NULL, lines, 4) > 0;
}
