/*
 * commands.h: the cmd/ family's door: one rt_command (cli.h) per file
 * tuner/cmd/cmd_*.c, listed in RT_COMMAND_LIST, and rt_cli_main, which
 * dispatches on the command's name through that table (commands.c).
 */
#ifndef RT_COMMANDS_H
#define RT_COMMANDS_H

#include "../../common/rt.h"
#include "../cli.h"

/* In the order `rigtune --help` lists them. */
#define RT_COMMAND_LIST \
	&rt_cmd_probe,  \
	&rt_cmd_bench,  \
	&rt_cmd_tune,   \
	&rt_cmd_crossover, \
	&rt_cmd_check,  \
	&rt_cmd_sweep,  \
	&rt_cmd_watch,  \
	&rt_cmd_report, \
	&rt_cmd_exec,   \
	&rt_cmd_env,    \
	&rt_cmd_fleet,  \
	&rt_cmd_store,

extern const rt_command rt_cmd_probe;
extern const rt_command rt_cmd_bench;
extern const rt_command rt_cmd_crossover;
extern const rt_command rt_cmd_tune;
extern const rt_command rt_cmd_exec;
extern const rt_command rt_cmd_env;
extern const rt_command rt_cmd_check;
extern const rt_command rt_cmd_sweep;
extern const rt_command rt_cmd_report;
extern const rt_command rt_cmd_watch;
extern const rt_command rt_cmd_fleet;
extern const rt_command rt_cmd_store;

/*
 * Runs the command argv[1] with its options (its --help when asked), or
 * prints the program's help or version; returns the exit status.
 */
int rt_cli_main(int argc, char **argv);

#endif
