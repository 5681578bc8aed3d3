/*
 * tune --cmd / sweep --cmd command templates: split without a shell and with
 * one, their placeholder names, and the argv at a point that gives every
 * placeholder a value, formatted back into one line.
 */
#include <stdlib.h>

#include "../tuner/usercmd.h"
#include "fuzz.h"

#define MAX_NAMES 16

static void expand_all(const rt_cmd_template *t)
{
	char names[MAX_NAMES][RT_KNOB_NAMELEN], err[512], line[4096];
	int n = rt_cmd_template_names(t, names, MAX_NAMES);
	rt_knob_value kv[MAX_NAMES];
	for (int i = 0; i < n && i < MAX_NAMES; i++)
		kv[i] = (rt_knob_value){names[i], "1 {x} '\""};
	char **argv = NULL;
	if (rt_cmd_template_expand(t, kv, n < MAX_NAMES ? n : MAX_NAMES, &argv, err, sizeof err) == 0)
		rt_argv_format(argv, line, sizeof line);
	rt_argv_free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	if (!text)
		return 0;
	for (int shell = 0; shell <= 1; shell++) {
		rt_cmd_template t = {0};
		char err[512];
		if (rt_cmd_template_parse(text, shell, &t, err, sizeof err) == 0)
			expand_all(&t);
		rt_cmd_template_free(&t);
	}
	free(text);
	return 0;
}
