# The Ray Tune run, after the data block and the trial (trial_body.py) that
# rigtune sweep writes above it (tuner/sweep/sweep_script.c). Ray starts on
# this machine with one logical CPU: the trials run one at a time, each on the
# recommendation's threads and PUs, as tune measured them.

# a trial runs in the directory the script was started in, not in Ray's trial directory
os.environ.setdefault("RAY_CHDIR_TO_TRIAL_DIR", "0")

import ray  # noqa: E402
from ray import tune  # noqa: E402
from ray.tune.search.basic_variant import BasicVariantGenerator  # noqa: E402


def options():
    p = argparse.ArgumentParser(
        description="A Ray Tune run of %s written by rigtune sweep: the hardware "
        "knobs fixed at the recommendation, %s from the knee up, your "
        "parameters searched, one trial at a time on this machine." % (WORKLOAD, BATCH_KEY))
    trial_options(p)
    p.add_argument("--storage-path", default=os.path.abspath("ray_results"),
                   help="where Ray Tune keeps the run's results (default %(default)s)")
    p.add_argument("--name", default=STUDY, help="the run's name (default %(default)s)")
    args = p.parse_args()
    check_trial_options(p, args)
    return args


def search_space():
    space = {BATCH_KEY: tune.choice(BATCH)}
    for name, kind, *spec in PARAMS:
        if kind == "choice":
            space[name] = tune.choice(spec[0])
        elif kind == "int":
            # Ray's integer ranges exclude their upper bound
            space[name] = (tune.lograndint if spec[2] else tune.randint)(spec[0], spec[1] + 1)
        else:
            space[name] = (tune.loguniform if spec[2] else tune.uniform)(spec[0], spec[1])
    return space


def trainable(config, args):
    """One trial, in a Ray worker: the objective's value as the trial's one result."""
    values = dict(FIXED)
    values.update(config)
    label = tune.get_context().get_trial_name()
    return {METRIC: run_trial(label, values, args)}


def main():
    args = options()
    preflight(args)
    mode = "max" if DIRECTION == "maximize" else "min"
    ray.init(num_cpus=1, include_dashboard=False)
    announce("Ray Tune run %s in %s" % (args.name, args.storage_path), args.n_trials)
    tuner = tune.Tuner(
        tune.with_parameters(trainable, args=args),
        param_space=search_space(),
        tune_config=tune.TuneConfig(
            num_samples=args.n_trials, metric=METRIC, mode=mode,
            # the knee first, the parameters drawn
            search_alg=BasicVariantGenerator(points_to_evaluate=[{BATCH_KEY: KNEE}]),
            # a worker kept from one trial to the next: starting one costs seconds
            reuse_actors=True),
        run_config=tune.RunConfig(name=args.name, storage_path=args.storage_path))
    results = tuner.fit()
    done = [r for r in results if r.error is None and METRIC in r.metrics]
    if done:
        best = results.get_best_result()
        report_best(len(done), best.metrics[METRIC], best.config)


if __name__ == "__main__":
    try:
        main()
    except SweepError as e:
        sys.exit("rigtune sweep: %s" % e)
