/*
 * strategies.c: the table of search strategies (strategies.h lists them),
 * looked up by name. A file of its own, above every strategy: the strategies
 * use the result (strategy.c), the table uses the strategies.
 */
#include <string.h>

#include "../common/rt.h"
#include "strategy.h"

#define RT_STRATEGY(name) extern const rt_strategy rt_strategy_##name;
#include "strategies.h"
#undef RT_STRATEGY

static const rt_strategy *const strategies[] = {
#define RT_STRATEGY(name) &rt_strategy_##name,
#include "strategies.h"
#undef RT_STRATEGY
};

const rt_strategy *const *rt_strategy_list(int *count)
{
	*count = (int)RT_COUNT(strategies);
	return strategies;
}

const rt_strategy *rt_strategy_find(const char *name)
{
	for (size_t i = 0; i < RT_COUNT(strategies); i++)
		if (strcmp(strategies[i]->name, name) == 0)
			return strategies[i];
	return NULL;
}
