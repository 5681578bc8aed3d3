/*
 * cli.h: the command-line surface. rt_cli_main (cmd/commands.h) dispatches
 * on the command name through one table; each command parses its own
 * options and returns the process exit status (0 ok, 2 bad usage or input,
 * 3 failure at run time). Here: a command's type, and the help and error
 * messages every command prints the same way.
 */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdarg.h>
#include <stdio.h>

#include "params.h"

#define RT_VERSION "0.1.0"

enum { RT_EXIT_OK = 0, RT_EXIT_USAGE = 2, RT_EXIT_RUNTIME = 3, RT_EXIT_INTERRUPTED = 130 };

typedef struct rt_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *usage; /* full --help text of the command */
	/* Optional: help built from the registries (workloads, strategies), after usage. */
	void (*help)(FILE *f);
} rt_command;

/* For a command's help: every workload, what it reads and its shape keys with defaults. */
void rt_help_workloads(FILE *f);
/* One entry of a help list: "  name       text", text wrapped under itself. */
void rt_help_item(FILE *f, const char *name, const char *text);

/*
 * Prints to a stream people read (a terminal, a shared log): the formatted
 * text through rt_printable, so that a string from a file, the store or
 * another process cannot move the cursor, retitle or clear the terminal, or
 * start a line of its own ("all nodes pass"): only a newline that ends the
 * text stays. Every message with such a string goes through it: rt_errorf,
 * rt_usage_error, the progress, check's table, fleet's answers.
 */
void rt_tprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_vtprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Prints "rigtune: <msg>" to stderr (rt_tprintf); used for every user-facing error. */
void rt_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with the arguments as a va_list (rt_progress_note). */
void rt_verrorf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Prints "rigtune <cmd>: <msg>\nTry 'rigtune <cmd> --help'." and returns 2. */
int rt_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * An -o that rt_output_check refused (rc, err) before cmd started: a
 * usage error (exit 2) for RT_EINVAL, else "rigtune: CMD: err" and its
 * exit code (3), as the write at the end would have failed.
 */
int rt_output_refused(const char *cmd, int rc, const char *err);

/*
 * Splits the comma-separated list of an option of cmd (what: "--shape")
 * into l, at most max items (rt_arglist_split): -1 when it splits, else
 * rt_usage_error's exit code, the message naming the option.
 */
int rt_usage_list(const char *cmd, const char *what, const char *list, int max, rt_arglist *l);

#endif
