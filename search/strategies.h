/*
 * strategies.h: the search strategies, one line each, in the order `tune
 * --help` lists them (the default first). RT_STRATEGY(NAME) stands for
 * `const rt_strategy rt_strategy_NAME`, defined in search/strategy_NAME.c.
 * Included by strategies.c with RT_STRATEGY defined; no include guard on
 * purpose.
 */
RT_STRATEGY(model)
RT_STRATEGY(grid)
RT_STRATEGY(random)
RT_STRATEGY(halving)
