/*
 * checkdoc.h: reading the result of `rigtune check` (its YAML on stdout or
 * -o FILE) for `rigtune report --check FILE`.
 *
 * The document (schema 1; `check` writes it, `report` reads it):
 *
 *   rigtune_check: 1
 *   baseline: configs/gpu-box.yaml      # what was checked against
 *   generated: 2026-01-31T12:00:00Z     # optional
 *   threshold_pct: 5                    # the practical threshold
 *   alpha: 0.01                         # the significance level
 *   verdict: regression                 # regression | ok | inconclusive
 *   machine_diff:                       # every probed field that changed; [] if none
 *   - {field: blas.core, before: Haswell, after: SkylakeX}
 *   suggestions:                        # optional: what the diff may explain
 *   - 'OpenBLAS kernel core changed Haswell -> SkylakeX: ...'
 *   points:                             # every point measured again
 *   - workload: transformer
 *     role: recommended                 # recommended | fastest | crossover | ...
 *     point: {backend: cpu, precision: fp32, batch: 16, threads: 1, workers: 1}
 *     shape: {d_model: 256, ...}        # optional
 *     unit: samples/s
 *     baseline: {median: 43.08, ci95: [42.28, 43.43]}   # or {infeasible: reason}
 *     now: {median: 40.12, ci95: [39.51, 40.60]}        # or {infeasible: reason}
 *     ratio: {median: 0.931, ci95: [0.912, 0.950]}      # now / baseline; both feasible
 *     p: 0.0031                         # Mann-Whitney U; both feasible
 *     verdict: regression               # regression | improvement | unchanged | inconclusive
 *     note: 'inconclusive: needs about 12 more samples'  # optional
 *
 * A point infeasible now and feasible in the baseline is a regression (its
 * `now` has `infeasible:`, and it has no ratio or p). Keys not listed are
 * ignored: a newer check may add some.
 */
#ifndef RT_CHECKDOC_H
#define RT_CHECKDOC_H

#include "yamlr.h"

#define RT_CHECK_SCHEMA 1

/* The verdicts of one point, in the order of their severity. */
typedef enum rt_verdict {
	RT_VERDICT_REGRESSION,
	RT_VERDICT_INCONCLUSIVE,
	RT_VERDICT_IMPROVEMENT,
	RT_VERDICT_UNCHANGED,
	RT_NVERDICT
} rt_verdict;

const char *rt_verdict_name(rt_verdict v);

typedef struct rt_check_diff {
	const char *field, *before, *after;
} rt_check_diff;

/* One side of a comparison: a measurement or why there is none. */
typedef struct rt_check_side {
	const char *infeasible; /* NULL when measured */
	double median, ci_lo, ci_hi;
} rt_check_side;

typedef struct rt_check_point {
	const char *workload, *role, *unit, *note;
	char point[256]; /* "backend=cpu precision=fp32 batch=16 ..." */
	rt_check_side baseline, now;
	int has_ratio;   /* both sides measured: ratio and p are given */
	double ratio, ratio_lo, ratio_hi, p;
	rt_verdict verdict;
	const rt_ynode *node;
} rt_check_point;

typedef struct rt_checkdoc {
	rt_yr yr;
	const char *baseline, *generated, *verdict;
	double threshold_pct, alpha;
	int ndiff, nsuggestions, npoints;
	rt_check_diff *diff;
	const char **suggestions;
	rt_check_point *points;
} rt_checkdoc;

/*
 * Reads the check result at path. RT_EIO when it cannot be read, RT_EINVAL
 * "PATH:LINE:COLUMN: problem" for malformed YAML, another kind of document
 * (a configuration, a journal), another schema, or a missing or mistyped
 * field. Strings stay valid until rt_checkdoc_free(); on failure d owns
 * nothing.
 */
int rt_checkdoc_load(const char *path, rt_checkdoc *d, char *err, size_t errlen);
void rt_checkdoc_free(rt_checkdoc *d); /* accepts a document that failed to load */

#endif
