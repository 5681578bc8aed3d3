/*
 * minimize.h: bounded local minimization without derivatives (NLopt's
 * BOBYQA), the one way search/ fits models: the strategies' batch and
 * thread curves and the crossover's time curves.
 */
#ifndef RT_MINIMIZE_H
#define RT_MINIMIZE_H

#include <nlopt.h>
#include <stddef.h>

typedef struct rt_minimize_opts {
	double xtol_rel, ftol_rel;  /* NLopt's stopping tolerances; 0: unused */
	int maxeval;
	const double *initial_step; /* per variable, or NULL for NLopt's choice */
} rt_minimize_opts;

/*
 * Minimizes f over n variables within [lb, ub] from x (updated in place);
 * *value (may be NULL) gets the minimum. NLOPT_ROUNDOFF_LIMITED still leaves
 * a usable point (NLopt documents it so) and counts as success. Returns 0,
 * RT_ENOMEM, or RT_ERUNTIME with NLopt's reason in err.
 */
int rt_minimize(unsigned n, nlopt_func f, void *data, const double *lb, const double *ub,
		const rt_minimize_opts *o, double *x, double *value, char *err, size_t errlen);

#endif
