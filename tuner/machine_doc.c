/*
 * machine_doc.c: the machine as a document (machine.h): the table of its
 * fields, and the writer and the reader that walk it. check's diff
 * (check/machdiff.c) walks the same table over two machines.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"
#include "../workloads/backend.h"
#include "blas_kernels.h"
#include "machine.h"

#define GIB (1024.0 * 1024 * 1024)

/* ---- what is derived from other fields ---- */

static void derive_fingerprint(const rt_mctx *c, char *buf, size_t len)
{
	char fp[17];
	rt_machine_fingerprint(c->m, fp);
	snprintf(buf, len, "%s", fp);
}

static void derive_smt(const rt_mctx *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d", c->m->cores ? c->m->pus / c->m->cores : 0);
}

static void derive_usable(const rt_mctx *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d", rt_machine_pcores(c->m));
}

/* hwloc lists kinds from least to most powerful: the last of several performs. */
static void derive_role(const rt_mctx *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", c->count < 2 ? "uniform"
				 : c->index == c->count - 1 ? "performance"
							    : "efficiency");
}

/* The item's place: a NUMA node's number, a device's index. */
static void derive_index(const rt_mctx *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d", c->index);
}

static void derive_bf16(const rt_mctx *c, char *buf, size_t len)
{
	if (c->m->blas_precisions & RT_PREC_BIT(RT_BF16))
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len,
			 "none in this %s (no cblas_sbgemm); the cpu backend's gemm_impl names what "
			 "runs bf16",
			 c->m->blas_library);
}

static void derive_core_note(const rt_mctx *c, char *buf, size_t len)
{
	rt_blas_kernels_note(c->m->blas_core, c->m->vector_isa, buf, len);
}

/* ---- when a field is written ---- */

static int has_freq(const rt_mctx *c)
{
	return c->m->freq_max_mhz != 0;
}

static int accel_available(const rt_mctx *c)
{
	return ((const rt_accel *)c->obj)->available;
}

static int accel_unavailable(const rt_mctx *c)
{
	return !accel_available(c);
}

/* ---- the table ---- */

#define SIZE(st, f) sizeof(((st *)0)->f)
#define STR(k, st, f, fl) {.key = k, .kind = RT_MF_STR, .flags = fl, .off = offsetof(st, f), .size = SIZE(st, f)}
#define INT(k, st, f, fl) {.key = k, .kind = RT_MF_INT, .flags = fl, .off = offsetof(st, f)}
#define BYTES(k, kd, st, f, fl) {.key = k, .kind = kd, .flags = fl, .off = offsetof(st, f)}
#define DERIVED(k, kd, fn, fl) {.key = k, .kind = kd, .flags = fl, .derive = fn}
/* A derived value a reader shows as the document says it (rt_machine_said's field f). */
#define SAID(k, kd, fn, fl, f) \
	{.key = k, .kind = kd, .flags = fl, .derive = fn, .said_off = offsetof(rt_machine_said, f), \
	 .said_size = SIZE(rt_machine_said, f)}
#define MAP(k, t, fl) {.key = k, .kind = RT_MF_MAP, .flags = fl, .sub = t}
#define SEQ(k, st, arr, n, t, fl) \
	{.key = k, .kind = RT_MF_SEQ, .flags = fl, .off = offsetof(st, arr), .sub = t, \
	 .count_off = offsetof(st, n), .item_size = sizeof(((st *)0)->arr[0]), \
	 .max = (int)RT_COUNT(((st *)0)->arr)}
#define END {.key = NULL}

/* cpu.numa_nodes[]: an item is a uint64_t of numa_mem[]. */
static const rt_mfield numa_fields[] = {
	DERIVED("node", RT_MF_INT, derive_index, RT_MF_KEY),
	/* what hwloc reads of a node at the moment: in a VM it moves with the balloon
	 * and free page reporting; memory_gib.total describes the machine */
	{.key = "memory_gib", .kind = RT_MF_GIB, .flags = RT_MF_STATE, .off = 0},
	END,
};

static const rt_mfield kind_fields[] = {
	INT("efficiency", rt_cpukind, efficiency, RT_MF_KEY),
	SAID("role", RT_MF_STR, derive_role, RT_MF_NODIFF, role[0]),
	INT("cores", rt_cpukind, cores, 0),
	INT("pus", rt_cpukind, pus, 0),
	STR("core_type", rt_cpukind, core_type, RT_MF_IF_SET),
	INT("freq_max_mhz", rt_cpukind, freq_max_mhz, RT_MF_IF_SET),
	END,
};

static const rt_mfield cache_fields[] = {
	BYTES("l1d", RT_MF_KIB, rt_machine, l1d, 0),
	BYTES("l2", RT_MF_KIB, rt_machine, l2, 0),
	BYTES("l3", RT_MF_KIB, rt_machine, l3, 0),
	END,
};

static const rt_mfield freq_fields[] = {
	INT("min", rt_machine, freq_min_mhz, 0),
	INT("max", rt_machine, freq_max_mhz, 0),
	END,
};

static const rt_mfield cpu_fields[] = {
	STR("model", rt_machine, cpu_model, RT_MF_HARDWARE),
	STR("arch", rt_machine, arch, RT_MF_HARDWARE),
	INT("packages", rt_machine, packages, RT_MF_HARDWARE),
	INT("cores", rt_machine, cores, RT_MF_HARDWARE),
	INT("pus", rt_machine, pus, RT_MF_HARDWARE),
	DERIVED("smt", RT_MF_INT, derive_smt, RT_MF_NODIFF),
	SEQ("numa_nodes", rt_machine, numa_mem, numa_nodes, numa_fields, RT_MF_FLOW),
	SEQ("kinds", rt_machine, kinds, nkinds, kind_fields, RT_MF_FLOW),
	SAID("usable_cores", RT_MF_INT, derive_usable, RT_MF_NODIFF, usable_cores),
	MAP("caches_kib", cache_fields, RT_MF_FLOW),
	{.key = "governor", .kind = RT_MF_STR, .off = offsetof(rt_machine, governor),
	 .size = SIZE(rt_machine, governor), .empty = "unknown"},
	STR("microcode", rt_machine, microcode, RT_MF_IF_SET),
	STR("vector_isa", rt_machine, vector_isa, RT_MF_IF_SET | RT_MF_NODIFF),
	{.key = "freq_mhz", .kind = RT_MF_MAP, .flags = RT_MF_FLOW, .sub = freq_fields,
	 .shown = has_freq},
	END,
};

static const rt_mfield os_fields[] = {
	STR("name", rt_machine, os_name, 0),
	STR("kernel", rt_machine, kernel, 0),
	END,
};

static const rt_mfield memory_fields[] = {
	BYTES("total", RT_MF_GIB, rt_machine, mem_total, RT_MF_NEAR),
	BYTES("available", RT_MF_GIB, rt_machine, mem_available, RT_MF_IF_SET | RT_MF_STATE),
	END,
};

static const rt_mfield blas_fields[] = {
	STR("library", rt_machine, blas_library, 0),
	STR("version", rt_machine, blas_version, 0),
	STR("core", rt_machine, blas_core, 0),
	STR("threading", rt_machine, blas_threading, 0),
	STR("from", rt_machine, blas_from, RT_MF_IF_SET),
	STR("file", rt_machine, blas_file, RT_MF_IF_SET),
	{.key = "precisions", .kind = RT_MF_PRECS, .off = offsetof(rt_machine, blas_precisions)},
	SAID("bf16", RT_MF_STR, derive_bf16, RT_MF_IF_SET | RT_MF_NODIFF, bf16),
	SAID("core_note", RT_MF_STR, derive_core_note, RT_MF_IF_SET | RT_MF_NODIFF, core_note),
	END,
};

static const rt_mfield device_fields[] = {
	DERIVED("index", RT_MF_INT, derive_index, RT_MF_KEY),
	STR("name", rt_device_info, name, 0),
	STR("driver", rt_device_info, driver, RT_MF_IF_SET),
	BYTES("memory_gib", RT_MF_GIB, rt_device_info, mem_total, RT_MF_NEAR),
	INT("compute_units", rt_device_info, compute_units, 0),
	{.key = "precisions", .kind = RT_MF_PRECS, .off = offsetof(rt_device_info, precisions)},
	STR("gemm_impl", rt_device_info, gemm_impl, RT_MF_IF_SET),
	STR("monitor", rt_device_info, monitor, RT_MF_IF_SET),
	END,
};

static const rt_mfield accel_fields[] = {
	STR("backend", rt_accel, backend, RT_MF_KEY),
	{.key = "available", .kind = RT_MF_BOOL, .off = offsetof(rt_accel, available)},
	{.key = "reason", .kind = RT_MF_STR, .off = offsetof(rt_accel, reason),
	 .size = SIZE(rt_accel, reason), .shown = accel_unavailable},
	{.key = "devices", .kind = RT_MF_SEQ, .off = offsetof(rt_accel, dev), .sub = device_fields,
	 .count_off = offsetof(rt_accel, ndevices), .item_size = sizeof(rt_device_info),
	 .max = RT_MAX_DEVICES, .shown = accel_available},
	END,
};

const rt_mfield rt_machine_fields[] = {
	STR("source", rt_machine, source, RT_MF_NODIFF),
	STR("hostname", rt_machine, hostname, 0),
	DERIVED("fingerprint", RT_MF_STR, derive_fingerprint, RT_MF_NODIFF),
	MAP("cpu", cpu_fields, 0),
	MAP("os", os_fields, RT_MF_FLOW),
	MAP("memory_gib", memory_fields, RT_MF_FLOW),
	MAP("blas", blas_fields, 0),
	SEQ("accelerators", rt_machine, accel, naccel, accel_fields, 0),
	END,
};

/* ---- values and their text ---- */

static const void *at(const rt_mfield *f, const rt_mctx *c)
{
	return (const char *)c->obj + f->off;
}

static void *at_mut(const rt_mfield *f, void *obj)
{
	return (char *)obj + f->off;
}

void rt_machine_precisions_text(unsigned mask, const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int p = 0; p < RT_NPRECISION && used < len; p++)
		if (mask & RT_PREC_BIT(p))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
						 rt_precision_name((rt_precision)p));
}

static void precisions_text(unsigned mask, char *buf, size_t len)
{
	char names[RT_MF_TEXT_LEN];
	rt_machine_precisions_text(mask, ", ", names, sizeof names);
	snprintf(buf, len, "[%s]", names);
}

/* The text of a field that is written, whether or not it has a value. */
static void value_text(const rt_mfield *f, const rt_mctx *c, char *buf, size_t len)
{
	if (f->derive) {
		f->derive(c, buf, len);
		return;
	}
	const char *s = at(f, c);
	switch (f->kind) {
	case RT_MF_STR: snprintf(buf, len, "%s", !*s && f->empty ? f->empty : s); break;
	case RT_MF_INT: snprintf(buf, len, "%d", *(const int *)s); break;
	case RT_MF_GIB: rt_yw_num_text((double)*(const uint64_t *)s / GIB, 4, buf, len); break;
	case RT_MF_KIB: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)s >> 10); break;
	case RT_MF_BOOL: snprintf(buf, len, "%s", *(const int *)s ? "true" : "false"); break;
	case RT_MF_PRECS: precisions_text(*(const unsigned *)s, buf, len); break;
	case RT_MF_MAP: snprintf(buf, len, "%s", ""); break;
	case RT_MF_SEQ: snprintf(buf, len, "%s", "[]"); break;
	}
}

int rt_mfield_text(const rt_mfield *f, const rt_mctx *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (f->shown && !f->shown(c))
		return 0;
	value_text(f, c, buf, len);
	/* text that is empty, a number that is 0 */
	if ((f->flags & RT_MF_IF_SET) && (f->kind == RT_MF_STR ? !buf[0] : !strcmp(buf, "0"))) {
		buf[0] = '\0';
		return 0;
	}
	return 1;
}

int rt_mfield_count(const rt_mfield *f, const rt_mctx *c)
{
	int n = *(const int *)((const char *)c->obj + f->count_off);
	return n < 0 ? 0 : n < f->max ? n : f->max;
}

rt_mctx rt_mfield_item(const rt_mfield *f, const rt_mctx *c, int i)
{
	return (rt_mctx){.m = c->m,
			 .obj = (const char *)at(f, c) + (size_t)i * f->item_size,
			 .index = i,
			 .count = rt_mfield_count(f, c)};
}

/* ---- the writer ---- */

/* Numbers and keywords are plain; text is quoted where it would read as one. */
static int plain(const rt_mfield *f)
{
	return f->kind != RT_MF_STR;
}

static void emit_fields(rt_yw *w, const rt_mfield *fields, const rt_mctx *c)
{
	char text[RT_MF_TEXT_LEN];
	for (const rt_mfield *f = fields; f->key; f++) {
		if (!rt_mfield_text(f, c, text, sizeof text))
			continue;
		rt_yw_str(w, f->key);
		switch (f->kind) {
		case RT_MF_MAP:
			rt_yw_map(w, (f->flags & RT_MF_FLOW) != 0);
			emit_fields(w, f->sub, c);
			rt_yw_end_map(w);
			break;
		case RT_MF_SEQ:
			rt_yw_seq(w, 0);
			for (int i = 0; i < rt_mfield_count(f, c); i++) {
				rt_mctx item = rt_mfield_item(f, c, i);
				rt_yw_map(w, (f->flags & RT_MF_FLOW) != 0);
				emit_fields(w, f->sub, &item);
				rt_yw_end_map(w);
			}
			rt_yw_end_seq(w);
			break;
		case RT_MF_PRECS: {
			unsigned mask = *(const unsigned *)at(f, c);
			rt_yw_seq(w, 1);
			for (int p = 0; p < RT_NPRECISION; p++)
				if (mask & RT_PREC_BIT(p))
					rt_yw_str(w, rt_precision_name((rt_precision)p));
			rt_yw_end_seq(w);
			break;
		}
		default: rt_yw_text(w, text, plain(f)); break;
		}
	}
}

void rt_machine_emit(rt_yw *w, const rt_machine *m)
{
	rt_mctx c = {.m = m, .obj = m, .index = 0, .count = 1};
	rt_yw_map(w, 0);
	emit_fields(w, rt_machine_fields, &c);
	rt_yw_end_map(w);
}

/* ---- the reader ---- */

/*
 * Every whole number of a machine (a count of packages, cores, PUs or
 * compute units, a frequency in MHz, an index, a rank) is from -1 (unknown)
 * to this: far beyond any machine, and what the page and the naive point
 * take from it (usable_cores is a thread count) stays sane.
 */
#define MAX_COUNT 16777216

static int bad(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, const char *expected)
{
	return rt_yr_bad(r, n, "machine: %s: expected %s", f->key, expected);
}

static int read_precisions(const rt_yr *r, const rt_ynode *n, const rt_mfield *f,
			   unsigned *mask)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(r, n, f, "a sequence of precisions ([fp64, fp32])");
	for (int i = 0; i < rt_yr_nitems(n); i++) {
		const char *s = rt_yr_scalar(rt_yr_item(r, n, i));
		int p = s ? rt_precision_parse(s) : -1;
		if (p >= 0)
			*mask |= RT_PREC_BIT(p);
	}
	return RT_OK;
}

static int read_bytes(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, uint64_t *v)
{
	double x;
	rt_yr quiet = rt_yr_with_err(r, NULL, 0);
	if (rt_yr_number(&quiet, n, f->key, &x) || !(x >= 0) || x > 1e12)
		return bad(r, n, f, "a size from 0 to 1e12");
	*v = (uint64_t)llround(x * (f->kind == RT_MF_GIB ? GIB : 1024.0));
	return RT_OK;
}

/* Where the fields go: the struct they are in, and the derived values said (NULL: not kept). */
typedef struct dest {
	void *obj;
	rt_machine_said *said;
	int index; /* the item's place in its SEQ; 0 outside one */
} dest;

static int read_fields(const rt_yr *r, const rt_ynode *map, const rt_mfield *fields, dest d);

static int read_seq(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, dest d)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(r, n, f, "a sequence");
	int count = rt_yr_nitems(n) < f->max ? rt_yr_nitems(n) : f->max, rc = RT_OK;
	for (int i = 0; rc == RT_OK && i < count; i++) {
		dest item = {(char *)at_mut(f, d.obj) + (size_t)i * f->item_size, d.said, i};
		rc = read_fields(r, rt_yr_item(r, n, i), f->sub, item);
	}
	*(int *)((char *)d.obj + f->count_off) = count;
	return rc;
}

static int read_value(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, dest d);

/* A derived value as the document says it, into said (the field's kind and key, its place). */
static int read_said(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, dest d)
{
	rt_mfield at_said = {.key = f->key, .kind = f->kind,
			     .off = f->said_off + (size_t)d.index * f->said_size,
			     .size = f->said_size};
	return read_value(r, n, &at_said, (dest){d.said, NULL, 0});
}

static int read_value(const rt_yr *r, const rt_ynode *n, const rt_mfield *f, dest d)
{
	void *obj = d.obj;
	const char *s = rt_yr_scalar(n);
	rt_yr quiet = rt_yr_with_err(r, NULL, 0); /* its own message is bad()'s */
	long v;
	switch (f->kind) {
	case RT_MF_STR:
		if (!s)
			return bad(r, n, f, "text");
		snprintf(at_mut(f, obj), f->size, "%s", f->empty && !strcmp(s, f->empty) ? "" : s);
		return RT_OK;
	case RT_MF_INT:
		if (rt_yr_integer(&quiet, n, f->key, -1, MAX_COUNT, &v)) {
			char expected[64];
			snprintf(expected, sizeof expected, "a whole number from -1 to %d",
				 MAX_COUNT);
			return bad(r, n, f, expected);
		}
		*(int *)at_mut(f, obj) = (int)v;
		return RT_OK;
	case RT_MF_GIB:
	case RT_MF_KIB: return read_bytes(r, n, f, at_mut(f, obj));
	case RT_MF_BOOL:
		if (!s || (strcmp(s, "true") && strcmp(s, "false")))
			return bad(r, n, f, "true or false");
		*(int *)at_mut(f, obj) = !strcmp(s, "true");
		return RT_OK;
	case RT_MF_PRECS: return read_precisions(r, n, f, at_mut(f, obj));
	case RT_MF_MAP: return read_fields(r, n, f->sub, d);
	case RT_MF_SEQ: return read_seq(r, n, f, d);
	}
	return RT_OK;
}

/* Whether f is read: a field, or a derived value said is kept for. */
static int is_read(const rt_mfield *f, dest d)
{
	return !f->derive || (d.said && f->said_size);
}

/* The fields of map into d; a derived one into said if kept, absent ones stay 0. */
static int read_fields(const rt_yr *r, const rt_ynode *map, const rt_mfield *fields, dest d)
{
	if (map->type != YAML_MAPPING_NODE)
		return rt_yr_bad(r, map, "machine: expected a mapping");
	int rc = RT_OK;
	for (const rt_mfield *f = fields; rc == RT_OK && f->key; f++) {
		const rt_ynode *n = is_read(f, d) ? rt_yr_get(r, map, f->key) : NULL;
		if (n && !rt_yr_is_null(n))
			rc = f->derive ? read_said(r, n, f, d) : read_value(r, n, f, d);
	}
	return rc;
}

int rt_machine_read(const rt_yr *r, const rt_ynode *map, rt_machine *m, rt_machine_said *said)
{
	memset(m, 0, sizeof *m);
	if (said)
		memset(said, 0, sizeof *said);
	if (!map)
		return rt_yr_bad(r, NULL, "machine: expected a mapping");
	return read_fields(r, map, rt_machine_fields, (dest){m, said, 0});
}

double rt_machine_gib(uint64_t bytes)
{
	char text[32];
	/* the byte count is within half a byte (2^-31 GiB) of what was written: rounded to 6
	   significant digits, what was written with as many comes back exactly */
	snprintf(text, sizeof text, "%.6g", (double)bytes / GIB);
	return strtod(text, NULL);
}
