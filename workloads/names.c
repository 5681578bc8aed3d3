/* Names of precisions and pin policies. */
#include <string.h>

#include "workload.h"

const char *const rt_precision_names[RT_NPRECISION] = {
	[RT_FP64] = "fp64", [RT_FP32] = "fp32", [RT_TF32] = "tf32",
	[RT_BF16] = "bf16", [RT_FP16] = "fp16",
};

const char *const rt_pin_names[RT_NPIN] = {
	[RT_PIN_NONE] = "none", [RT_PIN_COMPACT] = "compact",
	[RT_PIN_SPREAD] = "spread", [RT_PIN_PCORES] = "pcores", [RT_PIN_ECORES] = "ecores",
};

static int find_name(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *rt_precision_name(rt_precision p)
{
	return (unsigned)p < RT_NPRECISION ? rt_precision_names[p] : "?";
}

int rt_precision_parse(const char *name)
{
	return find_name(rt_precision_names, RT_NPRECISION, name);
}

rt_dtype rt_precision_dtype(rt_precision p)
{
	return p == RT_FP64 ? RT_F64 : RT_F32;
}

size_t rt_dtype_size(rt_dtype t)
{
	return t == RT_F64 ? sizeof(double) : sizeof(float);
}

const char *rt_pin_name(rt_pin p)
{
	return (unsigned)p < RT_NPIN ? rt_pin_names[p] : "?";
}

int rt_pin_parse(const char *name)
{
	return find_name(rt_pin_names, RT_NPIN, name);
}
