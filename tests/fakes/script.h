/*
 * script.h: a stand-in's settings from its environment variable,
 * "key=value,key=value" (numbers): set() is called for each pair in
 * order, and what it does not know it ignores.
 */
#ifndef RT_FAKE_SCRIPT_H
#define RT_FAKE_SCRIPT_H

#include <stdio.h>
#include <stdlib.h>

static void fake_script(const char *env, void (*set)(const char *key, double value))
{
	const char *s = getenv(env);
	char key[16];
	double v;
	int used;
	while (s && sscanf(s, "%15[a-z]=%lf%n", key, &v, &used) == 2) {
		set(key, v);
		s += used;
		s += *s == ',';
	}
}

#endif
