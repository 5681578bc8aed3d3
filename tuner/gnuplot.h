/*
 * gnuplot.h: running gnuplot, which draws rigtune's charts (`crossover
 * --plot`, `report`). It is a dependency of those two features only:
 * rt_gnuplot_find() says whether it is installed, and the caller says what
 * to do without it.
 *
 * gnuplot always runs with -d (--default-settings): a user's ~/.gnuplot
 * does not restyle the charts.
 */
#ifndef RT_GNUPLOT_H
#define RT_GNUPLOT_H

#include <stddef.h>

/* The gnuplot executable on PATH into path (len bytes): 1 when found, else 0. */
int rt_gnuplot_find(char *path, size_t len);

/*
 * Runs gnuplot exe on a script file that writes its own output (`set
 * output`); gnuplot's messages go to stderr. RT_ERUNTIME when it cannot be
 * started or fails.
 */
int rt_gnuplot_run_file(const char *exe, const char *script_path, char *err, size_t errlen);

/*
 * Runs gnuplot exe on the script (len bytes) and returns what it wrote on
 * its standard output in *out (malloc'd, NUL-terminated, *outlen bytes
 * before the NUL). Its input and outputs are anonymous memory files: nothing
 * is written to disk and a large output cannot stall on a pipe. RT_ERUNTIME
 * with gnuplot's last message when it fails or writes nothing, RT_EIO or
 * RT_ENOMEM; *out is set only on success.
 */
int rt_gnuplot_run(const char *exe, const char *script, size_t len, char **out, size_t *outlen,
                   char *err, size_t errlen);

#endif
