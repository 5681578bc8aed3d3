/*
 * check_trial.h: one trial of a check's point, and the sides of an A/B
 * check (`check --a SPEC --b SPEC`), inside the check family.
 *
 * A trial is measured as tune measures one, three ways:
 *   - a built-in workload, no side: in a forked child of this process
 *     (rt_measure), with the libraries this process loaded;
 *   - a built-in workload on a side: `rigtune bench` run as a new process
 *     with the side's environment, so that a library path takes effect
 *     (the BLAS is loaded when a process starts), its YAML read back; it
 *     measures under this check's lock (a lock directory of its own);
 *   - a user's command (tune --cmd): the command check was given (--cmd,
 *     or the side's cmd:; never the configuration's text), with the point's
 *     placeholders, environment and binding and the side's environment,
 *     read by the configuration's metric.
 *
 * A side is what its trials run with, from one or more SPECs:
 *   lib:DIR       DIR first in LD_LIBRARY_PATH (another BLAS, cuBLAS, ...);
 *                 a bare DIR means the same
 *   plugins:DIR   RIGTUNE_BACKEND_PATH=DIR (another build of the GPU plugins)
 *   env:K=V,...   these variables
 *   cmd:COMMAND   the user's command instead of the configuration's (another
 *                 Python, another virtual environment)
 *   current       nothing added: this environment as it is
 */
#ifndef RT_CHECK_TRIAL_H
#define RT_CHECK_TRIAL_H

#include "check_baseline.h"
#include "../measure.h"
#include "../machine.h"

/* What one side of an A/B check runs with. */
#define RT_SIDE_MAX_ENV 8
typedef struct rt_check_side {
	char spec[512];	     /* as given, "lib:/opt/openblas; env:X=1" */
	int nenv;
	char env[RT_SIDE_MAX_ENV][1100]; /* "NAME=value" */
	const char *command; /* cmd: the user's command instead of the configuration's */
	int shell;           /* check --shell: sh -c runs command */
} rt_check_side;

/*
 * Adds SPEC (above) to side s. RT_EINVAL "SPEC: problem" for one that is
 * none of these, or a DIR that is not a directory.
 */
int rt_check_side_add(rt_check_side *s, const char *spec, char *err, size_t errlen);

/*
 * One trial of b, on side s (NULL: none), into m (m->feasible may be 0,
 * with its cause and reason; samples higher-is-better, a minimized metric
 * inverted). A side's bench is rigtune (NULL: this program), taking its lock
 * in lockdir. A command's device knob sets the visible-devices variable of
 * here's accelerators. 0, or RT_EINVAL when the command cannot be started,
 * RT_ERUNTIME, RT_ENOMEM.
 */
int rt_check_trial(const rt_base_point *b, const rt_check_side *s, const char *rigtune,
		   const char *lockdir, const rt_machine *here, rt_measurement *m, char *err,
		   size_t errlen);

#endif
