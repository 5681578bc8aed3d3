/*
 * output.h: where results go. A path of NULL or "-" means stdout; a file is
 * replaced atomically (temporary file in the same directory, fsync, rename),
 * so a reader never sees half a file and a failure leaves the old one intact.
 */
#ifndef RT_OUTPUT_H
#define RT_OUTPUT_H

#include <stddef.h>

int rt_write_atomic(const char *path, const char *data, size_t len, char *err,
		    size_t errlen);
/* stdout for NULL or "-", else rt_write_atomic. */
int rt_output(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
