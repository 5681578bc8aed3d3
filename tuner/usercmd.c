/*
 * usercmd.c: the user's command as a child process, and the metric read from
 * its output (usercmd.h). The template lives in usercmd_template.c.
 */
#include "usercmd.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/clock.h"
#include "child.h"
#include "contention.h"
#include "pin.h"

extern char **environ;

/* A line longer than this is handed over in pieces. */
#define LINE_MAX_BYTES 65536
/* How long a process of the group may hold the pipes after the child exited. */
#define STRAGGLER_GRACE_S 1.0
/* poll() wakes at least this often to look at stop() and the child. */
#define POLL_SLICE_MS 200

/* ---- environment ---- */

static size_t name_len(const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	return eq ? (size_t)(eq - assignment) : strlen(assignment);
}

static int overridden(const char *entry, char *const *add)
{
	size_t n = name_len(entry);
	for (char *const *a = add; a && *a; a++)
		if (name_len(*a) == n && !strncmp(*a, entry, n))
			return 1;
	return 0;
}

/* environ with the additions replacing what they name; NULL when out of memory. */
static char **merged_env(char *const *add)
{
	size_t n = 0, k = 0;
	for (char **e = environ; *e; e++)
		n++;
	for (char *const *a = add; a && *a; a++)
		n++;
	char **env = malloc(sizeof *env * (n + 1));
	if (!env)
		return NULL;
	for (char **e = environ; *e; e++)
		if (!overridden(*e, add))
			env[k++] = *e;
	for (char *const *a = add; a && *a; a++)
		env[k++] = *a;
	env[k] = NULL;
	return env;
}

/* ---- the child ---- */

/* What the child tells the parent when it cannot exec: which step, and errno. */
typedef struct exec_failure {
	int step; /* 0 exec, 1 bind */
	int err;
} exec_failure;

/* The CPUs of the pin policy for n threads; RT_OK when bound. */
static int pin_set(int policy, int n, rt_cpuset *set, char *err, size_t errlen)
{
	if (rt_plat_cpus_allowed(set))
		return rt_fail(err, errlen, RT_ERUNTIME, "cannot read the CPUs allowed: %s",
			       strerror(errno));
	if (policy == RT_PIN_NONE)
		return RT_OK;
	if (!rt_plat_can_bind()) /* steered in the child (QoS), on any CPU */
		return rt_pin_steer(policy) < 0 ? rt_pin_cannot_bind(policy, err, errlen) : RT_OK;
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) || hwloc_topology_load(t))
		return rt_fail(err, errlen, RT_ERUNTIME, "hwloc cannot load the topology");
	hwloc_bitmap_t bm = hwloc_bitmap_alloc();
	int rc = bm ? rt_pin_cpuset(t, (rt_pin)policy, n < 1 ? 1 : n, bm) : RT_ENOMEM;
	if (rc == RT_OK) {
		rt_cpuset_zero(set);
		unsigned i;
		hwloc_bitmap_foreach_begin(i, bm) rt_cpuset_add(set, (int)i);
		hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(bm);
	hwloc_topology_destroy(t);
	return rc ? rt_fail(err, errlen, rc, "cannot pick the %s PUs", rt_pin_name(policy)) : RT_OK;
}

/* Binds the child to c's CPUs, or steers it by QoS class where nothing binds: 0 or -1 (errno). */
static int place(const rt_usercmd *c)
{
	if (rt_plat_can_bind())
		return rt_plat_bind(&c->cpus);
	return rt_plat_steer((rt_steer)rt_pin_steer((rt_pin)c->pin));
}

/*
 * In the child, between fork and exec: only async-signal-safe calls. The
 * child becomes the guard of the command's tree (child.h rt_child_guard): the
 * command and all it starts end with rigtune, whatever ends rigtune.
 */
static void child_exec(const rt_usercmd *c, char **env, int out, int err, int report,
		       pid_t rigtune)
{
	exec_failure f = {0, 0};
	rt_child_begin(rigtune);
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out, 1);
	dup2(err, 2);
	if (c->pin != RT_PIN_NONE && place(c)) {
		f = (exec_failure){1, errno};
	} else {
		/* the guard holds none of the command's streams: they end when it does */
		const int streams[] = {0, 1, 2, out, err, report, devnull};
		rt_child_guard(streams, devnull >= 0 ? 7 : 6);
		if (c->cap_how == RT_MEMCAP_SYSTEM)
			rt_plat_cap_memory(c->mem_cap);
		rt_plat_execvpe(c->argv[0], c->argv, env);
		f.err = errno;
	}
	rt_write_all(report, &f, sizeof f);
	_exit(127);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

/* Waits for the exec report: 0 when exec succeeded (the pipe closed empty). */
static int exec_outcome(rt_usercmd *c, int fd, char *err, size_t errlen)
{
	exec_failure f;
	ssize_t n;
	while ((n = read(fd, &f, sizeof f)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return RT_OK;
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = -1;
	if (f.step == 1)
		return rt_fail(err, errlen, RT_EINVAL, "cannot bind '%s' to the %s PUs: %s",
			       c->argv[0], rt_pin_name(c->pin), strerror(f.err));
	return rt_fail(err, errlen, RT_EINVAL, "cannot run '%s': %s", c->argv[0], strerror(f.err));
}

int rt_usercmd_start(rt_usercmd *c, char *err, size_t errlen)
{
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
	c->pid = -1;
	c->out_fd = c->err_fd = -1;
	int rc = pin_set(c->pin, c->pin_cpus, &c->cpus, err, errlen);
	if (rc)
		return rc;
	char **env = merged_env(c->env);
	if (!env)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (rt_plat_pipe_cloexec(out) || rt_plat_pipe_cloexec(errp) || rt_plat_pipe_cloexec(rep)) {
		rc = rt_fail(err, errlen, RT_ERUNTIME, "pipe: %s", strerror(errno));
		goto out;
	}
	c->oom_before = rt_plat_oom_kills();
	c->cap_how = rt_memcap_how(c->mem_cap);
	c->watched = 0;
	/* what leaves the group (setsid) still comes back to us, to be ended with the trial */
	rt_child_adopt_orphans(1);
	fflush(NULL);
	c->t0 = rt_now();
	c->clock0 = rt_clock_now();
	pid_t self = getpid();
	c->pid = fork();
	if (c->pid < 0) {
		rc = rt_fail(err, errlen, RT_ERUNTIME, "fork: %s", strerror(errno));
		goto out;
	}
	if (c->pid == 0)
		child_exec(c, env, out[1], errp[1], rep[1], self);
	setpgid(c->pid, c->pid); /* either side may get there first */
	close(rep[1]);
	rep[1] = -1;
	rc = exec_outcome(c, rep[0], err, errlen);
	if (rc)
		goto out;
	c->out_fd = out[0];
	c->err_fd = errp[0];
	out[0] = errp[0] = -1;
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
	c->watched = c->cap_how == RT_MEMCAP_WATCHDOG &&
		     rt_memwatch_start(&c->watch, c->pid, 1, c->mem_cap) == RT_OK;
out:
	if (rc)
		rt_child_adopt_orphans(0);
	close_pair(out);
	close_pair(errp);
	close_pair(rep);
	free(env);
	return rc;
}

/* One output stream: its descriptor and the line it is in the middle of. */
typedef struct stream {
	int fd;
	int is_err;
	char buf[LINE_MAX_BYTES + 1];
	size_t n;
} stream;

/* Whether a line of a program's stderr says it ran out of memory. */
static int says_out_of_memory(const char *line)
{
	static const char *const words[] = {"MemoryError", "out of memory", "cannot allocate memory",
					    "can't allocate memory", "bad_alloc", "OutOfMemory"};
	for (size_t i = 0; i < RT_COUNT(words); i++)
		if (strcasestr(line, words[i]))
			return 1;
	return 0;
}

/*
 * Hands one line to the callback and keeps stderr's last non-blank one, and
 * the last that says it ran out of memory.
 */
static void deliver(rt_usercmd *c, stream *s, rt_usercmd_exit *out)
{
	s->buf[s->n] = '\0';
	if (s->n && s->buf[s->n - 1] == '\r')
		s->buf[--s->n] = '\0';
	if (s->is_err && strspn(s->buf, " \t") < s->n)
		snprintf(out->last_err, sizeof out->last_err, "%.*s", (int)sizeof out->last_err - 1,
			 s->buf);
	if (s->is_err && says_out_of_memory(s->buf))
		snprintf(out->oom_err, sizeof out->oom_err, "%.*s", (int)sizeof out->oom_err - 1,
			 s->buf);
	if (c->line)
		c->line(c->user, s->is_err, s->buf);
	s->n = 0;
}

/* Reads what is there; closes the stream at its end. */
static void drain(rt_usercmd *c, stream *s, rt_usercmd_exit *out)
{
	char chunk[8192];
	for (;;) {
		ssize_t k = read(s->fd, chunk, sizeof chunk);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return; /* EAGAIN: nothing more for now */
		if (k == 0) {
			if (s->n)
				deliver(c, s, out);
			close(s->fd);
			s->fd = -1;
			return;
		}
		for (ssize_t i = 0; i < k; i++) {
			if (chunk[i] == '\n' || s->n == LINE_MAX_BYTES) {
				deliver(c, s, out);
				if (chunk[i] == '\n')
					continue;
			}
			s->buf[s->n++] = chunk[i];
		}
	}
}

/*
 * Reaps the child if it has exited; 1 when it has (status and usage filled).
 * The memory watchdog stays off its pid meanwhile, and for good once it is
 * reaped: from then on the number may be another process's.
 */
static int reap(rt_usercmd *c, int options, rt_usercmd_exit *out)
{
	struct rusage ru;
	pid_t r;
	if (c->watched)
		rt_memwatch_hold(&c->watch);
	while ((r = wait4(c->pid, &out->status, options, &ru)) < 0 && errno == EINTR)
		;
	if (c->watched)
		rt_memwatch_release(&c->watch, r == c->pid);
	if (r != c->pid)
		return 0;
	out->seconds = rt_now() - c->t0;
	out->cost_s = rt_clock_now() - c->clock0;
	out->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
		     (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
	return 1;
}

int rt_usercmd_finish(rt_usercmd *c, rt_usercmd_exit *out, char *err, size_t errlen)
{
	static stream s[2]; /* large: not on the stack; one child at a time */
	memset(out, 0, sizeof *out);
	s[0] = (stream){.fd = c->out_fd, .is_err = 0};
	s[1] = (stream){.fd = c->err_fd, .is_err = 1};
	double deadline = c->timeout_s > 0 ? c->t0 + c->timeout_s : INFINITY, exited_at = 0;
	int exited = 0, killed = 0;
	while (s[0].fd >= 0 || s[1].fd >= 0) {
		struct pollfd p[2];
		int np = 0;
		for (int i = 0; i < 2; i++)
			if (s[i].fd >= 0)
				p[np++] = (struct pollfd){.fd = s[i].fd, .events = POLLIN};
		if (poll(p, (nfds_t)np, POLL_SLICE_MS) < 0 && errno != EINTR) {
			rt_fail(err, errlen, RT_ERUNTIME, "poll: %s", strerror(errno));
			killpg(c->pid, SIGKILL);
			killed = 1;
			break;
		}
		for (int i = 0; i < 2; i++)
			if (s[i].fd >= 0)
				drain(c, &s[i], out);
		double now = rt_now();
		if (!exited && (exited = reap(c, WNOHANG, out)))
			exited_at = now;
		out->timed_out = !exited && now >= deadline;
		out->stopped = !exited && c->stop && c->stop();
		/* at the deadline, on a stop, or when what is left holds the pipes open */
		if (out->timed_out || out->stopped ||
		    (exited && now - exited_at > STRAGGLER_GRACE_S)) {
			killpg(c->pid, SIGKILL);
			killed = 1;
			break;
		}
	}
	for (int i = 0; i < 2; i++)
		if (s[i].fd >= 0) {
			if (s[i].n)
				deliver(c, &s[i], out);
			close(s[i].fd);
		}
	c->out_fd = c->err_fd = -1;
	int reaped = exited || reap(c, 0, out), why = errno;
	if (c->watched && rt_memwatch_stop(&c->watch))
		out->over_cap = c->watch.seen;
	c->watched = 0;
	if (!reaped)
		return rt_fail(err, errlen, RT_ERUNTIME, "wait: %s", strerror(why));
	if (!killed)
		killpg(c->pid, SIGKILL); /* what the command left behind */
	/* and what left its group (setsid): the whole tree ends with the trial */
	rt_child_end_descendants();
	rt_child_adopt_orphans(0);
	if (killed && !out->timed_out && !out->stopped && !exited)
		return RT_ERUNTIME; /* poll failed: err says so */
	out->oom_killed = rt_plat_oom_kills() > c->oom_before;
	c->pid = -1;
	return RT_OK;
}

int rt_usercmd_run(rt_usercmd *c, rt_usercmd_exit *out, char *err, size_t errlen)
{
	int rc = rt_usercmd_start(c, err, errlen);
	return rc ? rc : rt_usercmd_finish(c, out, err, errlen);
}

/* ---- the metric ---- */

int rt_metric_init(rt_metric *m, const char *regex, int warmup, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	m->warmup = warmup;
	int rc = regcomp(&m->re, regex, REG_EXTENDED);
	if (rc) {
		char why[256];
		regerror(rc, &m->re, why, sizeof why);
		return rt_fail(err, errlen, RT_EINVAL, "--metric '%s': %s", regex, why);
	}
	m->compiled = 1;
	if (m->re.re_nsub != 1) {
		rc = rt_fail(err, errlen, RT_EINVAL,
			     "--metric '%s' has %zu capture groups: it needs exactly one, around "
			     "the number (e.g. 'samples/s ([0-9.]+)'; (?:...) is not ERE: "
			     "leave other parentheses out)",
			     regex, (size_t)m->re.re_nsub);
		rt_metric_free(m);
	}
	return rc;
}

/* Keeps every other sample and halves how often the next ones are kept. */
static void thin(rt_metric *m)
{
	for (int i = 0; 2 * i < m->nsamples; i++)
		m->samples[i] = m->samples[2 * i];
	m->nsamples = (m->nsamples + 1) / 2;
	m->stride *= 2;
}

/* One sample after the warm-up: kept when it falls on the stride (RT_CMD_MAX_SAMPLES). */
static void add_sample(rt_metric *m, double v)
{
	long k = m->seen++;
	if (m->stride < 1)
		m->stride = 1;
	if (m->nsamples == RT_CMD_MAX_SAMPLES && k % m->stride == 0)
		thin(m);
	if (k % m->stride)
		return;
	if (m->nsamples == m->cap) {
		int cap = m->cap ? 2 * m->cap : 64;
		double *s = realloc(m->samples, sizeof *s * (size_t)cap);
		if (!s)
			return; /* a lost sample, not a wrong one */
		m->samples = s;
		m->cap = cap;
	}
	m->samples[m->nsamples++] = v;
}

void rt_metric_line(rt_metric *m, const char *text)
{
	regmatch_t g[2];
	int flags = 0;
	while (*text && regexec(&m->re, text, 2, g, flags) == 0) {
		char num[64], *end;
		int len = (int)(g[1].rm_eo - g[1].rm_so);
		snprintf(num, sizeof num, "%.*s", len < 0 ? 0 : len, text + g[1].rm_so);
		double v = strtod(num, &end);
		int ok = g[1].rm_so >= 0 && end != num && !*end && isfinite(v);
		if (ok && !m->matches)
			m->first_at = rt_clock_now();
		if (!ok)
			snprintf(m->bad, sizeof m->bad, "'%s'", num);
		else if (m->matches >= m->warmup)
			add_sample(m, v);
		m->matches += ok;
		if (g[0].rm_eo <= 0)
			break; /* an empty match at the start: once per line */
		text += g[0].rm_eo;
		flags = REG_NOTBOL;
	}
}

void rt_metric_reset(rt_metric *m)
{
	m->matches = 0;
	m->nsamples = 0;
	m->first_at = 0;
	m->seen = 0;
	m->stride = 1;
	m->bad[0] = '\0';
}

void rt_metric_free(rt_metric *m)
{
	if (m->compiled)
		regfree(&m->re);
	free(m->samples);
	memset(m, 0, sizeof *m);
}

/* ---- one measurement ---- */

static void metric_line(void *user, int is_err, const char *text)
{
	(void)is_err;
	rt_metric_line(user, text);
}

/* snprintf into a reason, where cutting a long last line short is what is wanted. */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The cause and the reason of a run that did not give a measurement; RT_CAUSE_NONE if it did. */
static rt_cause outcome(const rt_usercmd *c, const rt_usercmd_exit *x, const rt_metric *m,
			char *why, size_t len)
{
	const char *last = x->last_err;
	int sig = WIFSIGNALED(x->status) ? WTERMSIG(x->status) : 0;
	int code = WIFEXITED(x->status) ? WEXITSTATUS(x->status) : -1;
	if (x->over_cap) {
		rt_memwatch_reason(c->mem_cap, x->over_cap, why, len);
		return RT_CAUSE_MEMORY;
	}
	if (x->timed_out || x->stopped) {
		say(why, len, "%s after %.0f s%s%s", x->stopped ? "stopped" : "timeout",
			 x->seconds, last[0] ? ": " : "", last);
		return RT_CAUSE_TIMEOUT;
	}
	if ((sig == SIGKILL && x->oom_killed) || ((sig || code) && x->oom_err[0])) {
		say(why, len, "out of memory: %s",
		    x->oom_err[0] ? x->oom_err : "killed by the kernel's OOM killer");
		return RT_CAUSE_MEMORY;
	}
	if (sig) {
		say(why, len, "killed by signal %d (%s)%s%s", sig, strsignal(sig),
			 last[0] ? ": " : "", last);
		return RT_CAUSE_CRASH;
	}
	if (code) {
		say(why, len, "exit status %d%s%s", code, last[0] ? ": " : "", last);
		return RT_CAUSE_CRASH;
	}
	if (m->nsamples == 0) {
		if (m->bad[0])
			say(why, len, "the metric matched %s, which is not a number", m->bad);
		else
			say(why, len, "no match of the metric after %d warm-up match%s (%d seen)",
				 m->warmup, m->warmup == 1 ? "" : "es", m->matches);
		return RT_CAUSE_BAD_OUTPUT;
	}
	return RT_CAUSE_NONE;
}

int rt_usercmd_measure(rt_usercmd *c, rt_metric *m, rt_measurement *out, char *err,
		       size_t errlen)
{
	static rt_cpu_times before, after; /* large: not on the stack */
	rt_usercmd_exit x;
	memset(out, 0, sizeof *out);
	rt_metric_reset(m);
	c->line = metric_line;
	c->user = m;
	int have_times = rt_cpu_times_read(&before) == 0;
	int rc = rt_usercmd_run(c, &x, err, errlen);
	if (rc)
		return rc;
	out->seconds = x.cost_s;
	out->setup_seconds = m->first_at > 0 ? m->first_at - c->clock0 : 0;
	if (have_times && rt_cpu_times_read(&after) == 0)
		out->contention = rt_contention(&before, &after, &c->cpus, x.seconds, x.cpu_s);
	out->contended = out->contention > rt_contended_share();
	out->cause = outcome(c, &x, m, out->reason, sizeof out->reason);
	if (out->cause != RT_CAUSE_NONE)
		return RT_OK;
	out->samples = malloc(sizeof *out->samples * (size_t)m->nsamples);
	if (!out->samples)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	memcpy(out->samples, m->samples, sizeof *out->samples * (size_t)m->nsamples);
	out->nsamples = m->nsamples;
	out->feasible = 1;
	rt_measurement_summarize(out);
	return RT_OK;
}
