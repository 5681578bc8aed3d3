/*
 * fuzz.h: what the libFuzzer harnesses share. Each fuzz/fuzz_NAME.c defines
 * LLVMFuzzerTestOneInput for one parser of user or disk input; `make fuzz
 * SECONDS=N` builds them with clang (-fsanitize=fuzzer,address,undefined)
 * and runs each for N seconds on its seeds (fuzz/seeds/NAME/).
 */
#ifndef RT_FUZZ_H
#define RT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as a file for parsers that read a path: an anonymous in-memory
 * file, named through /proc/self/fd. Returns its descriptor (close it) and
 * fills path, or -1.
 */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The input as a NUL-terminated string (malloc'd), for parsers of text arguments. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
