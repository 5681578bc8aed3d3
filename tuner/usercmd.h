/*
 * usercmd.h: running the user's own command (`rigtune tune --cmd`, `rigtune
 * exec`, the framework probe) and reading a metric from what it prints.
 *
 * Three parts, each usable alone:
 *
 * The template. `python3 train.py --batch {batch} --lr '{lr}'` is split into
 * argv words the way a POSIX shell splits them (blanks separate words; '...'
 * keeps everything; "..." keeps everything but \" \\ \$ \` ; a backslash
 * outside quotes keeps the next character) and nothing else: no variables,
 * no globs, no ~, no pipes (an unquoted | ; & < > is refused: use --shell).
 * Each word may hold {knob} placeholders, replaced per point by the knob's
 * value; {{ and }} stand for literal braces. With shell set the whole text is
 * one string for /bin/sh -c, each placeholder replaced by its value quoted
 * for where sh reads it ('...' outside quotes, '\'' for a quote inside
 * '...', \$ \` \" \\ inside "..."), so that no value is ever syntax; a
 * placeholder where a value cannot be quoted (in `...`, ${...}, arithmetic,
 * a comment, a here-document, after a backslash or a $) is refused.
 *
 * The child (git's run-command style: one struct describes it, start and
 * finish are separate calls). It runs in its own process group with stdin
 * from /dev/null, the environment plus the additions, bound to the PUs of a
 * pin policy (hwloc, tuner/pin.h) and with its memory capped when asked:
 * RLIMIT_AS before exec, or where that does not hold (macOS) a watchdog on
 * the footprint of the command's whole tree, which ends its process group
 * past the cap (memwatch.h). A failed exec comes back through
 * a close-on-exec pipe with its errno. finish reads stdout and stderr with
 * poll as they come (a child that fills both pipes never blocks), hands every
 * line to a callback, kills the whole group at the deadline and reaps it.
 *
 * The metric. A POSIX extended regex with exactly one capture group; every
 * match on a line of stdout or stderr after the first `warmup` matches is a
 * sample. rt_usercmd_measure() puts it all together for one point and says
 * what happened in the terms of a measurement (measure.h).
 */
#ifndef RT_USERCMD_H
#define RT_USERCMD_H

#include <regex.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/platform.h"
#include "knob.h"
#include "memwatch.h"
#include "measure.h"

/* ---- the template ---- */

typedef struct rt_cmd_template {
	int shell;
	int nwords;
	char **words; /* after quote removal, placeholders still in; shell: the one text */
} rt_cmd_template;

/*
 * Splits text into t. RT_EINVAL with the reason for an empty command, an
 * unterminated quote, a trailing backslash, a shell operator outside quotes
 * (without shell), and a malformed placeholder: a lone { or }, {}, or a name
 * that is not [A-Za-z_][A-Za-z0-9_]*. RT_ENOMEM.
 */
int rt_cmd_template_parse(const char *text, int shell, rt_cmd_template *t, char *err,
			  size_t errlen);
void rt_cmd_template_free(rt_cmd_template *t); /* accepts a zeroed template */

/*
 * What makes two runs' figures comparable besides the machine and the knobs:
 * t's words, whether a shell runs it (t->shell), and how the metric is read;
 * 16 hex digits into out. tune writes it as a configuration's hash:, and
 * check runs a command again only when the one it is given has the same.
 */
void rt_cmd_template_hash(const rt_cmd_template *t, const char *metric, int warmup, int minimize,
			  char out[17]);

/*
 * The placeholder names of t, each once, in order of appearance, into names
 * (up to max); returns how many there are (may be more than max).
 */
int rt_cmd_template_names(const rt_cmd_template *t, char (*names)[RT_KNOB_NAMELEN], int max);

/*
 * The argv of t at the point kv (n values): a new NULL-terminated array of
 * new strings (rt_argv_free). RT_EINVAL "the command's placeholder {x} has no
 * knob" for a placeholder with no value.
 */
int rt_cmd_template_expand(const rt_cmd_template *t, const rt_knob_value *kv, int n,
			   char ***argv, char *err, size_t errlen);
void rt_argv_free(char **argv); /* accepts NULL */
/* argv as one line a shell would read back the same (each word quoted as needed). */
void rt_argv_format(char *const *argv, char *buf, size_t len);
/*
 * s quoted for a POSIX shell: as is when it is safe, else in single quotes
 * (a quote as '\''); cut to fit len, the closing quote kept (for messages).
 */
void rt_shell_quote(const char *s, char *buf, size_t len);
/* The same, whole, in a new string (NULL: out of memory): for what a shell will read. */
char *rt_shell_quote_dup(const char *s);

/* ---- the child ---- */

/* What a child's run looked like from outside. */
typedef struct rt_usercmd_exit {
	int status;            /* wait status */
	int timed_out;         /* killed at the deadline */
	int stopped;           /* killed because stop() asked */
	int oom_killed;        /* the kernel's OOM killer took a process of our cgroup meanwhile */
	double seconds;        /* from start to exit */
	double cost_s;         /* the same on the budget clock (common/clock.h): its cost to a budget */
	double cpu_s;          /* CPU time of the child and the children it waited for */
	char last_err[256];    /* the last non-empty line of stderr */
	char oom_err[256];     /* the last line of stderr that says it ran out of memory */
	uint64_t over_cap;     /* the footprint at which the memory watchdog ended it; 0: not */
} rt_usercmd_exit;

typedef struct rt_usercmd {
	/* what to run: set by the caller */
	char *const *argv;       /* argv[0] is looked up in PATH */
	char *const *env;        /* "NAME=value" to add or replace; NULL-terminated; may be NULL */
	int pin;                 /* rt_pin policy for pin_cpus PUs; RT_PIN_NONE: no binding */
	int pin_cpus;
	uint64_t mem_cap;        /* in bytes (RLIMIT_AS or the watchdog: memwatch.h); 0: none */
	double timeout_s;        /* kill the group after this; 0: never */
	/* every complete line (without its newline) of stdout (is_err 0) or stderr */
	void (*line)(void *user, int is_err, const char *text);
	void *user;
	/* polled while it runs (a signal to the tuner): nonzero kills the group; may be NULL */
	int (*stop)(void);
	/* state, from start to finish */
	pid_t pid;
	int out_fd, err_fd;
	double t0;               /* rt_now() at the start: the timeout's */
	double clock0;           /* rt_clock_now() at the start: the budget's */
	uint64_t oom_before;
	rt_cpuset cpus;          /* the CPUs it may run on */
	rt_memcap cap_how;       /* how mem_cap holds */
	int watched;             /* the watchdog runs: watch */
	rt_memwatch watch;
} rt_usercmd;

/*
 * Starts c. RT_EINVAL "cannot run 'ARGV0': why" when exec fails (a command
 * that does not exist, is not executable), or the pin policy cannot bind;
 * RT_ERUNTIME when pipe or fork fail.
 */
int rt_usercmd_start(rt_usercmd *c, char *err, size_t errlen);
/*
 * Reads c's output until it exits and its pipes close, or until the
 * deadline (then the group is killed); reaps it and fills out. A process of
 * the group still holding the pipes after the child exited is killed too.
 * Returns 0, or RT_ERUNTIME when waiting fails.
 */
int rt_usercmd_finish(rt_usercmd *c, rt_usercmd_exit *out, char *err, size_t errlen);

/* rt_usercmd_start, then rt_usercmd_finish. */
int rt_usercmd_run(rt_usercmd *c, rt_usercmd_exit *out, char *err, size_t errlen);

/* ---- the metric ---- */

typedef struct rt_metric {
	regex_t re;
	int compiled;
	int warmup;             /* matches to skip */
	int matches;            /* seen so far */
	double *samples;        /* after the warm-up, as printed (thinned: see below) */
	int nsamples, cap;
	double first_at;        /* rt_clock_now() at the first match, warm-up or not; 0: none */
	long seen;              /* samples after the warm-up, kept or not */
	long stride;            /* the samples kept: every stride-th seen (1, 2, 4, ...) */
	char bad[128];          /* a match that was not a number, for the reason */
} rt_metric;

/*
 * The samples a run keeps: a command that prints millions of matches must
 * not make a journal that rigtune cannot read back (RT_READ_MAX_BYTES) or a
 * document past RT_YR_MAX_NODES. Past it the samples are thinned: every
 * other one is dropped and from then on every second one is kept, then
 * every fourth, ..., so that those kept stay spread evenly over the run.
 */
#define RT_CMD_MAX_SAMPLES 4096

/*
 * Compiles regex (POSIX ERE) into m. RT_EINVAL when it does not compile or
 * has other than exactly one capture group (the message says how many).
 */
int rt_metric_init(rt_metric *m, const char *regex, int warmup, char *err, size_t errlen);
/* Takes the samples of one line of output. */
void rt_metric_line(rt_metric *m, const char *text);
/* Forgets the samples (the next run starts its warm-up again). */
void rt_metric_reset(rt_metric *m);
void rt_metric_free(rt_metric *m); /* accepts a zeroed metric */

/*
 * Runs c once and reads m from its output into out (a measurement of the
 * point; out->samples as printed). The outcome: exit 0 with a sample ->
 * feasible; ended by the memory watchdog -> memory, "needs more than the N
 * GiB cap (M GiB when the watchdog ended it)" as a built-in trial's;
 * the deadline -> timeout; killed by the OOM killer, or a failure
 * with a stderr line that says it ran out of memory (MemoryError, "out of
 * memory", "cannot allocate memory", bad_alloc) -> memory; another non-zero
 * exit or a signal -> crash; exit 0 without a sample -> bad_output. The
 * reason is otherwise the last non-empty line of stderr (or how it ended).
 * out->setup_seconds is the time from the start to the first match (an
 * import, the model's construction: a run's fixed cost, which the rate it
 * prints leaves out), out->seconds the whole run's, both on the budget
 * clock (common/clock.h): what the run costs a budget. Returns 0,
 * or RT_EINVAL when the command cannot be started (exec failed), RT_ERUNTIME.
 */
int rt_usercmd_measure(rt_usercmd *c, rt_metric *m, rt_measurement *out, char *err,
		       size_t errlen);

#endif
