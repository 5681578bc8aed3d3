/*
 * params.h: KEY=VALUE arguments for a workload: point keys (backend, device,
 * precision, batch, threads, workers, pin) and the workload's shape keys.
 */
#ifndef RT_PARAMS_H
#define RT_PARAMS_H

#include "../workloads/workload.h"

/*
 * Applies one "key=value" to pt or sh. RT_EINVAL with a sentence naming the
 * argument for a malformed assignment, an unknown key (the message lists the
 * keys there are), a value that is not a number, or one out of range.
 */
int rt_params_apply(const rt_workload *w, const char *arg, rt_point *pt, rt_shape *sh,
		    char *err, size_t errlen);

/* The same for a shape key of w alone: a point key is an unknown key here. */
int rt_params_apply_shape(const rt_workload *w, const char *arg, rt_shape *sh, char *err,
			  size_t errlen);

/* Parses a whole decimal integer; RT_EINVAL unless all of s is a number. */
int rt_parse_long(const char *s, long *out);
/* Parses a finite decimal number; RT_EINVAL otherwise. */
int rt_parse_double(const char *s, double *out);

#endif
