/*
 * bench_search: search quality. For each default space (gemm, transformer,
 * ppo on the CPU), tune with model, random, halving and grid; then re-measure
 * each strategy's fastest point interleaved with grid's (A B A B ...) and
 * print its throughput / grid's, the trials and seconds it used. Last, time
 * a default `rigtune tune` (all workloads, budget 60 s) against its budget.
 *
 *   build/bench/bench_search [WORKLOAD ...]   (default: gemm transformer ppo)
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
#include "../tuner/tune.h"

#define ROUNDS 5

static const char *const strategies[] = {"grid", "model", "random", "halving"};
#define NSTRAT (sizeof strategies / sizeof strategies[0])

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

static void bench_workload(const char *name)
{
	const rt_workload *w = rt_workload_find(name);
	pick picks[NSTRAT];
	picks[0] = tune_with(name, "grid", 3600);
	printf("\n%s: grid measured %d points in %.0f s\n", name, picks[0].trials, picks[0].seconds);
	printf("%-8s %8s %8s %8s %8s  %s\n", "strategy", "pick/grd", "trials", "% grid", "seconds",
	       "target");
	for (size_t s = 1; s < NSTRAT; s++) {
		/* a quarter of grid's time: what a user would give a search */
		picks[s] = tune_with(name, strategies[s], picks[0].seconds / 4 + 5);
		if (!picks[s].ok || !picks[0].ok) {
			printf("%-8s no feasible pick\n", strategies[s]);
			continue;
		}
		double r = ratio_to_grid(w, &picks[s], &picks[0]);
		double share = 100.0 * picks[s].trials / (picks[0].trials ? picks[0].trials : 1);
		printf("%-8s %8.3f %8d %7.0f%% %8.0f  %s\n", strategies[s], r, picks[s].trials, share,
		       picks[s].seconds,
		       s == 1 ? (r >= 0.97 && share <= 25 ? "met (>= 0.97, <= 25%)"
							: "NOT met (>= 0.97, <= 25%)")
			      : "-");
	}
}

int main(int argc, char **argv)
{
	static const char *const all[] = {"gemm", "transformer", "ppo"};
	int n = argc > 1 ? argc - 1 : 3;
	for (int i = 0; i < n; i++)
		bench_workload(argc > 1 ? argv[i + 1] : all[i]);

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
