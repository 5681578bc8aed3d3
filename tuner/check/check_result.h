/*
 * check_result.h: the result of `rigtune check` read back (the YAML that
 * rt_check_emit writes, schema `rigtune_check: 1`, documented in check.h;
 * the writer and this reader both live in check_doc.c), for `rigtune report
 * --check FILE` and `check --store`. The family's second door: a reader of
 * results includes this header, not check.h, and so not the run that
 * writes them.
 *
 * What the page shows of it: the baseline, the settings, the machine diff,
 * the notes and suggestions, and per point its workload, roles (or sweep
 * curve), point, the medians of both sides, the ratio now / baseline with
 * its 95% CI and p, the verdict with its reason. Keys the page does not
 * show are not checked: a newer check may add some.
 */
#ifndef RT_CHECK_RESULT_H
#define RT_CHECK_RESULT_H

#include "verdict.h"
#include "../yamlr.h"

typedef struct rt_checkdoc_diff {
	const char *field, *before, *after; /* NULL: the field was absent */
} rt_checkdoc_diff;

typedef struct rt_checkdoc_point {
	const char *workload, *curve, *unit, *reason, *cause; /* curve, cause: NULL if none */
	char roles[64];                                       /* "recommended, fastest" */
	char point[256];                /* "backend=cpu precision=fp32 threads=2 ..." */
	double base_median, now_median; /* now_median NAN when it never ran now */
	long base_n, now_n, now_trials;
	int has_ratio; /* it ran on both sides: ratio, ci and p are set */
	double ratio, ci_lo, ci_hi, p;
	long more_samples; /* inconclusive: about how many more would decide; 0 else */
	rt_verdict verdict;
} rt_checkdoc_point;

typedef struct rt_checkdoc {
	rt_yr yr;
	const char *generated, *baseline, *result; /* result: pass or regression */
	double alpha, threshold;                   /* threshold as a fraction: 0.05 */
	int ndiff, nnotes, nsuggestions, npoints;
	rt_checkdoc_diff *diff;
	const char **notes, **suggestions;
	rt_checkdoc_point *points;
	int counts[RT_NVERDICT];
} rt_checkdoc;

/*
 * Reads the check result at path. RT_EIO when it cannot be read, RT_EINVAL
 * "PATH:LINE:COLUMN: problem" for malformed YAML, another kind of document
 * (a configuration, a journal), another schema, or a missing or mistyped
 * field of those the page shows. Strings stay valid until
 * rt_checkdoc_free(); on failure d owns nothing.
 */
int rt_checkdoc_load(const char *path, rt_checkdoc *d, char *err, size_t errlen);
void rt_checkdoc_free(rt_checkdoc *d); /* accepts a document that failed to load */

#endif
