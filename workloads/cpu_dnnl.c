/* cpu_dnnl.c: which library runs each CPU precision, and bf16 GEMMs through oneDNN (cpu_dnnl.h). */
#include "cpu_dnnl.h"

#include "../common/platform.h"

#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <oneapi/dnnl/dnnl_version.h>

/* Primitives kept per pool thread: a training step has about 20 GEMM shapes per thread. */
#define CACHE_SLOTS 48
/* At or below this m*n*k (per GEMM, times count) a call runs on the calling thread alone. */
#define SPLIT_MIN_WORK (1L << 18)
/* Row and column parts start at multiples of this (oneDNN's bf16 kernels block by 16). */
#define PART_ALIGN 16

static const struct {
	unsigned bit;
	const char *name;
} cpu_flags[] = {
	{RT_CPUF_AVX512_BF16, "avx512_bf16"},
	{RT_CPUF_AMX_BF16, "amx_bf16"},
	{RT_CPUF_AMX_FP16, "amx_fp16"},
};

unsigned rt_cpu_flags_parse(const char *cpuinfo_flags, const char *mask)
{
	unsigned f = 0;
	for (size_t i = 0; i < RT_COUNT(cpu_flags); i++)
		if (rt_list_has(cpuinfo_flags, " \t\n", cpu_flags[i].name) &&
		    !rt_list_has(mask, ",", cpu_flags[i].name))
			f |= cpu_flags[i].bit;
	return f;
}

/* The CPU's feature flags ("" where the system lists none), parsed. */
static unsigned read_cpu_flags(void)
{
	static char line[8192];
	rt_plat_cpu_flags(line, sizeof line);
	return rt_cpu_flags_parse(line, getenv("RIGTUNE_CPU_MASK"));
}

/* Strides (in elements) of dense matrices, as count x rows x cols, stored transposed or not. */
static void dense_strides(long s[3], int trans, int rows, int cols)
{
	s[0] = (dnnl_dim_t)rows * cols;
	s[1] = trans ? 1 : cols;
	s[2] = trans ? rows : 1;
}

/*
 * ---- oneDNN 2.x and 3.x ----
 * 3.0 dropped the operation descriptors (dnnl_matmul_desc_init: a primitive
 * descriptor is made at once) and the output scales (a scale per argument,
 * given as a memory at execution), and made a memory descriptor a handle to
 * destroy. Debian 12 ships 2.x; Homebrew, Debian 13 and Ubuntu 24.04 ship
 * 3.x. These few calls are the only ones that differ; the rest of the file
 * is the same on both (tests/cli/test_dnnl3.sh builds it against a 3.x).
 */
#if DNNL_VERSION_MAJOR >= 3
#define MD(m) (m) /* a handle already */
#else
#define MD(m) (&(m))
#endif

/* A dense 3-d memory descriptor of the strides given. */
static dnnl_status_t md_make(dnnl_memory_desc_t *md, const dnnl_dims_t dims, dnnl_data_type_t t,
			     const dnnl_dims_t strides)
{
#if DNNL_VERSION_MAJOR >= 3
	return dnnl_memory_desc_create_with_strides(md, 3, dims, t, strides);
#else
	return dnnl_memory_desc_init_by_strides(md, 3, dims, t, strides);
#endif
}

/* Frees what md_make made (3.x: the handle; 2.x: nothing); md may be unmade (zeroed). */
static void md_free(dnnl_memory_desc_t *md)
{
#if DNNL_VERSION_MAJOR >= 3
	if (*md)
		dnnl_memory_desc_destroy(*md);
	*md = NULL;
#else
	(void)md;
#endif
}

/* The primitive descriptor of the matmul c = a b under attr (NULL: none). */
static dnnl_status_t matmul_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng,
			       const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *b,
			       const dnnl_memory_desc_t *c, dnnl_primitive_attr_t attr)
{
#if DNNL_VERSION_MAJOR >= 3
	return dnnl_matmul_primitive_desc_create(pd, eng, *a, *b, NULL, *c, attr);
#else
	dnnl_matmul_desc_t md;
	dnnl_status_t s = dnnl_matmul_desc_init(&md, a, b, NULL, c);
	return s ? s : dnnl_primitive_desc_create(pd, &md, attr, eng, NULL);
#endif
}

/* attr scales the product by alpha (3.x: the weights' scale, given at execution: scale_arg). */
static dnnl_status_t set_alpha(dnnl_primitive_attr_t attr, const float *alpha)
{
#if DNNL_VERSION_MAJOR >= 3
	(void)alpha;
	return dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 0);
#else
	return dnnl_primitive_attr_set_output_scales(attr, 1, 0, alpha);
#endif
}

/* po adds beta times what dst held. */
static dnnl_status_t append_sum(dnnl_post_ops_t po, float beta)
{
#if DNNL_VERSION_MAJOR >= 3
	return dnnl_post_ops_append_sum(po, beta, 0, dnnl_data_type_undef);
#else
	return dnnl_post_ops_append_sum(po, beta);
#endif
}

/*
 * 3.x: the execution argument that carries alpha (set_alpha), as a memory
 * over *alpha in *mem (destroyed by the caller); 2.x, or alpha 1: none
 * (*mem NULL). The arguments' count after it is added at args[n].
 */
static dnnl_status_t scale_arg(dnnl_engine_t eng, float *alpha, dnnl_memory_t *mem,
			       dnnl_exec_arg_t *args, int *n)
{
	*mem = NULL;
#if DNNL_VERSION_MAJOR >= 3
	if (*alpha == 1.0f)
		return dnnl_success;
	dnnl_memory_desc_t md;
	dnnl_dims_t one = {1};
	dnnl_status_t s = dnnl_memory_desc_create_with_tag(&md, 1, one, dnnl_f32, dnnl_a);
	if (s)
		return s;
	s = dnnl_memory_create(mem, md, eng, alpha);
	dnnl_memory_desc_destroy(md);
	if (!s)
		args[(*n)++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, *mem};
	return s;
#else
	(void)eng, (void)alpha, (void)args, (void)n;
	return dnnl_success;
#endif
}

/*
 * The implementation oneDNN picks for a bf16 matmul on this CPU, in one
 * thread ("brg:avx512_core_bf16"), or "" when it has none.
 */
static void probe_dnnl_bf16(char *impl, size_t len)
{
	dnnl_engine_t eng = NULL;
	dnnl_memory_desc_t a = {0}, b = {0}, c = {0};
	dnnl_primitive_desc_t pd = NULL;
	dnnl_dims_t dims_a = {1, 64, 64}, s = {64 * 64, 64, 1};
	const char *name = NULL;

	impl[0] = '\0';
	omp_set_num_threads(1);
	if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success)
		return;
	if (md_make(&a, dims_a, dnnl_bf16, s) == dnnl_success &&
	    md_make(&b, dims_a, dnnl_bf16, s) == dnnl_success &&
	    md_make(&c, dims_a, dnnl_f32, s) == dnnl_success &&
	    matmul_pd(&pd, eng, &a, &b, &c, NULL) == dnnl_success &&
	    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success &&
	    name)
		snprintf(impl, len, "%s", name);
	dnnl_primitive_desc_destroy(pd);
	md_free(&a);
	md_free(&b);
	md_free(&c);
	dnnl_engine_destroy(eng);
}

static rt_cpu_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

static void caps_init(void)
{
	const dnnl_version_t *v = dnnl_version();
	caps.flags = read_cpu_flags();
	caps.blas_sbgemm = dlsym(RTLD_DEFAULT, "cblas_sbgemm") != NULL;
	snprintf(caps.dnnl_version, sizeof caps.dnnl_version, "%d.%d.%d", v->major, v->minor,
		 v->patch);
	/* oneDNN is asked only where rigtune would use it: a CPU with the bf16 units. */
	if (caps.flags & (RT_CPUF_AVX512_BF16 | RT_CPUF_AMX_BF16))
		probe_dnnl_bf16(caps.dnnl_bf16, sizeof caps.dnnl_bf16);
}

const rt_cpu_caps *rt_cpu_caps_probe(void)
{
	pthread_once(&caps_once, caps_init);
	return &caps;
}

rt_gemm_lib rt_cpu_gemm_lib(const rt_cpu_caps *c, rt_precision p, char *why, size_t len)
{
	switch (p) {
	case RT_FP64:
	case RT_FP32:
		return RT_LIB_OPENBLAS;
	case RT_BF16:
		if (c->blas_sbgemm)
			return RT_LIB_OPENBLAS;
		if (!(c->flags & (RT_CPUF_AVX512_BF16 | RT_CPUF_AMX_BF16))) {
			snprintf(why, len, "the CPU has neither avx512_bf16 nor amx_bf16 and OpenBLAS "
					   "has no cblas_sbgemm");
			return RT_LIB_NONE;
		}
		if (!c->dnnl_bf16[0] || !strncmp(c->dnnl_bf16, "ref", 3)) {
			snprintf(why, len, "oneDNN %s has no bf16 matmul kernel for this CPU%s%s",
				 c->dnnl_version, c->dnnl_bf16[0] ? ", only " : "", c->dnnl_bf16);
			return RT_LIB_NONE;
		}
		return RT_LIB_DNNL;
	case RT_FP16:
		snprintf(why, len, "%s", c->flags & RT_CPUF_AMX_FP16
						 ? "oneDNN 2.x has no fp16 matmul on the CPU (3.0 added "
						   "AMX-FP16)"
						 : "the CPU has no amx_fp16");
		return RT_LIB_NONE;
	default:
		snprintf(why, len, "no CPU computes in tf32");
		return RT_LIB_NONE;
	}
}

void rt_cpu_gemm_lib_describe(const rt_cpu_caps *c, rt_precision p, const char *blas, char *buf,
			      size_t len)
{
	char why[160];
	switch (rt_cpu_gemm_lib(c, p, why, sizeof why)) {
	case RT_LIB_OPENBLAS:
		snprintf(buf, len, "%s", blas);
		break;
	case RT_LIB_DNNL:
		snprintf(buf, len, "oneDNN %s %s (bf16 inputs, fp32 accumulation)", c->dnnl_version,
			 c->dnnl_bf16);
		break;
	default:
		snprintf(buf, len, "unavailable: %s", why);
	}
}

/* What identifies a primitive: the shape, strides and scalars of one part. */
typedef struct mm_key {
	long dims[4];             /* count, m, n, k */
	long sa[3], sb[3], sc[3]; /* strides in elements, as count x rows x cols */
	float alpha, beta;
	int prec;
} mm_key;

typedef struct mm_entry {
	mm_key key;
	dnnl_primitive_t prim;
	dnnl_memory_desc_t a, b, c;
} mm_entry;

/* One pool thread's stream and primitives (round-robin replacement). */
typedef struct dnnl_thread {
	dnnl_stream_t stream;
	mm_entry e[CACHE_SLOTS];
	int n, next;
	dnnl_status_t status; /* of this thread's last part */
} dnnl_thread;

struct rt_dnnl {
	dnnl_engine_t eng;
	int nthreads;
	dnnl_thread *t;
};

/* An entry's primitive and memory descriptors, freed (it may be half-made). */
static void free_entry(mm_entry *e)
{
	dnnl_primitive_destroy(e->prim);
	e->prim = NULL;
	md_free(&e->a);
	md_free(&e->b);
	md_free(&e->c);
}

int rt_dnnl_create(int nthreads, rt_dnnl **out, char *err, size_t errlen)
{
	rt_dnnl *d = calloc(1, sizeof *d);
	*out = NULL;
	if (d)
		d->t = calloc((size_t)nthreads, sizeof *d->t);
	if (!d || !d->t) {
		free(d);
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory for oneDNN's state");
	}
	d->nthreads = nthreads;
	if (dnnl_engine_create(&d->eng, dnnl_cpu, 0) != dnnl_success) {
		free(d->t);
		free(d);
		return rt_fail(err, errlen, RT_ERUNTIME, "oneDNN: cannot create a CPU engine");
	}
	*out = d;
	return 0;
}

void rt_dnnl_destroy(rt_dnnl *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nthreads; i++) {
		for (int k = 0; k < d->t[i].n; k++)
			free_entry(&d->t[i].e[k]);
		if (d->t[i].stream)
			dnnl_stream_destroy(d->t[i].stream);
	}
	dnnl_engine_destroy(d->eng);
	free(d->t);
	free(d);
}

/* Creates the primitive of key into e; e keeps its memory descriptors. */
static dnnl_status_t make_entry(dnnl_engine_t eng, const mm_key *key, mm_entry *e)
{
	dnnl_dims_t da = {key->dims[0], key->dims[1], key->dims[3]};
	dnnl_dims_t db = {key->dims[0], key->dims[3], key->dims[2]};
	dnnl_dims_t dc = {key->dims[0], key->dims[1], key->dims[2]};
	dnnl_dims_t sa = {key->sa[0], key->sa[1], key->sa[2]};
	dnnl_dims_t sb = {key->sb[0], key->sb[1], key->sb[2]};
	dnnl_dims_t sc = {key->sc[0], key->sc[1], key->sc[2]};
	dnnl_data_type_t in = dnnl_bf16;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_post_ops_t po = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_status_t s;

	memset(e, 0, sizeof *e);
	e->key = *key;
	if ((s = md_make(&e->a, da, in, sa)) || (s = md_make(&e->b, db, in, sb)) ||
	    (s = md_make(&e->c, dc, dnnl_f32, sc)) || (s = dnnl_primitive_attr_create(&attr)))
		return s;
	if (key->alpha != 1.0f)
		s = set_alpha(attr, &key->alpha);
	if (!s && key->beta != 0.0f && !(s = dnnl_post_ops_create(&po)) &&
	    !(s = append_sum(po, key->beta)))
		s = dnnl_primitive_attr_set_post_ops(attr, po);
	if (!s && !(s = matmul_pd(&pd, eng, &e->a, &e->b, &e->c, attr)))
		s = dnnl_primitive_create(&e->prim, pd);
	dnnl_primitive_desc_destroy(pd);
	dnnl_post_ops_destroy(po);
	dnnl_primitive_attr_destroy(attr);
	return s;
}

/* The thread's primitive for key, created (and cached) on first use. */
static dnnl_status_t lookup(rt_dnnl *d, dnnl_thread *t, const mm_key *key, mm_entry **out)
{
	for (int i = 0; i < t->n; i++)
		if (!memcmp(&t->e[i].key, key, sizeof *key)) {
			*out = &t->e[i];
			return dnnl_success;
		}
	mm_entry *e;
	if (t->n < CACHE_SLOTS) {
		e = &t->e[t->n++];
	} else {
		e = &t->e[t->next];
		t->next = (t->next + 1) % CACHE_SLOTS;
		free_entry(e);
	}
	dnnl_status_t s = make_entry(d->eng, key, e);
	if (s != dnnl_success) {
		free_entry(e);
		e->key.prec = -1; /* matches no key */
		return s;
	}
	*out = e;
	return dnnl_success;
}

/* A whole call, or one thread's part of it. */
typedef struct mm_job {
	rt_dnnl *d;
	mm_key key;
	const uint16_t *a, *b;
	float *c;
	int split;  /* the dimension split over threads: 0 count, 1 m (rows), 2 n (columns) */
	int nparts; /* threads that take a part */
} mm_job;

static dnnl_status_t run_part(rt_dnnl *d, dnnl_thread *t, const mm_key *key, const uint16_t *a,
			      const uint16_t *b, float *c)
{
	dnnl_memory_t ma = NULL, mb = NULL, mc = NULL, ms = NULL;
	mm_entry *e;
	dnnl_status_t s;

	omp_set_num_threads(1); /* no OpenMP team: this thread is the part's one thread */
	if (!t->stream && (s = dnnl_stream_create(&t->stream, d->eng, dnnl_stream_default_flags)))
		return s;
	if ((s = lookup(d, t, key, &e)))
		return s;
	dnnl_exec_arg_t args[4];
	int nargs = 3;
	if (!(s = dnnl_memory_create(&ma, MD(e->a), d->eng, (void *)a)) &&
	    !(s = dnnl_memory_create(&mb, MD(e->b), d->eng, (void *)b)) &&
	    !(s = dnnl_memory_create(&mc, MD(e->c), d->eng, c))) {
		args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ma};
		args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mb};
		args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mc};
		s = scale_arg(d->eng, &e->key.alpha, &ms, args, &nargs);
	}
	if (!s && !(s = dnnl_primitive_execute(e->prim, t->stream, nargs, args)))
		s = dnnl_stream_wait(t->stream);
	dnnl_memory_destroy(ma);
	dnnl_memory_destroy(mb);
	dnnl_memory_destroy(mc);
	dnnl_memory_destroy(ms);
	return s;
}

/* Part `index` of `n` of [0, len): multiples of align, the last taking the rest. */
static void part_range(long len, int index, int n, long align, long *lo, long *hi)
{
	long blocks = (len + align - 1) / align;
	*lo = blocks * index / n * align;
	*hi = index + 1 == n ? len : blocks * (index + 1) / n * align;
	if (*lo > len)
		*lo = len;
	if (*hi > len)
		*hi = len;
}

static void part_fn(void *arg, int index, int nthreads)
{
	const mm_job *j = arg;
	dnnl_thread *t = &j->d->t[index];
	mm_key key = j->key;
	const uint16_t *a = j->a, *b = j->b;
	float *c = j->c;
	long lo, hi;

	(void)nthreads;
	t->status = dnnl_success;
	if (index >= j->nparts)
		return;
	part_range(j->key.dims[j->split], index, j->nparts, j->split ? PART_ALIGN : 1, &lo, &hi);
	if (lo >= hi)
		return;
	key.dims[j->split] = hi - lo;
	/* a moves with count and rows, b with count and columns, c with all three */
	if (j->split != 2)
		a += lo * j->key.sa[j->split];
	if (j->split != 1)
		b += lo * j->key.sb[j->split ? 2 : 0];
	c += lo * j->key.sc[j->split];
	t->status = run_part(j->d, t, &key, a, b, c);
}

/* Which dimension to split over n threads, and into how many parts (1: no split). */
static void choose_split(const mm_key *k, int n, int *split, int *nparts)
{
	long work = k->dims[0] * k->dims[1] * k->dims[2] * k->dims[3];
	*split = 0;
	*nparts = 1;
	if (n < 2 || work <= SPLIT_MIN_WORK)
		return;
	if (k->dims[0] >= n)
		*split = 0;
	else
		*split = k->dims[1] >= k->dims[2] ? 1 : 2;
	*nparts = k->dims[*split] >= (*split ? PART_ALIGN : 1) * (long)n ? n : 1;
}

int rt_dnnl_gemm(rt_dnnl *d, rt_pool *pool, rt_precision p, int transa, int transb, int m,
		 int n, int k, float alpha, const uint16_t *a, const uint16_t *b, float beta,
		 float *c, int ldc, long stride_c, int count, char *err, size_t errlen)
{
	mm_job j = {.d = d, .a = a, .b = b, .c = c};
	int nthreads = pool ? rt_pool_size(pool) : 1;

	RT_BUG_ON(p != RT_BF16 || nthreads > d->nthreads);
	memset(&j.key, 0, sizeof j.key); /* padding too: the key is compared with memcmp */
	j.key.dims[0] = count;
	j.key.dims[1] = m;
	j.key.dims[2] = n;
	j.key.dims[3] = k;
	dense_strides(j.key.sa, transa, m, k);
	dense_strides(j.key.sb, transb, k, n);
	j.key.sc[0] = stride_c;
	j.key.sc[1] = ldc;
	j.key.sc[2] = 1;
	j.key.alpha = alpha;
	j.key.beta = beta;
	j.key.prec = p;
	choose_split(&j.key, nthreads, &j.split, &j.nparts);
	if (j.nparts > 1)
		rt_pool_run_each(pool, part_fn, &j);
	else
		part_fn(&j, 0, 1);
	for (int i = 0; i < j.nparts; i++)
		if (d->t[i].status != dnnl_success)
			return rt_fail(err, errlen, RT_ERUNTIME,
				       "oneDNN bf16 matmul %dx%dx%d (x%d): %s", m, n, k, count,
				       dnnl_status2str(d->t[i].status));
	return 0;
}
