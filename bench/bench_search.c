/*
 * bench_search: search quality. For each workload's default space (on the
 * CPU), tune with grid and with every other strategy of the table; then re-measure
 * each strategy's fastest point interleaved with grid's (A B A B ...) and
 * print its throughput / grid's, the trials and seconds it used. Last, time
 * a default `rigtune tune` (all workloads, budget 60 s) against its budget.
 *
 *   build/bench/bench_search [WORKLOAD ...]   (default: every workload)
 *
 * Targets (issue 5): model >= 0.97 of grid's best with <= 25% of grid's
 * trials; the default tune ends within its budget + 10%. Takes ~10 minutes
 * on 2 cores (grid measures every point).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../search/stats.h"
#include "../tuner/measure.h"
#include "../tuner/tune.h"

#define ROUNDS 5

/* The reference every other strategy of the table is compared with. */
#define ORACLE "grid"

typedef struct pick {
	rt_point pt;
	rt_shape sh;
	int trials;
	double seconds;
	int ok;
} pick;

/* Tunes one workload with one strategy; the fastest point it found. */
static pick tune_with(const char *workload, const char *strategy, double budget)
{
	pick p = {0};
	rt_tune_opts o;
	rt_tune_opts_default(&o);
	o.workloads[0] = workload;
	o.nworkloads = 1;
	o.backends[0] = "cpu";
	o.nbackends = 1;
	o.strategy = strategy;
	o.budget_s = budget;
	o.fresh = 1;
	o.quiet = 1;
	o.crossover = 0;
	o.results_dir = "/tmp/rigtune-bench-search";
	rt_progress pr;
	rt_progress_init(&pr, budget, 1);
	rt_tune_run *run = calloc(1, sizeof *run);
	char err[512];
	if (!run || rt_tune(&o, run, &pr, err, sizeof err)) {
		fprintf(stderr, "bench_search: %s %s: %s\n", workload, strategy, run ? err : "oom");
		free(run);
		return p;
	}
	const rt_tune_workload *twl = &run->wl[0];
	if (twl->result && twl->result->best >= 0) {
		int np = rt_space_nparams(twl->space);
		const int *idx = twl->result->trials[twl->result->best].idx;
		for (int i = 0; i < twl->ntrials; i++)
			if (!memcmp(twl->trials[i].idx, idx, sizeof(int) * (size_t)np)) {
				p.pt = twl->trials[i].pt;
				p.sh = twl->trials[i].sh;
				p.ok = 1;
			}
	}
	p.trials = twl->ntrials;
	p.seconds = run->seconds;
	rt_tune_run_free(run);
	free(run);
	return p;
}

static double measure(const rt_workload *w, const pick *p)
{
	rt_measure_opts mo;
	rt_measure_defaults(&mo);
	mo.time_cap_s = 1.0;
	rt_measurement m;
	double v = 0;
	if (rt_measure(w, &p->pt, &p->sh, &mo, &m, NULL, 0) == RT_OK && m.feasible)
		v = m.median;
	rt_measurement_free(&m);
	return v;
}

/* Median over interleaved rounds of (pick / grid's pick). */
static double ratio_to_grid(const rt_workload *w, const pick *p, const pick *grid)
{
	double r[ROUNDS];
	for (int i = 0; i < ROUNDS; i++) {
		double a = measure(w, p), b = measure(w, grid);
		r[i] = b > 0 ? a / b : 0;
	}
	return rt_median(r, ROUNDS);
}

/* Every strategy of the table but the oracle, against the oracle's pick. */
static void bench_workload(const char *name)
{
	const rt_workload *w = rt_workload_find(name);
	int nstrat;
	const rt_strategy *const *st = rt_strategy_list(&nstrat);
	pick grid = tune_with(name, ORACLE, 3600), p;
	printf("\n%s: " ORACLE " measured %d points in %.0f s\n", name, grid.trials, grid.seconds);
	printf("%-8s %8s %8s %8s %8s  %s\n", "strategy", "pick/grd", "trials", "% grid", "seconds",
	       "target");
	for (int s = 0; s < nstrat; s++) {
		const char *sn = st[s]->name;
		if (!strcmp(sn, ORACLE))
			continue;
		/* a quarter of grid's time: what a user would give a search */
		p = tune_with(name, sn, grid.seconds / 4 + 5);
		if (!p.ok || !grid.ok) {
			printf("%-8s no feasible pick\n", sn);
			continue;
		}
		double r = ratio_to_grid(w, &p, &grid);
		double share = 100.0 * p.trials / (grid.trials ? grid.trials : 1);
		printf("%-8s %8.3f %8d %7.0f%% %8.0f  %s\n", sn, r, p.trials, share, p.seconds,
		       !strcmp(sn, RT_STRATEGY_DEFAULT)
			       ? (r >= 0.97 && share <= 25 ? "met (>= 0.97, <= 25%)"
							   : "NOT met (>= 0.97, <= 25%)")
			       : "-");
	}
}

int main(int argc, char **argv)
{
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	int n = argc > 1 ? argc - 1 : count;
	for (int i = 0; i < n; i++)
		bench_workload(argc > 1 ? argv[i + 1] : all[i]->name);

	rt_tune_opts o;
	rt_tune_opts_default(&o);
	o.quiet = 1;
	o.fresh = 1;
	o.results_dir = "/tmp/rigtune-bench-search";
	rt_progress pr;
	rt_progress_init(&pr, o.budget_s, 1);
	rt_tune_run *run = calloc(1, sizeof *run);
	char err[512];
	if (run && rt_tune(&o, run, &pr, err, sizeof err) == RT_OK)
		printf("\ndefault tune: %.1f s for a %.0f s budget (%.1f%%): %s\n", run->seconds,
		       o.budget_s, 100 * run->seconds / o.budget_s,
		       run->seconds <= 1.1 * o.budget_s ? "met (<= budget + 10%)" : "NOT met");
	if (run)
		rt_tune_run_free(run);
	free(run);
	return 0;
}
