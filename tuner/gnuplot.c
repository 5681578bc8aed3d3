#include "gnuplot.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/platform.h"
#include "../common/rt.h"

extern char **environ;

int rt_gnuplot_find(char *path, size_t len)
{
	const char *p = getenv("PATH");
	if (!p)
		return 0;
	while (*p) {
		size_t dl = strcspn(p, ":");
		/* An empty PATH entry means the current directory. */
		snprintf(path, len, "%.*s/gnuplot", dl ? (int)dl : 1, dl ? p : ".");
		if (access(path, X_OK) == 0)
			return 1;
		p += dl + (p[dl] == ':');
	}
	return 0;
}

/*
 * Starts exe with argv, its standard streams on fds[0..2] (NULL: inherited),
 * and waits for it. RT_ERUNTIME when it cannot start or does not exit 0.
 */
static int spawn_wait(const char *exe, char *const argv[], const int *fds, char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa))
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory starting gnuplot");
	int rc = 0;
	for (int i = 0; fds && i < 3 && !rc; i++)
		rc = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
	pid_t pid;
	if (!rc)
		rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return rt_fail(err, errlen, RT_ERUNTIME, "cannot run %s: %s", exe, strerror(rc));
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rt_fail(err, errlen, RT_ERUNTIME, "waiting for gnuplot: %s",
			               strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return rt_fail(err, errlen, RT_ERUNTIME, "gnuplot failed (%s %d)",
		               WIFEXITED(status) ? "exit status" : "signal",
		               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return RT_OK;
}

void rt_gnuplot_quote(FILE *f, const char *s, int tic)
{
	if (!*s) {
		fputs("''", f);
		return;
	}
	/* 'piece'."'".'piece': gnuplot 5.4 misreads '' right after an opening quote */
	for (int first = 1; *s; first = 0) {
		size_t n = strcspn(s, "'");
		fputs(first ? "" : ".", f);
		if (n) {
			fputc('\'', f);
			for (size_t i = 0; i < n; i++) {
				if (tic && s[i] == '%')
					fputc('%', f);
				fputc(s[i] == '\n' || s[i] == '\r' ? ' ' : s[i], f);
			}
			fputs(s[n] ? "'.\"'\"" : "'", f);
		} else {
			fputs("\"'\"", f);
		}
		s += n + (s[n] == '\'');
	}
}

/* The whole content of fd (from its start) into a new NUL-terminated buffer. */
static int slurp(int fd, char **out, size_t *outlen)
{
	struct stat st;
	if (fstat(fd, &st))
		return RT_EIO;
	size_t n = (size_t)st.st_size;
	char *buf = malloc(n + 1);
	if (!buf)
		return RT_ENOMEM;
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return RT_EIO;
		}
		got += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return RT_OK;
}

/* gnuplot's last non-blank line of stderr (where it names the problem), trimmed. */
static void last_message(int fd, char *buf, size_t len)
{
	char *text;
	size_t n;
	buf[0] = '\0';
	if (slurp(fd, &text, &n))
		return;
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	char *line = strrchr(text, '\n');
	line = line ? line + 1 : text;
	line += strspn(line, " ");
	snprintf(buf, len, "%s", line);
	free(text);
}

int rt_gnuplot_run(const char *exe, const char *script, size_t len, char **out, size_t *outlen,
                   char *err, size_t errlen)
{
	int fds[3] = {-1, -1, -1}, rc = RT_OK;
	static const char *const names[3] = {"rigtune-chart-in", "rigtune-chart-out",
	                                     "rigtune-chart-err"};
	for (int i = 0; i < 3 && rc == RT_OK; i++)
		if ((fds[i] = rt_plat_memfile(names[i])) < 0)
			rc = rt_fail(err, errlen, RT_EIO, "cannot make a file in memory: %s",
			             strerror(errno));
	if (rc == RT_OK && (rt_write_all(fds[0], script, len) || lseek(fds[0], 0, SEEK_SET)))
		rc = rt_fail(err, errlen, RT_EIO, "cannot pass the script to gnuplot: %s",
		             strerror(errno));
	char *argv[] = {(char *)"gnuplot", (char *)"-d", NULL};
	char why[256], said[256];
	if (rc == RT_OK && (rc = spawn_wait(exe, argv, fds, why, sizeof why))) {
		last_message(fds[2], said, sizeof said);
		rt_fail(err, errlen, rc, "%s%s%s", why, said[0] ? ": " : "", said);
	}
	if (rc == RT_OK && (rc = slurp(fds[1], out, outlen)))
		rt_fail(err, errlen, rc, "cannot read gnuplot's output");
	if (rc == RT_OK && *outlen == 0) {
		free(*out);
		last_message(fds[2], said, sizeof said);
		rc = rt_fail(err, errlen, RT_ERUNTIME, "gnuplot drew nothing%s%s",
		             said[0] ? ": " : "", said);
	}
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}
