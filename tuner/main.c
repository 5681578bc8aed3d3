/* rigtune: entry point. The command table lives in tuner/cmd/commands.c. */
#include "../workloads/cpu_backend.h"
#include "cmd/commands.h"

int main(int argc, char **argv)
{
	rt_cpu_blas_prepare(argv); /* may re-execute this program once: see there */
	return rt_cli_main(argc, argv);
}
