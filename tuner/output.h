/*
 * output.h: where results go, without ever destroying what is there.
 *
 * A path is first followed through its symbolic links (chains and relative
 * targets too, each taken from its link's directory) to what they name:
 *   - a regular file, or nothing yet: replaced atomically: a temporary file
 *     in the same directory, fsync, rename; a reader never sees half a file,
 *     a failure or a Ctrl-C leaves the old one intact and no temporary file
 *     behind. The links stay links. A replaced file keeps its permissions, a
 *     new one gets 0666 less the umask; a file the caller may not write (a
 *     read-only one) is refused, as `>` would refuse it.
 *   - a character device, a FIFO or a socket, or a link of /proc that names
 *     an open file (/dev/stdout, /dev/fd/N): written in place, appending (so
 *     `-o /dev/stdout >>log` appends), every error checked (`-o /dev/full` is
 *     ENOSPC; /dev/full stays a device).
 *   - a directory or a block device: RT_EINVAL, nothing written.
 * In a sticky world-writable directory (/tmp), a link, a file or a FIFO of
 * another user (neither ours nor the directory owner's) is never followed,
 * replaced or written: RT_EINVAL, as the kernel's protected_symlinks and
 * protected_regular rules would have it, applied here even where they are
 * off and to the links followed here, which they never see.
 * A path of NULL or "-" means stdout.
 */
#ifndef RT_OUTPUT_H
#define RT_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

/* Writes path as described above: RT_EIO "cannot write PATH: why", RT_EINVAL. */
int rt_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen);
/*
 * Creates path with data, never replacing anything: the data goes to a
 * temporary file beside it (fsync'd) that link() then names path, which
 * fails when anything is there (a file, a link, even a dangling one): then
 * *taken is 1 and nothing is written (RT_OK). A reader never sees half a
 * file. RT_EIO "cannot write PATH: why".
 */
int rt_write_new_file(const char *path, const char *data, size_t len, int *taken, char *err,
		      size_t errlen);
/*
 * Whether rt_output(path) could write, asked before hours of work that end
 * in it (watch, tune, check, sweep): the same refusals as rt_write_file (a
 * directory, a read-only file, another user's link in a shared directory),
 * and a missing or unwritable directory: RT_EIO "cannot write PATH: the
 * directory DIR: why". Nothing is created. RT_OK for NULL and "-".
 */
int rt_output_check(const char *path, char *err, size_t errlen);
/* stdout for NULL or "-", else rt_write_file. */
int rt_output(const char *path, const char *data, size_t len, char *err, size_t errlen);


/*
 * The one way rigtune appends to a file (a journal, the canary's samples, a
 * lock): a descriptor into *fd, O_APPEND and close-on-exec, never following
 * a symbolic link (O_NOFOLLOW: RT_EINVAL "it is a symbolic link"), never
 * blocking on a FIFO. A new file is created 0644 (0666 shared); an existing
 * one is appended to only when it is a regular file with one link and ours:
 * another user's file, a hard link or a device is RT_EINVAL, nothing open.
 * Flags: RT_APPEND_NEW creates only (RT_OK with *fd -1 when anything has
 * the name); RT_APPEND_READ opens it for reading too; RT_APPEND_SHARED
 * leaves the check of an existing file to the caller (a lock every user's
 * rigtune opens: lock.c checks it) and creates it 0666.
 * RT_EIO "cannot write PATH: why".
 */
enum { RT_APPEND_NEW = 1, RT_APPEND_READ = 2, RT_APPEND_SHARED = 4 };
int rt_open_append(const char *path, int flags, int *fd, char *err, size_t errlen);

/*
 * mkdir -p: creates every missing directory of path with mode (less the
 * umask). RT_EIO "cannot create directory PATH: why", RT_ENOMEM.
 */
int rt_make_dirs(const char *path, mode_t mode, char *err, size_t errlen);

#endif
