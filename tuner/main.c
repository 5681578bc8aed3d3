/* rigtune: entry point. The command table lives in tuner/cli.c. */
#include "cli.h"

int main(int argc, char **argv)
{
	return rt_cli_main(argc, argv);
}
