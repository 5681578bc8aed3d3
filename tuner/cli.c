#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/workload.h"
#include "../workloads/knobs.h"

void rt_vtprintf(FILE *f, const char *fmt, va_list ap)
{
	char *text;
	if (vasprintf(&text, fmt, ap) < 0)
		return;
	/* a newline inside could forge a line of rigtune's: only the last one is rigtune's */
	size_t len = strlen(text);
	int newline = len && text[len - 1] == '\n';
	if (newline)
		text[len - 1] = '\0';
	char *clean = malloc(len + 1); /* cleaning never lengthens a text */
	if (clean) {
		rt_printable(clean, len + 1, text);
		fputs(clean, f);
		if (newline)
			fputc('\n', f);
	}
	free(clean);
	free(text);
}

void rt_tprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_vtprintf(f, fmt, ap);
	va_end(ap);
}

void rt_verrorf(const char *fmt, va_list ap)
{
	fputs("rigtune: ", stderr);
	rt_vtprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rt_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_verrorf(fmt, ap);
	va_end(ap);
}

int rt_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "rigtune %s: ", cmd);
	rt_vtprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'rigtune %s --help'.\n", cmd);
	va_end(ap);
	return RT_EXIT_USAGE;
}

int rt_output_refused(const char *cmd, int rc, const char *err)
{
	if (rc == RT_EINVAL)
		return rt_usage_error(cmd, "%s", err);
	rt_errorf("%s: %s (nothing was started)", cmd, err);
	return rt_exit_code(rc);
}

int rt_usage_list(const char *cmd, const char *what, const char *list, int max, rt_arglist *l)
{
	char err[RT_ERRLEN];
	return rt_arglist_split(list, what, max, l, err, sizeof err) ? rt_usage_error(cmd, "%s", err)
								     : -1;
}

#define HELP_WIDTH 79
#define HELP_INDENT 15

/* Appends word to the help line of *col columns, breaking it before HELP_WIDTH. */
static void help_word(FILE *f, const char *word, int len, int *col)
{
	if (*col + 1 + len > HELP_WIDTH && *col > HELP_INDENT) {
		fprintf(f, "\n%*s", HELP_INDENT, "");
		*col = HELP_INDENT;
	}
	*col += fprintf(f, "%s%.*s", *col > HELP_INDENT ? " " : "", len, word);
}

/* text as words wrapped under column HELP_INDENT, from column col. */
static void help_text(FILE *f, const char *text, int col)
{
	while (*text) {
		int len = (int)strcspn(text, " ");
		help_word(f, text, len, &col);
		text += len;
		text += strspn(text, " ");
	}
}

void rt_help_item(FILE *f, const char *name, const char *text)
{
	int col = fprintf(f, "  %-*s ", HELP_INDENT - 3, name);
	help_text(f, text, col);
	fputc('\n', f);
}

void rt_help_workloads(FILE *f)
{
	int count;
	const rt_workload *const *all = rt_workload_list(&count);
	fputs("Workloads:\n", f);
	for (int i = 0; i < count; i++) {
		const rt_workload *w = all[i];
		char kv[64], reads[160] = "reads";
		int col = HELP_INDENT;
		rt_help_item(f, w->name, w->summary);
		fprintf(f, "%*s", HELP_INDENT, "");
		for (int k = 0; k < RT_NKNOBS; k++)
			if (rt_workload_reads(w, &rt_knobs[k]))
				rt_list_append(reads, sizeof reads, " ", rt_knobs[k].name);
		rt_list_append(reads, sizeof reads, "", ";");
		help_text(f, reads, col);
		col = HELP_WIDTH; /* the shape keys on their own line */
		help_word(f, "shape keys:", 11, &col);
		for (int k = 0; k < w->nkeys; k++) {
			int n = snprintf(kv, sizeof kv, "%s=%ld", w->keys[k].name, w->keys[k].def);
			help_word(f, kv, n, &col);
		}
		fputc('\n', f);
	}
}
