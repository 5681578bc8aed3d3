/*
 * commands.c: the table of commands (RT_COMMAND_LIST) and the dispatch on
 * a command's name, its --help and the program's own help and version.
 */
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const rt_command *const commands[] = {
	RT_COMMAND_LIST
};

static void print_help(FILE *f)
{
	fputs("usage: rigtune COMMAND [OPTIONS]\n\n"
	      "Measures synthetic training workloads on every backend of this machine\n"
	      "and recommends batch size, threads, workers and precision.\n\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < RT_COUNT(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nrigtune COMMAND --help shows a command's options.\n"
	      "Exit codes: 0 ok, 1 check found a regression, 2 bad usage or input,\n"
	      "3 failure at run time, 130 tune or watch interrupted (after writing what it has).\n",
	      f);
}

static const rt_command *find_command(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

int rt_cli_main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return RT_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		print_help(stdout);
		return RT_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("rigtune %s\n", RT_VERSION);
		return RT_EXIT_OK;
	}
	const rt_command *c = find_command(name);
	if (!c) {
		rt_errorf("unknown command '%s'", name);
		fputs("Try 'rigtune --help'.\n", stderr);
		return RT_EXIT_USAGE;
	}
	/* up to "--": what follows is a command's own (watch -- python3 train.py --help) */
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(c->usage, stdout);
			if (c->help) {
				fputc('\n', stdout);
				c->help(stdout);
			}
			return RT_EXIT_OK;
		}
	return c->run(argc - 1, argv + 1);
}
