#include "naive.h"

void rt_naive_point(const rt_workload *w, const rt_shape *model, int usable_cores, rt_point *pt,
                    rt_shape *sh)
{
	rt_point_default(pt);
	pt->threads = usable_cores > 0 ? usable_cores : 1;
	pt->workers = 0;
	pt->pin = RT_PIN_NONE;
	rt_shape defaults;
	rt_shape_default(w, &defaults);
	*sh = model ? *model : defaults;
	int k = w->knee ? rt_shape_index(w, w->knee) : -1;
	if (k >= 0)
		sh->v[k] = defaults.v[k];
}
