/*
 * check.h: `rigtune check`: is this machine still as fast as the baseline,
 * and if not, what changed on it? The family's door: code outside
 * tuner/check/ includes this header only.
 *
 * 1. The baseline (check_baseline.h: a configuration of tune, or tune --cmd,
 *    with its journal and canary, or a journal) and this machine's probe are
 *    diffed field by field (machdiff.h). A baseline from other hardware (CPU
 *    model, architecture, packages, cores, PUs) is refused unless forced.
 * 2. The baseline's points are measured again, interleaved (p1 p2 p3 p1 p2
 *    p3 ...), each trial as tune measures one (check_trial.h), each followed
 *    by canary samples (check_canary.h: the machine's own speed, as tune took
 *    it beside its journal, shown beside the points and used for nothing).
 *    After every trial a point is compared with the baseline's samples
 *    (rt_compare in search/stats.h). A slowdown (or speedup) counts only
 *    when it holds in most trials now, and in two at least, and still in
 *    the last two, half the budget after the first: a burst of load during
 *    one trial is not a regression, and trials that disagree make the point
 *    inconclusive. A point is done once it is unchanged, decided so, or no
 *    number of new samples can decide it; the others are measured again
 *    while the budget lasts (by default the time the baseline's tune took).
 *    Every point is measured at least once. Each trial also records how much
 *    of its cores other processes took (contention.h).
 * 3. Verdicts: unchanged (the same); regression; improvement; infeasible (it
 *    ran in the baseline and does not now: a regression of its own kind,
 *    with the cause and the reason; a crash or a timeout is tried once more);
 *    inconclusive (unknown, with about how many more samples would decide);
 *    likely_regression (inconclusive, but every sample now past the threshold
 *    below the baseline's median, with enough of them:
 *    check_likely.h; exit 1 as a regression). While the budget lasts, a point
 *    whose CI is wholly past the threshold is measured before the others'
 *    repeats, once every point ran (check_run.c: next_point).
 * A/B (opts.ab): no baseline samples: the points (the baseline's, or gemm at
 * its default shape) are measured on two sides now, A B then B A per round
 * (check_trial.h says what a side is), and B is compared with A by pairs of
 * trials (check_pairs.h). No canary and no machine diff: one machine.
 *
 * The YAML document (rt_check_emit; read back: check_result.h), schema `rigtune_check: 1`
 * (docs/formats/check-result.md):
 *
 *   rigtune_check: 1
 *   generated: 2026-11-22T23:43:37Z
 *   baseline: {file, kind: configuration|journal|ab, a, b (ab only), journal,
 *              sweep: CSV or null, fingerprint, machine: true|false}
 *   machine: {fingerprint: this machine's, same_fingerprint: true|false}
 *   machine_diff:                       # every field that changed; [] if none
 *   - {field: blas.core, before: Haswell, after: SkylakeX}   # null: absent
 *   machine_state:                      # the moment's state that differs (machdiff.h)
 *   canary: {file (or null), baseline: {compute, memory, n}, now: {...},
 *            ratio, ci95, p (null when not compared), says}
 *   settings: {alpha, threshold, budget_s, seconds}
 *   points:
 *   - workload: gemm                    # or the name of a tune --cmd command
 *     roles: [recommended, fastest]     # or [sweep], [runner_up]
 *     curve: cpu:2t fp32                # sweep points only
 *     point: {backend: cpu, precision: fp32, threads: 2, pin: compact}  # or knobs
 *     shape: {m: 1024, n: 1024, k: 1024, transfer: 0}   # built-in workloads only
 *     unit: GFLOP/s                     # higher is better ("1/ms" for a minimized metric)
 *     baseline: {median: 241.9, n: 5}   # A/B: side A
 *     now: {median: 240.1, n: 12, trials: 2}     # median null when it never ran
 *     ratio: 0.9926                     # now / baseline; A/B: of the pairs
 *     ci95: [0.981, 1.004]              # bootstrap 95% CI of the ratio, or null
 *     p: 0.41                           # Mann-Whitney two-sided, or null
 *     test: exact|normal                # how p was computed, or null
 *     contention: {baseline: 0.01, now: 0.48}
 *     verdict: unchanged|regression|improvement|infeasible|inconclusive|not_run|
 *              likely_regression
 *     cause: memory                     # infeasible only: rt_cause_name()
 *     more_samples: 40                  # inconclusive only: about how many more
 *     reason: one sentence
 *   notes: [sentences]                  # what could not be compared, and why
 *   suggestions: [sentences]            # what in the diff may explain a change
 *   summary: {unchanged: 3, regression: 0, improvement: 0, infeasible: 0,
 *             inconclusive: 0, not_run: 0, likely_regression: 0}
 *   result: pass|regression             # regression: exit status 1
 */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#include <stdio.h>

#include "check_result.h" /* the result as a document, read back */
#include "check_run.h"    /* a run: options, prepare, measure, verdicts */

/* The YAML of a finished run (the schema above; malloc'd text): check_doc.c, beside its reader. */
int rt_check_emit(const rt_check_run *run, const rt_check_opts *o, char **text, size_t *len,
		  char *err, size_t errlen);

/* What the check found, for people, on a terminal or a log (check_print.c): */
/* the machine diff; */
void rt_check_print_diff(FILE *f, const rt_check_run *run);
/*
 * the table of points (point, baseline, now, change with CI, p, verdict),
 * the reason of every point that is not unchanged, what the canary read,
 * notes, suggestions and a summary line.
 */
void rt_check_print_table(FILE *f, const rt_check_run *run);

#endif
