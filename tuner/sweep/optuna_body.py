# The Optuna study, after the data block and the trial (trial_body.py) that
# rigtune sweep writes above it (tuner/sweep/sweep_script.c).
import random
import time

import optuna


def options():
    p = argparse.ArgumentParser(
        description="An Optuna study of %s written by rigtune sweep: the hardware "
        "knobs fixed at the recommendation, %s from the knee up, your "
        "parameters searched. Several workers (on several machines) share "
        "one study through one --storage URL." % (WORKLOAD, BATCH_KEY))
    trial_options(p)
    p.add_argument("--storage", default="sqlite:///%s.db" % STUDY,
                   help="an RDB URL (sqlite:///FILE, postgresql://USER:PASSWORD@HOST/DB), "
                   "or 'memory' for a study that ends with the script "
                   "(default %(default)s)")
    p.add_argument("--study-name", default=STUDY, help="default %(default)s")
    args = p.parse_args()
    check_trial_options(p, args)
    return args


def suggest(trial):
    values = {BATCH_KEY: trial.suggest_categorical(BATCH_KEY, BATCH)}
    for name, kind, *spec in PARAMS:
        if kind == "choice":
            values[name] = trial.suggest_categorical(name, spec[0])
        elif kind == "int":
            values[name] = trial.suggest_int(name, spec[0], spec[1], log=spec[2])
        else:
            values[name] = trial.suggest_float(name, spec[0], spec[1], log=spec[2])
    return values


def objective(trial, args):
    values = dict(FIXED)
    values.update(suggest(trial))
    trial.set_user_attr("worker", worker())
    trial.set_user_attr("fixed", FIXED)
    trial.set_user_attr("estimated_seconds", SECONDS[values[BATCH_KEY]])
    return run_trial(trial.number, values, args)


def open_study(name, storage):
    # workers that start at once race to create the tables and the study in
    # an empty database: the loser tries again and finds them
    for attempt in range(5):
        try:
            return optuna.create_study(study_name=name, storage=storage,
                                       direction=DIRECTION, load_if_exists=True)
        except Exception:
            if attempt == 4 or storage is None:
                raise
            time.sleep(0.2 + random.random())


def main():
    args = options()
    preflight(args)
    storage = None if args.storage == "memory" else args.storage
    study = open_study(args.study_name, storage)
    # the knee first: a worker that finds it already in the study does not add it again
    study.enqueue_trial({BATCH_KEY: KNEE}, skip_if_exists=True)
    announce("study %s in %s" % (args.study_name, args.storage), args.n_trials)
    study.optimize(lambda trial: objective(trial, args), n_trials=args.n_trials,
                   catch=(TrialFailed,))
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if done:
        report_best(len(done), study.best_value, study.best_params)


if __name__ == "__main__":
    try:
        main()
    except SweepError as e:
        sys.exit("rigtune sweep: %s" % e)
