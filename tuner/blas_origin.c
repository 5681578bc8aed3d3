/* blas_origin.c: a BLAS library's name and provenance from its path (blas_origin.h). */
#include "blas_origin.h"

#include <string.h>

#include "../common/rt.h"

/* Which BLAS a file is, by a part of its path (Accelerate's: vecLib's libBLAS in its framework). */
static const struct {
	const char *part;
	const char *library;
} libraries[] = {
	{"openblas", "OpenBLAS"},
	{"/Accelerate.framework/", "Accelerate"},
	{"/vecLib.framework/", "Accelerate"},
};

/*
 * Who put it there, by where its path starts: Homebrew's prefix on Apple
 * Silicon, its opt/ links and Cellar on Intel Macs (where /usr/local/lib
 * may as well be anyone's), Linuxbrew's; Apple's frameworks.
 */
static const struct {
	const char *prefix;
	const char *from;
} places[] = {
	{"/opt/homebrew/", "Homebrew"},
	{"/usr/local/opt/", "Homebrew"},
	{"/usr/local/Cellar/", "Homebrew"},
	{"/home/linuxbrew/.linuxbrew/", "Homebrew"},
	{"/System/Library/Frameworks/", "macOS"},
};

rt_blas_origin rt_blas_origin_of(const char *path)
{
	rt_blas_origin o = {NULL, NULL};
	for (size_t i = 0; path && !o.library && i < RT_COUNT(libraries); i++)
		if (strstr(path, libraries[i].part))
			o.library = libraries[i].library;
	for (size_t i = 0; path && !o.from && i < RT_COUNT(places); i++)
		if (!strncmp(path, places[i].prefix, strlen(places[i].prefix)))
			o.from = places[i].from;
	return o;
}
