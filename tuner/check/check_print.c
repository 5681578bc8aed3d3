/*
 * check_print.c: what `rigtune check` found, for people: the machine diff
 * and the table of points on stderr (the YAML is check_doc.c's).
 */
#include "check.h"
#include "../cli.h"

#include <math.h>
#include <string.h>


/* ---- for people ---- */

/* The moment's state that differs (free memory): one line, apart from the changes. */
static void print_state(FILE *f, const rt_mdiff *d)
{
	if (!d->nstate)
		return;
	rt_tprintf(f, "machine state (of the moment, not a change):");
	for (size_t i = 0; i < d->nstate; i++)
		rt_tprintf(f, "%s %s %s -> %s", i ? ";" : "", d->state[i].field, d->state[i].before,
			d->state[i].after);
	fputc('\n', f);
}

void rt_check_print_diff(FILE *f, const rt_check_run *run)
{
	const rt_baseline *b = &run->base;
	if (!b->machine)
		return;
	if (!run->diff.n) {
		rt_tprintf(f, "machine: nothing changed since the baseline (fingerprint %s)\n",
			run->fingerprint);
		print_state(f, &run->diff);
		return;
	}
	const char *same = strcmp(b->fingerprint, run->fingerprint) ? "" : ", same fingerprint";
	rt_tprintf(f, "machine: %zu field%s changed since the baseline (fingerprint %s -> %s%s):\n",
		run->diff.n, run->diff.n == 1 ? "" : "s", b->fingerprint, run->fingerprint, same);
	int width = 0;
	for (size_t i = 0; i < run->diff.n; i++)
		if ((int)strlen(run->diff.v[i].field) > width)
			width = (int)strlen(run->diff.v[i].field);
	for (size_t i = 0; i < run->diff.n; i++) {
		const rt_mdiff_entry *e = &run->diff.v[i];
		rt_tprintf(f, "  %-*s  %s -> %s%s\n", width, e->field,
			e->before ? e->before : "(absent)", e->after ? e->after : "(absent)",
			rt_mdiff_is_hardware(e) ? "  [hardware]" : "");
	}
	print_state(f, &run->diff);
}

static void print_row(FILE *f, const rt_check_point *p)
{
	char label[160], change[64] = "-", pval[16] = "-", now[32] = "-";
	const rt_base_point *b = p->base;
	rt_base_point_label(b, label, sizeof label);
	if (rt_check_point_compared(p)) {
		snprintf(change, sizeof change, "%+6.1f%% [%+.1f, %+.1f]", 100 * (p->cmp.ratio - 1),
			 100 * (p->cmp.ci_lo - 1), 100 * (p->cmp.ci_hi - 1));
		snprintf(pval, sizeof pval, "%.2g", p->cmp.test.p);
		snprintf(now, sizeof now, "%.4g", p->now_median);
	}
	rt_tprintf(f, "%-44s %10.4g %10s %-26s %8s  %s\n", label, rt_check_point_base_median(p), now,
		change, pval, rt_verdict_name(p->verdict));
}

void rt_check_print_table(FILE *f, const rt_check_run *run)
{
	rt_tprintf(f, "%-44s %10s %10s %-26s %8s  %s\n", "point", run->ab ? "A" : "baseline",
		run->ab ? "B" : "now", run->ab ? "B/A [95% CI]" : "change [95% CI]", "p",
		"verdict");
	for (int i = 0; i < run->npoints; i++)
		print_row(f, &run->points[i]);
	for (int i = 0; i < run->npoints; i++) {
		const rt_check_point *p = &run->points[i];
		if (p->verdict != RT_VERDICT_UNCHANGED) {
			char label[160];
			rt_base_point_label(p->base, label, sizeof label);
			rt_tprintf(f, "%s: %s: %s\n", rt_verdict_name(p->verdict), label, p->reason);
		}
	}
	rt_tprintf(f, "canary: %s\n", run->canary.says);
	for (int i = 0; i < run->nnotes; i++)
		rt_tprintf(f, "note: %s\n", run->notes[i]);
	for (int i = 0; i < run->nsuggestions; i++)
		rt_tprintf(f, "suggestion: %s\n", run->suggestions[i]);
	rt_tprintf(f, "check: %d point%s in %.0f s: %d unchanged, %d regression, %d improvement, "
		   "%d infeasible, %d inconclusive",
		run->npoints, run->npoints == 1 ? "" : "s", run->seconds,
		run->counts[RT_VERDICT_UNCHANGED], run->counts[RT_VERDICT_REGRESSION],
		run->counts[RT_VERDICT_IMPROVEMENT], run->counts[RT_VERDICT_INFEASIBLE],
		run->counts[RT_VERDICT_INCONCLUSIVE]);
	if (run->counts[RT_VERDICT_LIKELY_REGRESSION])
		fprintf(f, ", %d likely regression", run->counts[RT_VERDICT_LIKELY_REGRESSION]);
	if (run->counts[RT_VERDICT_NOT_RUN])
		fprintf(f, ", %d not run (no --cmd)", run->counts[RT_VERDICT_NOT_RUN]);
	fputc('\n', f);
}
