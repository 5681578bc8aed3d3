/* Fleet runs through Slurm: the sbatch job array, its submission, and waiting on it. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet.h"
#include "../cli.h"
#include "../usercmd.h"

extern char **environ;

int rt_fleet_directive_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.,:=[]-&|*!()/", *s)))
			return 0;
	return 1;
}

/* One word, quoted for the shell, after a space. */
static void add_word(FILE *f, const char *w)
{
	size_t len = strlen(w) * 4 + 3;
	char *q = malloc(len);
	if (!q) {
		fputs(" ''", f);
		return;
	}
	rt_shell_quote(w, q, len);
	fprintf(f, " %s", q);
	free(q);
}

/* The #SBATCH line of an option whose value the shell never reads; -1 when it is unsafe. */
static int directive(FILE *f, const char *opt, const char *value, char *err, size_t errlen)
{
	if (!value)
		return 0;
	if (!rt_fleet_directive_ok(value))
		return rt_fail(err, errlen, RT_EINVAL,
			       "%s '%s': only letters, digits and _.,:=[]-&|*!()/ can go into an "
			       "#SBATCH line", opt, value);
	fprintf(f, "#SBATCH %s=%s\n", opt, value);
	return 0;
}

int rt_fleet_script(const rt_fleet_job *job, char **out, char *err, size_t errlen)
{
	size_t len;
	int tune = job->action == RT_FLEET_TUNE;
	const char *what = tune ? "tune" : "check";
	FILE *f = open_memstream(out, &len);
	if (!f)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	fprintf(f, "#!/bin/bash\n# rigtune fleet %s: one task a node, each running rigtune %s "
		   "against the results store.\n", what, what);
	fprintf(f, "#SBATCH --job-name=rigtune-%s\n#SBATCH --array=0-%d\n", what, job->count - 1);
	fputs("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n", f);
	int rc = directive(f, "--partition", job->partition, err, errlen);
	if (!rc)
		rc = directive(f, "--constraint", job->constraint, err, errlen);
	if (!rc)
		rc = directive(f, "--exclude", job->exclude, err, errlen);
	if (!rc)
		rc = directive(f, "--time", job->time_limit, err, errlen);
	/* where the tasks run, for a site that submits the script itself (sbatch gets it too) */
	if (!rc && rt_fleet_directive_ok(job->workdir))
		fprintf(f, "#SBATCH --chdir=%s\n", job->workdir);
	/* the log of each task: results/fleet/, relative to that */
	fprintf(f, "#SBATCH --output=results/fleet/rigtune-%s-%%A_%%a.log\nset -u\ncd", what);
	add_word(f, job->workdir);
	fputs(" || exit 3\nnode=${SLURMD_NODENAME:-$(hostname)}\nmkdir -p configs results\nargs=(",
	      f);
	for (int i = 0; i < job->nargs; i++)
		add_word(f, job->args[i]);
	fputs(" )\nrigtune=(", f);
	add_word(f, job->rigtune);
	fputs(" )\nstore=(--store", f);
	add_word(f, job->store);
	fputs(" --node \"$node\")\n", f);
	if (tune)
		fputs("exec \"${rigtune[@]}\" tune \"${store[@]}\" -o \"configs/$node.yaml\" "
		      "\"${args[@]}\"\n", f);
	else /* a regression is what the store is for: the task itself succeeded */
		fputs("\"${rigtune[@]}\" check \"${store[@]}\" --baseline \"configs/$node.yaml\" "
		      "-o \"results/$node-check-$SLURM_ARRAY_JOB_ID.yaml\" \"${args[@]}\"\n"
		      "rc=$?\n[ \"$rc\" = 1 ] && rc=0\nexit \"$rc\"\n", f);
	if (fclose(f) && !rc)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---------------------------------------------------------------- running Slurm's commands */

/*
 * Runs argv (no shell) with input on its stdin (may be NULL), its stdout
 * into *output (malloc'd); RT_EUNAVAIL with its stderr's first line when it
 * cannot start or exits non-zero.
 */
static int run_tool(char *const argv[], const char *input, char **output, char *err,
		    size_t errlen)
{
	int in[2], outp[2], errp[2];
	*output = NULL;
	if (pipe(in) || pipe(outp) || pipe(errp))
		return rt_fail(err, errlen, RT_EUNAVAIL, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	for (int i = 0; i < 2; i++) {
		posix_spawn_file_actions_addclose(&fa, in[i]);
		posix_spawn_file_actions_addclose(&fa, outp[i]);
		posix_spawn_file_actions_addclose(&fa, errp[i]);
	}
	pid_t pid;
	int serr = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(outp[1]);
	close(errp[1]);
	if (!serr && input)
		(void)!rt_write_all(in[1], input, strlen(input));
	close(in[1]);
	char *o = NULL, *e = NULL;
	size_t olen, elen;
	FILE *of = open_memstream(&o, &olen), *ef = open_memstream(&e, &elen);
	char buf[4096];
	ssize_t k;
	/* Slurm's tools say little on stderr: reading it second cannot block them */
	while (!serr && of && (k = read(outp[0], buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)k, of);
	while (!serr && ef && (k = read(errp[0], buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)k, ef);
	close(outp[0]);
	close(errp[0]);
	if (of)
		fclose(of);
	if (ef)
		fclose(ef);
	int status = 0;
	if (!serr)
		waitpid(pid, &status, 0);
	int rc = RT_OK;
	if (serr)
		rc = rt_fail(err, errlen, RT_EUNAVAIL, "cannot run %s: %s (is Slurm installed?)",
			     argv[0], strerror(serr));
	else if (!o || !e)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		rc = rt_fail(err, errlen, RT_EUNAVAIL, "%s failed: %.*s", argv[0],
			     (int)strcspn(e, "\n"), e);
	free(e);
	if (rc)
		free(o);
	else
		*output = o;
	return rc;
}

/* Whether the comma-separated features ("a100,ib") hold the n bytes at w. */
static int has_feature(const char *features, const char *w, size_t n)
{
	for (const char *p = features; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, w, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* Whether a node with these features has every one of c ("a100&ib"). */
static int has_features(const char *features, const char *c)
{
	for (const char *p = c; *p;) {
		size_t k = strcspn(p, "&");
		if (!has_feature(features, p, k))
			return 0;
		p += k + (p[k] == '&');
	}
	return 1;
}

/*
 * The nodes of the partition (none given: the default one, marked '*' by
 * sinfo) with the features of job->constraint, each once, one a line.
 */
static int partition_nodes(const rt_fleet_job *job, char **names, char *err, size_t errlen)
{
	const char *c = job->constraint;
	if (c && strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.&") !=
			 strlen(c))
		return rt_fail(err, errlen, RT_EINVAL,
			       "--constraint '%s': rigtune counts the nodes of features joined with &; "
			       "name the nodes of another expression with --nodes", c);
	char *argv[] = {"sinfo", "-h", "-N", "-o", "%N %f %P", NULL, NULL, NULL}, *out = NULL;
	if (job->partition) {
		argv[5] = "-p";
		argv[6] = (char *)job->partition;
	}
	int rc = run_tool(argv, NULL, &out, err, errlen);
	size_t len;
	FILE *f = rc ? NULL : open_memstream(names, &len);
	if (!rc && !f)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	if (!rc)
		fputc('\n', f); /* "\na\nb\n": each name between newlines, to find it */
	for (char *line = out, *next; !rc && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char name[256], features[1024], part[256], key[260];
		if (sscanf(line, "%255s %1023s %255s", name, features, part) != 3)
			continue;
		if (!job->partition && part[strlen(part) - 1] != '*')
			continue;
		snprintf(key, sizeof key, "\n%s\n", name);
		fflush(f);
		if ((!c || has_features(features, c)) && !strstr(*names, key))
			fprintf(f, "%s\n", name);
	}
	if (f && fclose(f) && !rc)
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	free(out);
	if (!rc)
		memmove(*names, *names + 1, strlen(*names)); /* the first newline */
	return rc;
}

/* The lines of s: one node name each. */
static int count_lines(const char *s)
{
	int n = 0;
	for (const char *p = s; *p; p++)
		n += *p == '\n' || !p[1];
	return n;
}

int rt_fleet_count_nodes(rt_fleet_job *job, char **exclude, char *err, size_t errlen)
{
	char *names = NULL, *all = NULL;
	*exclude = NULL;
	int rc;
	if (job->nodes) {
		char *argv[] = {"scontrol", "show", "hostnames", (char *)job->nodes, NULL};
		rc = run_tool(argv, NULL, &names, err, errlen);
	} else {
		rc = partition_nodes(job, &names, err, errlen);
	}
	if (!rc)
		job->count = count_lines(names);
	if (!rc && !job->count)
		rc = rt_fail(err, errlen, RT_EINVAL, "%s%s%s names no node",
			     job->nodes ? job->nodes : job->partition ? job->partition
								 : "the default partition",
			     job->constraint ? " with " : "", job->constraint ? job->constraint : "");
	/* a node list: the array may go to those nodes only, so exclude the others */
	if (!rc && job->nodes) {
		char *argv[] = {"sinfo", "-h", "-N", "-o", "%N", NULL};
		rc = run_tool(argv, NULL, &all, err, errlen);
		/* the nodes not listed, each once (sinfo -N repeats one per partition) */
		char *listed = NULL, *ex = NULL;
		size_t exlen = 0;
		FILE *f = rc ? NULL : open_memstream(&ex, &exlen);
		if (!rc && (!f || asprintf(&listed, "\n%s\n", names) < 0))
			rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		if (!rc)
			fputc(',', f); /* ",a,b,": each name between commas */
		for (char *line = all, *next; !rc && line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			char key[260], item[260];
			snprintf(key, sizeof key, "\n%s\n", line);
			snprintf(item, sizeof item, ",%s,", line);
			fflush(f);
			if (!strstr(listed, key) && !strstr(ex, item))
				fprintf(f, "%s,", line);
		}
		if (f)
			fclose(f);
		free(listed);
		if (!rc && ex && strlen(ex) > 1) {
			ex[strlen(ex) - 1] = '\0';
			memmove(ex, ex + 1, strlen(ex)); /* without the commas around */
			*exclude = ex;
		} else {
			free(ex);
		}
	}
	free(names);
	free(all);
	return rc;
}

/* ---------------------------------------------------------------- waiting */

/* The value of KEY= in one line of `scontrol -o show job`, into buf. */
static void field(const char *line, const char *key, char *buf, size_t len)
{
	char k[64];
	snprintf(k, sizeof k, " %s=", key);
	const char *p = strstr(line, k);
	buf[0] = '\0';
	if (p) {
		p += strlen(k);
		snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
	}
}

typedef struct tally {
	int done, running, pending, failed;
} tally;

/* How many tasks "3" or "2-5" or "0-9%2" stands for. */
static int tasks_in(const char *ids)
{
	int a, b, n = 0;
	for (const char *p = ids; *p;) {
		if (sscanf(p, "%d-%d", &a, &b) == 2)
			n += b - a + 1;
		else if (sscanf(p, "%d", &a) == 1)
			n++;
		p += strcspn(p, ",");
		if (*p)
			p++;
	}
	return n;
}

/*
 * The tasks' states from scontrol's lines; each task that failed since the
 * last look is told once (seen: which were told), with its node, state,
 * exit code and log.
 */
static void count_tasks(const char *out, tally *t, char *seen, int count, char *ran,
			size_t ranlen, int quiet)
{
	*t = (tally){0};
	ran[0] = '\0';
	for (const char *line = out; line && *line;) {
		/* " " first: every key, the line's first too, follows a space */
		char l[4096], id[64], state[32], node[128], code[16], reason[128], log[512];
		size_t k = strcspn(line, "\n");
		snprintf(l, sizeof l, " %.*s", (int)k, line);
		line = line[k] ? line + k + 1 : NULL;
		field(l, "ArrayTaskId", id, sizeof id);
		field(l, "JobState", state, sizeof state);
		field(l, "NodeList", node, sizeof node);
		field(l, "ExitCode", code, sizeof code);
		field(l, "Reason", reason, sizeof reason);
		field(l, "StdOut", log, sizeof log);
		if (!id[0])
			continue;
		int n = tasks_in(id);
		if (!strcmp(state, "PENDING")) {
			t->pending += n;
		} else if (!strcmp(state, "RUNNING") || !strcmp(state, "CONFIGURING") ||
			   !strcmp(state, "COMPLETING")) {
			t->running += n;
		} else if (!strcmp(state, "COMPLETED")) {
			t->done += n;
		} else {
			t->failed += n;
			int i = atoi(id);
			if (i >= 0 && i < count && !seen[i] && !quiet)
				rt_errorf("fleet: task %s on %s failed: %s, exit %s%s%s (log %s)", id,
					  node[0] && strcmp(node, "(null)") ? node : "no node", state,
					  code, strcmp(reason, "None") ? ", " : "",
					  strcmp(reason, "None") ? reason : "", log);
			if (i >= 0 && i < count)
				seen[i] = 1;
		}
		if (node[0] && strcmp(node, "(null)") && strlen(ran) + strlen(node) + 2 < ranlen) {
			strcat(ran, node);
			strcat(ran, "\n");
		}
	}
}

/* The nodes of names (one a line) on which no task ran, comma-separated, into missing. */
static void not_covered(const char *names, const char *ran, char *missing, size_t len)
{
	size_t n = 0;
	missing[0] = '\0';
	for (const char *p = names; *p && n < len;) {
		size_t k = strcspn(p, "\n");
		char node[256];
		snprintf(node, sizeof node, "%.*s", (int)k, p);
		char key[260];
		snprintf(key, sizeof key, "%s\n", node);
		int found = 0;
		for (const char *r = ran; (r = strstr(r, key)); r++)
			if (r == ran || r[-1] == '\n') {
				found = 1;
				break;
			}
		if (!found)
			n += (size_t)snprintf(missing + n, len - n, "%s%s", n ? "," : "", node);
		p += k;
		if (*p)
			p++;
	}
}

/* The signal that ended fleet's wait for its job; 0 while none came. */
static volatile sig_atomic_t stopped_by;

static void on_stop(int sig)
{
	stopped_by = sig;
}

/* The signals that end rigtune (a closed terminal, Ctrl-C, Ctrl-backslash, kill) caught, or put back. */
static void catch_stops(int on, struct sigaction old[4])
{
	static const int ending[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
	struct sigaction sa = {0};
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART; /* a tool's output is read whole; the wait's sleep ends */
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(ending[i], on ? &sa : &old[i], on ? &old[i] : NULL);
}

/*
 * A signal came while fleet waited: the job's tasks are rigtune's to end as
 * well, so it is cancelled (scancel sends its tasks SIGTERM: each rigtune
 * stops its trial and writes what it found). RT_ERUNTIME saying so.
 */
static int cancel(const char *jobid, char *err, size_t errlen)
{
	char *out = NULL, why[256] = "";
	char *sc[] = {"scancel", (char *)jobid, NULL};
	int rc = run_tool(sc, NULL, &out, why, sizeof why);
	free(out);
	return rt_fail(err, errlen, RT_ERUNTIME, "stopped by %s: job %s %s", strsignal(stopped_by),
		       jobid, rc ? why : "cancelled (scancel)");
}

/* Submits script and waits for its tasks (rt_fleet_submit_wait, without the signals). */
static int wait_job(const rt_fleet_job *job, const char *script, int quiet, int *failed,
		    char *missing, size_t len, char *err, size_t errlen)
{
	char *out = NULL, chdir_opt[1100];
	snprintf(chdir_opt, sizeof chdir_opt, "--chdir=%s", job->workdir);
	char *sb[] = {"sbatch", "--parsable", chdir_opt, NULL};
	int rc = run_tool(sb, script, &out, err, errlen);
	if (rc)
		return rc;
	char jobid[64];
	snprintf(jobid, sizeof jobid, "%.*s", (int)strcspn(out, ";\n"), out);
	free(out);
	if (!quiet)
		rt_tprintf(stderr, "rigtune: fleet: job %s, %d task%s\n", jobid, job->count,
			job->count == 1 ? "" : "s");
	char *seen = calloc((size_t)job->count, 1), ran[8192];
	tally t = {0}, last = {-1, -1, -1, -1};
	if (!seen)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	for (;;) {
		if (stopped_by) {
			rc = cancel(jobid, err, errlen);
			break;
		}
		char *sc[] = {"scontrol", "-o", "show", "job", jobid, NULL};
		rc = run_tool(sc, NULL, &out, err, errlen);
		if (rc)
			break;
		count_tasks(out, &t, seen, job->count, ran, sizeof ran, quiet);
		free(out);
		if (memcmp(&t, &last, sizeof t) && !quiet)
			rt_tprintf(stderr, "rigtune: fleet: %d done, %d running, %d pending, %d failed\n",
				t.done, t.running, t.pending, t.failed);
		last = t;
		if (t.done + t.failed >= job->count && !t.running && !t.pending)
			break;
		usleep(1000000);
	}
	free(seen);
	*failed = t.failed;
	if (missing && len)
		missing[0] = '\0';
	if (!rc && missing && job->nodes) {
		char *names = NULL;
		char *argv[] = {"scontrol", "show", "hostnames", (char *)job->nodes, NULL};
		if (run_tool(argv, NULL, &names, err, errlen) == RT_OK)
			not_covered(names, ran, missing, len);
		free(names);
	}
	return rc;
}

int rt_fleet_submit_wait(const rt_fleet_job *job, const char *script, int quiet, int *failed,
			 char *missing, size_t len, char *err, size_t errlen)
{
	struct sigaction old[4];
	stopped_by = 0;
	catch_stops(1, old);
	int rc = wait_job(job, script, quiet, failed, missing, len, err, errlen);
	catch_stops(0, old);
	return rc;
}
