/* plugin_dir.h: the absolute directory of the test plugins, for the tests that load them. */
#ifndef RT_TEST_PLUGIN_DIR_H
#define RT_TEST_PLUGIN_DIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* $BUILD_DIR/tests/plugins (else build/...), made absolute: the loader takes absolute ones only. */
static inline void test_plugin_dir(char *buf, size_t len)
{
	const char *build = getenv("BUILD_DIR");
	char cwd[512] = "";
	if ((!build || build[0] != '/') && !getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	snprintf(buf, len, "%s%s%s/tests/plugins", cwd, *cwd ? "/" : "",
		 build && *build ? build : "build");
}

#endif
