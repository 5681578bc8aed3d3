/*
 * knob.h: how long a knob's name may be, and one knob's value at a point
 * of the user's command as text: what a command's placeholders take
 * (usercmd.h) and what check's baseline reads from its document. A small
 * header of its own, below the point (cmdpoint.h) and the user's-command
 * family (usercmd.h), which both need it.
 */
#ifndef RT_KNOB_H
#define RT_KNOB_H

#define RT_KNOB_NAMELEN 32

/* One knob's value at a point, as text: {"batch", "32"}, {"precision", "bf16"}. */
typedef struct rt_knob_value {
	const char *name;
	const char *value;
} rt_knob_value;

#endif
