/*
 * sweep_impl.h: what the sweep formats (sweep_formats.c, sweep_script.c)
 * share: writing values in the syntax the engines read, and the comment
 * block that says what the sweep holds fixed, varies and costs.
 */
#ifndef RT_SWEEP_IMPL_H
#define RT_SWEEP_IMPL_H

#include <stdio.h>

#include "sweep.h"

/*
 * A string as a double-quoted literal with \" \\ \n \t \uXXXX escapes: valid
 * JSON, a valid Python str literal and a valid YAML double-quoted scalar that
 * each read back as s (controls, line separators, the BOM and noncharacters
 * escaped; a byte that is not UTF-8, which no input of a sweep holds, as
 * U+FFFD).
 */
void rt_sweep_put_str(FILE *f, const char *s);
/* Whether s is valid UTF-8 (what every engine's reader needs). */
int rt_sweep_utf8_valid(const char *s);
/*
 * s as text for one line of a comment (Python's #, YAML's #) or a terminal,
 * into buf (cut between characters to fit len): a newline as \n, the other
 * characters rt_sweep_put_str escapes as \uXXXX, a byte that is not UTF-8 as
 * \xNN. Every string of the inputs goes through it: none ends a comment.
 */
void rt_sweep_line_text(const char *s, char *buf, size_t len);
/*
 * A float that reads back bit for bit, always with a '.' (1.0e-05, 3.0):
 * YAML 1.1 readers (PyYAML, W&B) take "1e-05" for a string.
 */
void rt_sweep_put_float(FILE *f, double v);
/* A --params value: int, float, bool (Python's True/False when python), string. */
void rt_sweep_put_value(FILE *f, const rt_sweep_value *v, int python);
/* A value of the configuration (a fixed knob): a whole number bare, else a string. */
void rt_sweep_put_text(FILE *f, const char *text);

/*
 * The fixed knobs (the knee key left out), the environment and the PU list
 * as a JSON object / array, which is also a Python dict / list literal.
 */
void rt_sweep_put_fixed(FILE *f, const rt_sweep_plan *plan);
void rt_sweep_put_env(FILE *f, const rt_sweep_plan *plan);
void rt_sweep_put_pus(FILE *f, const rt_sweep_plan *plan);

/*
 * The study's (or sweep's) default name: rigtune-<host>-<workload>, every
 * character but letters, digits, '.', '_' and '-' as '-' (the Optuna script
 * makes a file of it).
 */
void rt_sweep_study_name(const rt_sweep_plan *plan, char *buf, size_t len);

/* The study scripts (sweep_script.c): Optuna, Ray Tune. */
extern const rt_sweep_format rt_sweep_optuna, rt_sweep_ray;

/* Whether s holds a {name} placeholder. */
int rt_sweep_has_placeholder(const char *s);

#endif
