# One trial of a study script that rigtune sweep writes (the Optuna and the Ray
# Tune ones, tuner/sweep/sweep_script.c), after its data block: ENV, PUS, FIXED,
# BATCH, SECONDS, PARAMS, the objective. The engine's part follows.
import argparse
import importlib
import re
import shlex
import shutil
import socket
import subprocess

PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TrialFailed(Exception):
    """The training gave no objective value: the trial failed, the study goes on."""


class SweepError(Exception):
    """The sweep cannot run at all (the command is not there, a bad regex)."""


def worker():
    return "%s:%d" % (socket.gethostname(), os.getpid())


def trial_options(p):
    """The options every engine's script takes: the trials, the binding, the objective."""
    p.add_argument("--n-trials", type=int, default=TRIALS,
                   help="trials to run (default %(default)s)")
    p.add_argument("--no-pin", action="store_true",
                   help="do not bind to the recommendation's PUs")
    p.add_argument("--cmd", default=COMMAND,
                   help="your training, {name} replaced by a parameter's value "
                   "(default %(default)r)")
    p.add_argument("--objective", default=OBJECTIVE,
                   help="a regular expression with one group, the number in --cmd's output "
                   "(default %(default)r)")
    p.add_argument("--function", default=FUNCTION,
                   help="or module:name of a function(params) -> float "
                   "(default %(default)r)")


def check_trial_options(p, args):
    """Exit 2 (argparse's error) for an objective that cannot run; compiles the regex."""
    if bool(args.cmd) == bool(args.function):
        p.error("give the objective: --cmd 'COMMAND {param} ...' with --objective REGEX, "
                "or --function module:name (one of them)")
    try:
        if args.cmd is not None and not shlex.split(args.cmd):
            p.error("--cmd: empty")
    except ValueError as e:
        p.error("--cmd %r: %s" % (args.cmd, e))
    if args.cmd:
        names = set(FIXED) | {BATCH_KEY} | {spec[0] for spec in PARAMS}
        for m in PLACEHOLDER.finditer(args.cmd):
            if m.group(1) and m.group(1) not in names:
                p.error("--cmd: {%s} names no parameter (%s)" % (
                    m.group(1), ", ".join(sorted(names))))
        try:
            args.pattern = re.compile(args.objective or "")
        except re.error as e:
            p.error("--objective %r: %s" % (args.objective, e))
        if args.pattern.groups != 1:
            p.error("--objective %r: expected one group, the number" % args.objective)
    # trials may run elsewhere (Ray's workers): the directory the user started in
    args.cwd = os.getcwd()


def text_of(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def expand(word, values):
    def one(m):
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        return text_of(values[m.group(1)])
    return PLACEHOLDER.sub(one, word)


def run_command(values, args):
    argv = [expand(w, values) for w in shlex.split(args.cmd)]
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, bufsize=1,
                                cwd=args.cwd)
    except OSError as e:
        raise SweepError("cannot run %s: %s" % (argv[0], e.strerror))
    found = None
    with proc.stdout:
        for line in proc.stdout:
            sys.stdout.write(line)
            m = args.pattern.search(line)
            if m:
                found = m.group(1)
    status = proc.wait()
    if status != 0:
        raise TrialFailed("%s exited with status %d" % (argv[0], status))
    if found is None:
        raise TrialFailed("no line of its output matched %r" % args.objective)
    try:
        return float(found)
    except ValueError:
        raise TrialFailed("%r (matched by %r) is not a number" % (found, args.objective))


def load_function(args):
    module, _, name = args.function.partition(":")
    if args.cwd not in sys.path:
        sys.path.insert(0, args.cwd)
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise SweepError("cannot load %s: %s" % (args.function, e))


def preflight(args):
    """SweepError before the first trial when the objective cannot run at all."""
    if args.function:
        load_function(args)
        return
    program = shlex.split(args.cmd)[0]
    if not PLACEHOLDER.search(program) and not shutil.which(program):
        raise SweepError("cannot run %s: not found" % program)


def run_trial(label, values, args):
    """The objective's value for one trial's values (the fixed knobs among them)."""
    shown = " ".join("%s=%s" % (k, text_of(v)) for k, v in values.items())
    print("rigtune sweep: trial %s on %s: %s (about %.0f s)" % (
        label, worker(), shown, SECONDS[values[BATCH_KEY]]), file=sys.stderr, flush=True)
    if args.function:
        return float(load_function(args)(dict(values)))
    return run_command(values, args)


def announce(where, n_trials):
    mean = sum(SECONDS.values()) / len(SECONDS)
    print("rigtune sweep: %s, worker %s: %d trials of about %.0f s each (%.0f s in all)" % (
        where, worker(), n_trials, mean, n_trials * mean), file=sys.stderr, flush=True)


def report_best(done, value, params):
    print("rigtune sweep: best of %d complete trials: %s = %s at %s" % (
        done, METRIC, value, params), file=sys.stderr, flush=True)
