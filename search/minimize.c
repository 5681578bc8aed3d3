#include "minimize.h"

#include "../common/rt.h"

int rt_minimize(unsigned n, nlopt_func f, void *data, const double *lb, const double *ub,
		const rt_minimize_opts *o, double *x, double *value, char *err, size_t errlen)
{
	nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, n);
	if (!opt)
		return rt_fail(err, errlen, RT_ENOMEM, "cannot create an NLopt optimizer");
	int rc = RT_ERUNTIME;
	double min;
	if (nlopt_set_lower_bounds(opt, lb) < 0 || nlopt_set_upper_bounds(opt, ub) < 0 ||
	    nlopt_set_min_objective(opt, f, data) < 0 ||
	    (o->initial_step && nlopt_set_initial_step(opt, o->initial_step) < 0) ||
	    (o->xtol_rel > 0 && nlopt_set_xtol_rel(opt, o->xtol_rel) < 0) ||
	    (o->ftol_rel > 0 && nlopt_set_ftol_rel(opt, o->ftol_rel) < 0) ||
	    nlopt_set_maxeval(opt, o->maxeval) < 0) {
		rt_fail(err, errlen, rc, "cannot configure the NLopt optimizer");
		goto out;
	}
	nlopt_result res = nlopt_optimize(opt, x, &min);
	if (res < 0 && res != NLOPT_ROUNDOFF_LIMITED) {
		rt_fail(err, errlen, rc, "NLopt failed: %s", nlopt_result_to_string(res));
		goto out;
	}
	if (value)
		*value = min;
	rc = RT_OK;
out:
	nlopt_destroy(opt);
	return rc;
}
