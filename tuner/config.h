/*
 * config.h: the recommendation document (configs/<host>.yaml): written by
 * `rigtune tune` (rt_config_emit) and read by the commands that consume one
 * (exec, env, check, sweep, report: rt_config_load), both here. Its layout:
 * docs/formats/configuration.md.
 *
 * The reader checks the document's schema version and the fields every
 * consumer relies on (per workload: recommended and fastest, each with its
 * point, shape and throughput; reason; env), and keeps the whole document:
 * the machine: section by its own module's reader (rt_machine_read in
 * machine.h, on c->machine), the crossover: by its own (rt_crossover_read in
 * crossover.h, on c->crossover), anything else (hints, runner-ups) with the getters below. Keys it does not know are left alone: a
 * newer rigtune may add some. Every string points into the document and is
 * valid until rt_config_free(); an rt_config must not be copied.
 */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include "../workloads/workload.h"
#include "machine.h"
#include "yamlr.h"

#define RT_CONFIG_SCHEMA 1
#define RT_CONFIG_MAX_KV 32
#define RT_CONFIG_MAX_RECS 16

/* One key: value of a flow mapping such as point: {backend: cpu, ...}. */
typedef struct rt_config_kv {
	const char *key, *value;
	const rt_ynode *node;
} rt_config_kv;

typedef struct rt_config_kvs {
	int n;
	rt_config_kv kv[RT_CONFIG_MAX_KV];
} rt_config_kvs;

/* recommended: / fastest: — where to run, and what it gave. */
typedef struct rt_config_point {
	rt_config_kvs point, shape;
	double median, ci_lo, ci_hi, cv;
	const char *unit;
	const rt_ynode *node;
} rt_config_point;

/* One entry of recommendations: (a workload, or the name of a user's command). */
typedef struct rt_config_rec {
	const char *name;
	const char *none;     /* why there is no recommendation; NULL when there is one */
	rt_config_point recommended, fastest;
	const char *reason;
	rt_config_kvs env;    /* the variables to export, in order */
	/*
	 * tuned: the tune that wrote the entry (a configuration keeps the
	 * entries of earlier tunes): its time, the machine's fingerprint then
	 * and its journal; the document's generated, machine.fingerprint and
	 * search.journal where the entry has no tuned: (one tune wrote it all).
	 */
	const char *tuned_at, *fingerprint, *journal;
	const rt_ynode *node; /* the whole entry: hints, runner_ups, ... */
} rt_config_rec;

typedef struct rt_config {
	rt_yr yr;
	char path[1024];
	int partial;               /* written by an interrupted tune */
	const char *hostname, *fingerprint;
	const rt_ynode *machine;   /* the machine: mapping, as probe prints it */
	const rt_ynode *crossover; /* NULL when not measured */
	const char *crossover_replay; /* crossover.replay: its observations (a replay CSV); NULL */
	const char *journal;       /* search.journal; NULL when absent */
	int nrecs;
	rt_config_rec recs[RT_CONFIG_MAX_RECS];
} rt_config;

/*
 * Reads the document at path into c. RT_EIO when it cannot be read;
 * RT_EINVAL "PATH:LINE:COLUMN: problem" for malformed YAML, a document that
 * is not a rigtune configuration (no `rigtune:` schema key, or a journal),
 * another schema version, or a missing or mistyped field listed above (and
 * crossover.replay, where there is one, that is not a file name).
 * On failure c owns nothing.
 */
int rt_config_load(const char *path, rt_config *c, char *err, size_t errlen);
void rt_config_free(rt_config *c); /* accepts a config that failed to load */

/*
 * Where a file that c names (search.journal, crossover.replay) is: as
 * written (relative to where tune ran, usually here), else, when relative,
 * from the configuration's directory or its parent (configs/../results/...).
 * 1 with its path in out when found; 0 with the last place tried in out.
 */
int rt_config_locate(const rt_config *c, const char *name, char *out, size_t len);

/* The entry called name, NULL if none. */
const rt_config_rec *rt_config_find(const rt_config *c, const char *name);
/* The value of key in kvs, NULL if absent. */
const char *rt_config_kv_get(const rt_config_kvs *kvs, const char *key);

/* configs/<this host>.yaml, where `tune` writes by default. RT_EINVAL if it does not fit. */
int rt_config_default_path(char *buf, size_t len);

/*
 * The point and shape of a built-in workload that p stands for (every key
 * through rt_params_apply, so they are checked as on the command line);
 * RT_EINVAL "PATH:LINE:COLUMN: key: problem" for a key or value the
 * workload does not accept.
 */
int rt_config_point_decode(const rt_config *c, const rt_config_point *p, const rt_workload *w,
			   rt_point *pt, rt_shape *sh, char *err, size_t errlen);

/*
 * The point of a user's command that p stands for (cmdpoint.h); RT_EINVAL
 * "PATH:LINE:COLUMN: point: knob: problem" for a value its knob does not take.
 */
struct rt_cmd_point; /* cmdpoint.h */
int rt_config_command_point(const rt_config *c, const rt_config_point *p,
			    struct rt_cmd_point *pt, char *err, size_t errlen);

/* The scalar at a dotted path from the document's root ("generated", "unavailable"), or NULL. */
const char *rt_config_scalar(const rt_config *c, const char *path);

/*
 * The lines rec tells a framework ("pytorch", "jax") to paste: its
 * hints.FRAMEWORK.lines (a bare list in older configurations), at most max,
 * pointing into c. Returns how many; 0 when there are none.
 */
int rt_config_hints(const rt_config *c, const rt_config_rec *rec, const char *framework,
		    const char **lines, int max);

/*
 * The shape of a built-in workload's entry (its `shape:`, the defaults for
 * keys it leaves out), for an entry with or without a recommendation;
 * RT_EINVAL "PATH:LINE:COLUMN: shape: problem".
 */
int rt_config_entry_shape(const rt_config *c, const rt_config_rec *rec, const rt_workload *w,
			  rt_shape *sh, char *err, size_t errlen);

/*
 * RT_EINVAL with "PATH:LINE:COLUMN: path: message" at the node of the dotted
 * path (search.journal), or "PATH: path: message" where it is not there.
 */
int rt_config_bad(const rt_config *c, const char *path, char *err, size_t errlen,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * The writer: the document of a tune run (tune_run.h; declared here by its
 * struct tags so that a reader of configurations does not include the run) as
 * YAML text (*text malloc'd, *len bytes): per workload the recommended point
 * (the knee), the fastest, runner-ups, what to export and what to tell the
 * framework, and why, in one sentence; the crossover and the search.
 */
struct rt_tune_run;
struct rt_tune_opts;
int rt_config_emit(const struct rt_tune_run *run, const struct rt_tune_opts *o, char **text,
		   size_t *len, char *err, size_t errlen);
/*
 * The same document, keeping what `kept` (the configuration at the output
 * path, loaded with rt_config_load; NULL: none) holds that this run did not
 * tune: every entry of another name, as it was, with its own tuned: (time,
 * fingerprint, journal: the document's where it had none); an entry of the
 * same name is replaced in its place. The crossover: is kept's when this
 * run fitted none. RT_EINVAL when the entries together would be more than
 * RT_CONFIG_MAX_RECS (the reader would refuse the document).
 */
int rt_config_emit_over(const struct rt_tune_run *run, const struct rt_tune_opts *o,
			const rt_config *kept, char **text, size_t *len, char *err, size_t errlen);

#endif
