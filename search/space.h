/*
 * space.h: a search space of named parameters, and points in it.
 *
 * A parameter is categorical (unordered strings: backend, precision, pin),
 * ordinal (a sorted list of distinct integers: batch 8,16,...,1024) or an
 * integer range (lo..hi by step: threads 1..N). A point is an array of value
 * indices, one per parameter, in the order the parameters were added; for an
 * ordinal or range parameter a larger index is a larger value.
 *
 * A parameter may carry a role that tells the strategies how throughput is
 * expected to vary along it (they know nothing else of the workload):
 *   RT_ROLE_SATURATING  rises and levels off as the value grows, and the
 *                       memory it needs grows too: if a value is infeasible,
 *                       every larger value with the other knobs unchanged is
 *                       infeasible as well (batch size);
 *   RT_ROLE_PEAKED      one peak somewhere in the range (Amdahl's law plus
 *                       an oversubscription penalty: threads, workers).
 *
 * The feasibility callback (constraints: threads + workers <= usable cores,
 * a memory cap, the precisions a backend offers) returns nonzero for a point
 * that may run; strategies never evaluate a point it rejects.
 *
 * The space owns copies of every name and value. Grids are limited to
 * RT_SPACE_MAX_GRID points so that enumerating one is always affordable.
 */
#ifndef RT_SPACE_H
#define RT_SPACE_H

#include <stddef.h>
#include <stdint.h>

#define RT_SPACE_MAX_PARAMS 16
#define RT_SPACE_MAX_GRID 10000000ULL

typedef enum rt_param_kind {
	RT_PARAM_CATEGORICAL,
	RT_PARAM_ORDINAL,
	RT_PARAM_RANGE,
} rt_param_kind;

typedef enum rt_param_role {
	RT_ROLE_NONE = 0,
	RT_ROLE_SATURATING,
	RT_ROLE_PEAKED,
} rt_param_role;

typedef struct rt_space rt_space;

/* Nonzero when the point idx may run. */
typedef int (*rt_feasible_fn)(const rt_space *s, const int *idx, void *user);

rt_space *rt_space_create(void);
void rt_space_destroy(rt_space *s);

/*
 * Adders: each appends one parameter and returns its index (>= 0), or
 * RT_EINVAL for a duplicate or empty name, no values, duplicate values,
 * step <= 0, lo > hi, too many parameters or a grid above
 * RT_SPACE_MAX_GRID; RT_ENOMEM. Ordinal values are sorted here.
 */
int rt_space_add_categorical(rt_space *s, const char *name, const char *const *values,
			     int n, char *err, size_t errlen);
int rt_space_add_ordinal(rt_space *s, const char *name, const long *values, int n,
			 char *err, size_t errlen);
int rt_space_add_range(rt_space *s, const char *name, long lo, long hi, long step,
		       char *err, size_t errlen);

void rt_space_set_role(rt_space *s, int p, rt_param_role role);
/*
 * Replaces the values of categorical parameter p (n of them, none twice),
 * keeping its name, place and role: a space fitted to the machine after it
 * was read. 0, or RT_EINVAL / RT_ENOMEM with the reason (s unchanged).
 */
int rt_space_set_categorical(rt_space *s, int p, const char *const *values, int n, char *err,
			     size_t errlen);
/*
 * Appends value to ordinal parameter p, above all its values (the tune
 * grows a saturating batch past the space's top): every point of the space
 * keeps its index. 0, or RT_EINVAL (value not above the largest, the grid
 * would exceed RT_SPACE_MAX_GRID) / RT_ENOMEM with the reason (s unchanged).
 */
int rt_space_extend_ordinal(rt_space *s, int p, long value, char *err, size_t errlen);
void rt_space_set_feasible(rt_space *s, rt_feasible_fn fn, void *user);

int rt_space_nparams(const rt_space *s);
/* Index of the parameter called name, -1 if none. */
int rt_space_find(const rt_space *s, const char *name);
const char *rt_space_name(const rt_space *s, int p);
rt_param_kind rt_space_kind(const rt_space *s, int p);
rt_param_role rt_space_role(const rt_space *s, int p);
/* Whether parameter p has numbers for values (ordinal or range). */
int rt_space_numeric(const rt_space *s, int p);
/* Number of values of parameter p. */
int rt_space_size(const rt_space *s, int p);

/* Value vi of a numeric parameter (ordinal or range); vi for a categorical one. */
long rt_space_int_at(const rt_space *s, int p, int vi);
/* Value vi of a categorical parameter; NULL for a numeric one. */
const char *rt_space_str_at(const rt_space *s, int p, int vi);
/*
 * The number at point idx of the numeric parameter called name (the knee's
 * batch of a trial) into *out. RT_EINVAL when there is no such parameter or
 * it is categorical.
 */
int rt_space_value_int(const rt_space *s, const int *idx, const char *name, long *out);

/*
 * Writes "backend=cpu batch=64 threads=2" (parameters in order) into buf,
 * truncating like snprintf; returns the length it needed.
 */
int rt_space_format(const rt_space *s, const int *idx, char *buf, size_t len);

/* Points in the grid (product of the sizes; 1 for a space without parameters). */
uint64_t rt_space_grid_size(const rt_space *s);
/* The grid position of a point (mixed radix, last parameter fastest) and back. */
uint64_t rt_space_rank(const rt_space *s, const int *idx);
void rt_space_unrank(const rt_space *s, uint64_t rank, int *idx);

/*
 * Enumeration: rt_space_first sets idx to the first grid point;
 * rt_space_next advances it and returns 0 once it wraps past the last.
 *	for (rt_space_first(s, idx); ok; ok = rt_space_next(s, idx)) ...
 */
void rt_space_first(const rt_space *s, int *idx);
int rt_space_next(const rt_space *s, int *idx);

/* Nonzero when idx is inside the grid and the feasibility callback accepts it. */
int rt_space_feasible(const rt_space *s, const int *idx);
/* Number of feasible points (enumerates the grid). */
uint64_t rt_space_count_feasible(const rt_space *s);

#endif
