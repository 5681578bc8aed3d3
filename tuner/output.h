/*
 * output.h: where results go, without ever destroying what is there.
 *
 * A regular file (or a path that does not exist yet) is replaced atomically:
 * a temporary file in the same directory, fsync, rename; a reader never sees
 * half a file, a failure or a Ctrl-C leaves the old one intact and no
 * temporary file behind. A symbolic link is followed to the file it names
 * (chains and relative targets too), which is replaced the same way: the link
 * stays a link. A device, FIFO or socket is written in place, with every
 * error checked (`-o /dev/full` is ENOSPC, and /dev/full stays a device). A
 * directory is RT_EINVAL. A path of NULL or "-" means stdout.
 */
#ifndef RT_OUTPUT_H
#define RT_OUTPUT_H

#include <stddef.h>

/* Writes path as described above: RT_EIO "cannot write PATH: why", RT_EINVAL. */
int rt_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* stdout for NULL or "-", else rt_write_file. */
int rt_output(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
