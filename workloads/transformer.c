/*
 * transformer.c: the synthetic transformer training workload (see
 * transformer.h). Layout of the file: shape and sizes, the memory layout of
 * parameters and activations, the data pipeline, forward and backward per
 * sublayer, the step, and the workload table entry.
 *
 * Notation: B sequences of T tokens, model width D, H heads of width
 * dh = D/H, MLP width F, L layers, N = B*T rows. Every tensor is row-major
 * with one row per token; attention scores are [B][H][T][T].
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "pool.h"
#include "synthetic_work.h"
#include "transformer.h"

/* The fixed seed of weights, targets and data: runs are reproducible. */
#define TF_SEED 0x7f4a7c15u
/* Adam hyper-parameters. */
#define TF_LR 1e-3
#define TF_B1 0.9
#define TF_B2 0.999
#define TF_EPS 1e-8
/* Source sequences the data pipeline draws from, and their byte cap. */
#define TF_POOL_MAX 32
#define TF_POOL_BYTES (64u << 20)

enum { K_DMODEL, K_HEADS, K_SEQ, K_DFF, K_LAYERS, K_PREP, NKEYS };

static const rt_shape_key keys[NKEYS] = {
	[K_DMODEL] = {"d_model", 256, 1, 16384, "model width"},
	[K_HEADS] = {"heads", 4, 1, 256, "attention heads (must divide d_model)"},
	[K_SEQ] = {"seq_len", 64, 1, 16384, "tokens per sequence"},
	[K_DFF] = {"d_ff", 1024, 1, 65536, "hidden width of the MLP"},
	[K_LAYERS] = {"layers", 2, 1, 256, "transformer blocks"},
	[K_PREP] = {"prep_us", 20, 0, 1000000,
		    "host data preparation per sample, microseconds"},
};

enum { PH_GEMM, PH_ATTN, PH_ELEM, PH_OPT, PH_DATA, NPH, PH_NONE = NPH };

static const char *const phase_names[NPH] = {
	[PH_GEMM] = "gemm", [PH_ATTN] = "attention", [PH_ELEM] = "elementwise",
	[PH_OPT] = "optimizer", [PH_DATA] = "data",
};

struct dims {
	int B, T, D, H, dh, F, L;
	int N;       /* B*T rows */
	long prep_us;
};

static void dims_from(const rt_point *pt, const rt_shape *sh, struct dims *d)
{
	d->B = pt->batch;
	d->D = (int)sh->v[K_DMODEL];
	d->H = (int)sh->v[K_HEADS];
	d->T = (int)sh->v[K_SEQ];
	d->F = (int)sh->v[K_DFF];
	d->L = (int)sh->v[K_LAYERS];
	d->prep_us = sh->v[K_PREP];
	d->dh = d->D / d->H;
	d->N = d->B * d->T;
}

/* ---- Memory layout: offsets in elements into one buffer per kind ---- */

/* Offsets of one block's parameters (the same offsets index the gradients). */
struct layer_par {
	size_t ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o;
	size_t ln2_g, ln2_b, w_1, b_1, w_2, b_2;
};

struct params {
	struct layer_par *layer; /* L entries; NULL while only counting */
	size_t lnf_g, lnf_b, w_out, b_out;
	size_t n;
};

/* What one block keeps for its backward pass; x is its input, y its output. */
struct layer_act {
	size_t x, h1, mean1, rstd1, qkv, probs, ctx, x1;
	size_t h2, mean2, rstd2, u, a, y;
};

struct acts {
	struct layer_act *layer; /* L entries; NULL while only counting */
	size_t xf, hf, meanf, rstdf, out, target, loss, w_target;
	/* scratch of the backward pass (and scores of the forward pass) */
	size_t dx, dres, dh, dctx, dqkv, att_a, att_b, dff_a, dff_b;
	size_t x_next; /* the next batch, uploaded during this step where uploads overlap */
	size_t n;
};

/* Reserves n elements at *cur, aligned to align elements. */
static size_t take(size_t *cur, size_t n, size_t align)
{
	size_t off = (*cur + align - 1) / align * align;
	*cur = off + n;
	return off;
}

/*
 * Lays the parameters out in the order transformer.h documents; fills
 * p->layer when it is not NULL and always sets p->n.
 */
static void param_layout(const struct dims *d, struct params *p)
{
	size_t cur = 0, D = (size_t)d->D, F = (size_t)d->F;
	struct layer_par tmp;
	for (int l = 0; l < d->L; l++) {
		struct layer_par *q = p->layer ? &p->layer[l] : &tmp;
		q->ln1_g = take(&cur, D, 1);
		q->ln1_b = take(&cur, D, 1);
		q->w_qkv = take(&cur, D * 3 * D, 1);
		q->b_qkv = take(&cur, 3 * D, 1);
		q->w_o = take(&cur, D * D, 1);
		q->b_o = take(&cur, D, 1);
		q->ln2_g = take(&cur, D, 1);
		q->ln2_b = take(&cur, D, 1);
		q->w_1 = take(&cur, D * F, 1);
		q->b_1 = take(&cur, F, 1);
		q->w_2 = take(&cur, F * D, 1);
		q->b_2 = take(&cur, D, 1);
	}
	p->lnf_g = take(&cur, D, 1);
	p->lnf_b = take(&cur, D, 1);
	p->w_out = take(&cur, D * D, 1);
	p->b_out = take(&cur, D, 1);
	p->n = cur;
}

/*
 * Lays out the activation arena (64-byte aligned for either dtype): the L+1
 * residual-stream tensors, what each block keeps, the head, and scratch that
 * every block reuses. Fills a->layer when it is not NULL; always sets a->n.
 */
static void act_layout(const struct dims *d, struct acts *a)
{
	const size_t al = 16;
	size_t cur = 0, N = (size_t)d->N, D = (size_t)d->D, F = (size_t)d->F;
	size_t TT = (size_t)d->B * d->H * d->T * d->T;
	size_t prev = take(&cur, N * D, al);
	struct layer_act tmp;
	for (int l = 0; l < d->L; l++) {
		struct layer_act *q = a->layer ? &a->layer[l] : &tmp;
		q->x = prev;
		q->h1 = take(&cur, N * D, al);
		q->mean1 = take(&cur, N, al);
		q->rstd1 = take(&cur, N, al);
		q->qkv = take(&cur, N * 3 * D, al);
		q->probs = take(&cur, TT, al);
		q->ctx = take(&cur, N * D, al);
		q->x1 = take(&cur, N * D, al);
		q->h2 = take(&cur, N * D, al);
		q->mean2 = take(&cur, N, al);
		q->rstd2 = take(&cur, N, al);
		q->u = take(&cur, N * F, al);
		q->a = take(&cur, N * F, al);
		q->y = prev = take(&cur, N * D, al);
	}
	a->xf = prev;
	a->hf = take(&cur, N * D, al);
	a->meanf = take(&cur, N, al);
	a->rstdf = take(&cur, N, al);
	a->out = take(&cur, N * D, al);
	a->target = take(&cur, N * D, al);
	a->loss = take(&cur, 1, al);
	a->w_target = take(&cur, D * D, al);
	a->dx = take(&cur, N * D, al);
	a->dres = take(&cur, N * D, al);
	a->dh = take(&cur, N * D, al);
	a->dctx = take(&cur, N * D, al);
	a->dqkv = take(&cur, N * 3 * D, al);
	a->att_a = take(&cur, TT, al);
	a->att_b = take(&cur, TT, al);
	a->dff_a = take(&cur, N * F, al);
	a->dff_b = take(&cur, N * F, al);
	a->x_next = take(&cur, N * D, al);
	a->n = cur;
}

/*
 * GEMM flops of one step: the target map, the forward pass, and twice the
 * forward GEMMs for the backward pass (input and weight gradients). Causal
 * attention is counted in full because the masked scores are computed.
 */
static double step_flops(const struct dims *d)
{
	double N = d->N, D = d->D, F = d->F;
	double attn = 4.0 * d->B * (double)d->T * d->T * D;
	double block = 2.0 * N * (3 * D * D + D * D + 2 * D * F) + attn;
	double fwd = d->L * block + 2.0 * N * D * D;
	return 3.0 * fwd + 2.0 * N * D * D;
}

/* ---- The data pipeline ---- */

/*
 * Prepares batches on the host. Sample g (counted over the whole run) is a
 * copy of a pool sequence chosen by a generator seeded with g, followed by
 * `work` per-token normalizations spread over its tokens: real arithmetic
 * whose amount is calibrated to about prep_us. Batch k holds samples
 * k*B .. k*B+B-1, whoever prepares them, so the data do not depend on the
 * number of workers.
 *
 * With workers, batch k is built in slot k % depth; a worker may claim a
 * sample of batch k only while k < consumed + depth, and the step takes the
 * batches in order.
 */
struct pipeline;

struct worker_arg {
	struct pipeline *p;
	double *scratch; /* D doubles of its own */
};

struct pipeline {
	int B, T, D, workers, depth;
	rt_dtype t;
	size_t sample_bytes;
	long work;
	double *pool;
	int pool_n;
	unsigned char *slots; /* depth batches (one when inline) */
	double *scratch;      /* D doubles per worker (one when inline) */
	pthread_t *tid;
	struct worker_arg *args;
	int started;
	int sync_ready;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long claimed;  /* next sample to claim */
	long taken;    /* batches handed to the step */
	long consumed; /* batches given back (their copies done): workers may refill their slots */
	int *done;     /* samples finished, per slot */
	int stop;
	/* the backend's, when the slots are its pinned memory and uploads overlap the step */
	const rt_backend_ops *be;
	rt_ctx *ctx;
	int overlap;   /* the next batch is uploaded during the step (upload_async) */
	int primed;    /* overlap: this step's batch is already on the device */
	int in_flight; /* overlap: a batch taken whose copy the last wait finished */
};

/* Standardizes x[0..n) to zero mean and unit variance. */
static void normalize(double *x, int n)
{
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		var += (x[i] - mean) * (x[i] - mean);
	double r = 1.0 / sqrt(var / n + 1e-5);
	for (int i = 0; i < n; i++)
		x[i] = (x[i] - mean) * r;
}

/* Writes sample g into out (T*D values of the storage dtype). */
static void prep_sample(const struct pipeline *p, long g, long work, void *out,
			double *scratch)
{
	rt_rng r;
	rt_rng_seed(&r, TF_SEED ^ (0x9e3779b97f4a7c15ull * (uint64_t)(g + 1)));
	const double *src = p->pool + rt_rng_below(&r, (uint64_t)p->pool_n) *
					       (size_t)p->T * p->D;
	long base = work / p->T, extra = work % p->T;
	for (int j = 0; j < p->T; j++) {
		memcpy(scratch, src + (size_t)j * p->D, (size_t)p->D * sizeof *scratch);
		for (long k = 0; k < base + (j < extra); k++)
			normalize(scratch, p->D);
		size_t o = (size_t)j * p->D;
		for (int c = 0; c < p->D; c++) {
			if (p->t == RT_F32)
				((float *)out)[o + c] = (float)scratch[c];
			else
				((double *)out)[o + c] = scratch[c];
		}
	}
}

/* rt_work_fn for the calibration: sample 0 with `work` normalizations. */
static void prep_probe(void *ctx, long work)
{
	struct pipeline *p = ctx;
	prep_sample(p, 0, work, p->slots, p->scratch);
}

/* Sets p->work so that one sample costs about prep_us on an idle core. */
static void calibrate(struct pipeline *p, long prep_us)
{
	p->work = rt_work_calibrate(prep_probe, p, 4L * p->T, (double)prep_us * 1e-6);
}

static void *worker_main(void *arg)
{
	struct worker_arg *w = arg;
	struct pipeline *p = w->p;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->claimed / p->B >= p->consumed + p->depth)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->stop)
			break;
		long g = p->claimed++;
		int slot = (int)(g / p->B % p->depth);
		pthread_mutex_unlock(&p->mu);
		prep_sample(p, g, p->work,
			    p->slots + ((size_t)slot * p->B + g % p->B) * p->sample_bytes,
			    w->scratch);
		pthread_mutex_lock(&p->mu);
		if (++p->done[slot] == p->B)
			pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Stops and joins the workers, frees everything; p may be half set up. */
static void pipeline_stop(struct pipeline *p)
{
	if (p->sync_ready) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		for (int i = 0; i < p->started; i++)
			pthread_join(p->tid[i], NULL);
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
	}
	free(p->args);
	free(p->tid);
	free(p->done);
	free(p->scratch);
	if (p->overlap && p->slots)
		p->be->host_free(p->ctx, p->slots);
	else
		free(p->slots);
	free(p->pool);
	memset(p, 0, sizeof *p);
}

/*
 * Builds the sample pool from the seed, calibrates the work per sample and
 * starts the workers (none when workers == 0). On failure the caller still
 * calls pipeline_stop(), which releases what was made.
 */
/* 1 when be overlaps uploads with its kernels: the three operations of upload_async. */
static int overlaps(const rt_backend_ops *be)
{
	return be->upload_async && be->host_alloc && be->host_free;
}

/* The batch slots: the backend's pinned memory where uploads overlap, else the heap's. */
static int slots_alloc(struct pipeline *p, size_t bytes)
{
	if (!p->overlap) {
		p->slots = malloc(bytes);
		return p->slots ? 0 : RT_ENOMEM;
	}
	void *at = NULL;
	int rc = p->be->host_alloc(p->ctx, bytes, &at);
	p->slots = at;
	return rc;
}

static int pipeline_start(struct pipeline *p, const struct dims *d, rt_dtype t,
			  int workers, const rt_backend_ops *be, rt_ctx *ctx, char *err,
			  size_t errlen)
{
	size_t sample = (size_t)d->T * d->D;
	p->B = d->B;
	p->T = d->T;
	p->D = d->D;
	p->t = t;
	p->workers = workers;
	p->depth = workers == 0 ? 1 : workers + 1 < 2 ? 2 : workers + 1 > 4 ? 4 : workers + 1;
	p->sample_bytes = sample * rt_dtype_size(t);
	p->pool_n = (int)(TF_POOL_BYTES / sizeof(double) / sample);
	p->pool_n = p->pool_n < 1 ? 1 : p->pool_n > TF_POOL_MAX ? TF_POOL_MAX : p->pool_n;
	int nscratch = workers > 0 ? workers : 1;
	p->be = be;
	p->ctx = ctx;
	p->overlap = overlaps(be);
	p->in_flight = -1;
	p->pool = malloc((size_t)p->pool_n * sample * sizeof *p->pool);
	int slots_rc = slots_alloc(p, (size_t)p->depth * p->B * p->sample_bytes);
	p->scratch = malloc((size_t)nscratch * d->D * sizeof *p->scratch);
	p->done = calloc((size_t)p->depth, sizeof *p->done);
	p->tid = calloc((size_t)nscratch, sizeof *p->tid);
	p->args = calloc((size_t)nscratch, sizeof *p->args);
	if (!p->pool || slots_rc || !p->scratch || !p->done || !p->tid || !p->args)
		return rt_fail(err, errlen, RT_ENOMEM,
			       "cannot allocate the data pipeline's %d batch buffers",
			       p->depth);
	rt_rng r;
	rt_rng_seed(&r, TF_SEED + 1);
	for (size_t i = 0; i < (size_t)p->pool_n * sample; i++)
		p->pool[i] = rt_rng_normal(&r);
	calibrate(p, d->prep_us);
	if (workers == 0)
		return 0;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->sync_ready = 1;
	for (int i = 0; i < workers; i++) {
		p->args[i] = (struct worker_arg){p, p->scratch + (size_t)i * d->D};
		if (rt_pool_thread_start(&p->tid[i], worker_main, &p->args[i]) != 0)
			return rt_fail(err, errlen, RT_ERUNTIME,
				       "cannot start data worker %d of %d", i + 1, workers);
		p->started++;
	}
	return 0;
}

/*
 * Takes the next batch: prepares it here when there are no workers, else
 * waits for the workers to finish it. Returns its slot.
 */
static int batch_take(struct pipeline *p)
{
	if (p->workers == 0) {
		for (int i = 0; i < p->B; i++)
			prep_sample(p, p->taken * p->B + i, p->work,
				    p->slots + (size_t)i * p->sample_bytes, p->scratch);
		p->taken++;
		return 0;
	}
	int slot = (int)(p->taken++ % p->depth);
	pthread_mutex_lock(&p->mu);
	while (p->done[slot] < p->B)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return slot;
}

/* Gives the oldest batch taken back: its copy is done, the workers may refill its slot. */
static void batch_give_back(struct pipeline *p, int slot)
{
	if (p->workers == 0) {
		p->consumed++;
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->done[slot] = 0;
	p->consumed++;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static unsigned char *slot_at(const struct pipeline *p, int slot)
{
	return p->slots + (size_t)slot * p->B * p->sample_bytes;
}

/* The next batch uploaded to dst, waiting for the copy. */
static int pipeline_next(struct pipeline *p, void *dst)
{
	int slot = batch_take(p);
	int rc = p->be->upload(p->ctx, dst, slot_at(p, slot), (size_t)p->B * p->sample_bytes);
	batch_give_back(p, slot);
	return rc;
}

/*
 * With overlapping uploads, as a DataLoader with pinned memory: this step's
 * batch went to *cur during the last step (the first step uploads its own
 * and waits); the next batch goes to *next now, its copy running beside
 * this step's kernels (which read *cur only) and finished by the wait that
 * ends the step. The buffers then trade places for the next step.
 */
static int pipeline_overlapped(struct pipeline *p, size_t *cur, size_t *next, void *base,
			       size_t es)
{
	const size_t bytes = (size_t)p->B * p->sample_bytes;
	if (p->in_flight >= 0) /* the last step's wait finished its copy */
		batch_give_back(p, p->in_flight);
	p->in_flight = -1;
	if (!p->primed) {
		RT_TRY(pipeline_next(p, (char *)base + *cur * es));
		p->primed = 1;
	} else {
		size_t t = *cur;
		*cur = *next;
		*next = t;
	}
	int slot = batch_take(p);
	p->in_flight = slot;
	return p->be->upload_async(p->ctx, (char *)base + *next * es, slot_at(p, slot), bytes);
}

/* ---- The model on the backend ---- */

struct tf {
	const rt_backend_ops *be;
	rt_ctx *ctx;
	struct dims d;
	rt_dtype t;
	rt_precision prec;
	size_t es;              /* bytes per element */
	struct params p;        /* offsets into w, g, m, v */
	struct acts a;          /* offsets into act */
	void *w, *g, *m, *v;    /* parameters, gradients, Adam moments */
	void *act;              /* activation arena */
	int adam_step;
	double flops;
	int phase;              /* PH_NONE between steps */
	double phase_t0;
	double phase_s[NPH];
	struct pipeline pipe;
};

static void *P(const struct tf *s, size_t off) { return (char *)s->w + off * s->es; }
static void *G(const struct tf *s, size_t off) { return (char *)s->g + off * s->es; }
static void *A(const struct tf *s, size_t off) { return (char *)s->act + off * s->es; }

/*
 * 1 when phase ph is timed by the backend's marks on the device: every
 * phase but the host's data stage, on a backend that has them.
 */
static int marked(const struct tf *s, int ph)
{
	return s->be->phase_mark && ph != PH_NONE && ph != PH_DATA;
}

/*
 * Moves the step into phase ph. Between two device phases of a backend
 * with phase marks it only enqueues a mark (the device's events time the
 * phase; the host does not wait), and leaving the host's data stage for
 * them it reads the host's clock without waiting (the batch's upload is
 * done, or overlaps the step). Without marks it waits for the backend at
 * every change and charges the time since the last one to the old phase,
 * which keeps a queue full inside a phase. Leaving the marked phases closes
 * the marks, which waits and adds their device seconds.
 */
static int enter(struct tf *s, int ph)
{
	if (ph == s->phase)
		return 0;
	int rc = 0, was_marked = marked(s, s->phase);
	if (was_marked && marked(s, ph)) {
		s->phase = ph;
		return s->be->phase_mark(s->ctx, ph, NULL, 0);
	}
	if (was_marked)
		rc = s->be->phase_mark(s->ctx, RT_PHASE_END, s->phase_s, NPH);
	else if (s->phase != PH_NONE && !s->be->phase_mark)
		rc = s->be->synchronize(s->ctx);
	double now = rt_now();
	if (s->phase != PH_NONE && !was_marked)
		s->phase_s[s->phase] += now - s->phase_t0;
	if (!rc && marked(s, ph))
		rc = s->be->phase_mark(s->ctx, ph, NULL, 0);
	s->phase_t0 = now;
	s->phase = ph;
	return rc;
}

static int gemm(struct tf *s, int ta, int tb, int m, int n, int k, const void *a,
		int lda, const void *b, int ldb, double beta, void *c, int ldc)
{
	return s->be->gemm(s->ctx, s->t, s->prec, ta, tb, m, n, k, 1.0, a, lda, b, ldb,
			   beta, c, ldc);
}

/*
 * One head-loop of attention GEMMs: for every head h, the B independent
 * products of [T x .] blocks whose head-h columns start at element
 * offsets a + h*ah, b + h*bh, c + h*ch (row strides lda, ldb, ldc; one
 * sequence further is sa, sb, sc elements).
 */
struct headmm {
	int ta, tb, m, n, k;
	const void *a;
	int lda;
	long ah, sa;
	const void *b;
	int ldb;
	long bh, sb;
	void *c;
	int ldc;
	long ch, sc;
};

/*
 * The heads x sequences of g in one call where the backend has
 * gemm_batched2 (the heads the outer level), else one gemm_batched per
 * head; the same GEMMs in the same order either way.
 */
static int gemm_heads(struct tf *s, const struct headmm *g)
{
	if (s->be->gemm_batched2) {
		const rt_batch2 bt = {s->d.H, s->d.B, g->ah, g->sa, g->bh, g->sb, g->ch, g->sc};
		return s->be->gemm_batched2(s->ctx, s->t, s->prec, g->ta, g->tb, g->m, g->n, g->k,
					    1.0, g->a, g->lda, g->b, g->ldb, 0.0, g->c, g->ldc, &bt);
	}
	for (int h = 0; h < s->d.H; h++)
		RT_TRY(s->be->gemm_batched(
			s->ctx, s->t, s->prec, g->ta, g->tb, g->m, g->n, g->k, 1.0,
			(const char *)g->a + h * g->ah * (long)s->es, g->lda, g->sa,
			(const char *)g->b + h * g->bh * (long)s->es, g->ldb, g->sb, 0.0,
			(char *)g->c + h * g->ch * (long)s->es, g->ldc, g->sc, s->d.B));
	return 0;
}

/*
 * y[N][n] = x[N][k] w[k][n] + b (the bias add counts as part of the GEMM),
 * in one call where the backend fuses the bias into its GEMM.
 */
static int linear_fwd(struct tf *s, size_t x, size_t w, size_t b, size_t y, int k, int n)
{
	RT_TRY(enter(s, PH_GEMM));
	if (s->be->linear_fwd)
		return s->be->linear_fwd(s->ctx, s->t, s->prec, s->d.N, n, k, A(s, x), P(s, w),
					 P(s, b), A(s, y), NULL);
	RT_TRY(gemm(s, 0, 0, s->d.N, n, k, A(s, x), k, P(s, w), n, 0.0, A(s, y), n));
	return s->be->add_bias(s->ctx, s->t, s->d.N, n, P(s, b), A(s, y));
}

/*
 * u[N][n] = x[N][k] w[k][n] + b and a = gelu(u): the MLP's up-projection.
 * A backend with linear_fwd does all three in its GEMM's epilogue (counted
 * as the GEMM); else one with bias_gelu adds the bias and applies GELU in
 * one pass (elementwise), as frameworks fuse them; else the bias counts as
 * part of the GEMM and GELU follows.
 */
static int linear_gelu_fwd(struct tf *s, size_t x, size_t w, size_t b, size_t u, size_t a,
			   int k, int n)
{
	if (s->be->linear_fwd) {
		RT_TRY(enter(s, PH_GEMM));
		return s->be->linear_fwd(s->ctx, s->t, s->prec, s->d.N, n, k, A(s, x), P(s, w),
					 P(s, b), A(s, u), A(s, a));
	}
	if (!s->be->bias_gelu) {
		RT_TRY(linear_fwd(s, x, w, b, u, k, n));
		RT_TRY(enter(s, PH_ELEM));
		return s->be->gelu(s->ctx, s->t, (size_t)s->d.N * n, A(s, u), A(s, a));
	}
	RT_TRY(enter(s, PH_GEMM));
	RT_TRY(gemm(s, 0, 0, s->d.N, n, k, A(s, x), k, P(s, w), n, 0.0, A(s, u), n));
	RT_TRY(enter(s, PH_ELEM));
	return s->be->bias_gelu(s->ctx, s->t, s->d.N, n, P(s, b), A(s, u), A(s, a));
}

/*
 * y[N][D] = res + x[N][k] w[k][D] + b: a residual connection around a
 * linear layer. res is copied into y and the GEMM adds onto it (beta = 1),
 * which streams y fewer times than a GEMM that first clears y followed by a
 * residual add reading both.
 */
static int residual_linear_fwd(struct tf *s, size_t res, size_t x, size_t w, size_t b,
			       size_t y, int k)
{
	int D = s->d.D;
	RT_TRY(enter(s, PH_ELEM));
	RT_TRY(s->be->axpby(s->ctx, s->t, (size_t)s->d.N * D, 1.0, A(s, res), 0.0, A(s, y)));
	RT_TRY(enter(s, PH_GEMM));
	RT_TRY(gemm(s, 0, 0, s->d.N, D, k, A(s, x), k, P(s, w), D, 1.0, A(s, y), D));
	return s->be->add_bias(s->ctx, s->t, s->d.N, D, P(s, b), A(s, y));
}

/*
 * From dy: db = column sums of dy, dw = x^T dy, dx = dy w^T. The sums come
 * first, right after the kernel that wrote dy: on the CPU its pool is still
 * awake then and dy still in cache, and the two GEMMs follow one another
 * with OpenBLAS's threads awake.
 */
static int linear_bwd(struct tf *s, size_t x, size_t w, size_t b, size_t dy, size_t dx,
		      int k, int n)
{
	RT_TRY(enter(s, PH_GEMM));
	RT_TRY(s->be->sum_rows(s->ctx, s->t, s->d.N, n, A(s, dy), G(s, b)));
	RT_TRY(gemm(s, 1, 0, k, n, s->d.N, A(s, x), k, A(s, dy), n, 0.0, G(s, w), n));
	return gemm(s, 0, 1, s->d.N, k, n, A(s, dy), n, P(s, w), n, 0.0, A(s, dx), k);
}

static int layernorm_fwd(struct tf *s, size_t x, size_t g, size_t b, size_t y,
			 size_t mean, size_t rstd)
{
	RT_TRY(enter(s, PH_ELEM));
	return s->be->layernorm(s->ctx, s->t, s->d.N, s->d.D, A(s, x), P(s, g), P(s, b),
				A(s, y), A(s, mean), A(s, rstd));
}

static int layernorm_bwd(struct tf *s, size_t x, size_t g, size_t b, size_t mean,
			 size_t rstd, size_t dy, size_t dx)
{
	RT_TRY(enter(s, PH_ELEM));
	return s->be->layernorm_backward(s->ctx, s->t, s->d.N, s->d.D, A(s, x), P(s, g),
					 A(s, mean), A(s, rstd), A(s, dy), A(s, dx),
					 G(s, g), G(s, b));
}

/* y += x, both N x D (residual connections and their gradients). */
static int add_into(struct tf *s, size_t x, size_t y)
{
	RT_TRY(enter(s, PH_ELEM));
	return s->be->axpby(s->ctx, s->t, (size_t)s->d.N * s->d.D, 1.0, A(s, x), 1.0,
			    A(s, y));
}

static double attn_scale(const struct dims *d) { return 1.0 / sqrt((double)d->dh); }

/*
 * Causal self-attention of one block from its qkv [N][3D]: per head,
 * scores = q k^T, probs = softmax(scale * scores) with the causal mask,
 * ctx = probs v. The scores go to scratch; probs stay for the backward pass.
 */
static int attention_fwd(struct tf *s, const struct layer_act *a)
{
	const struct dims *d = &s->d;
	long D = d->D, T = d->T, TT = T * T, row3 = 3 * D, seq3 = T * 3 * D;
	RT_TRY(enter(s, PH_ATTN));
	struct headmm qk = {0, 1, d->T, d->T, d->dh, A(s, a->qkv), (int)row3, d->dh, seq3,
			    A(s, a->qkv + D), (int)row3, d->dh, seq3,
			    A(s, s->a.att_a), d->T, TT, d->H * TT};
	RT_TRY(gemm_heads(s, &qk));
	RT_TRY(s->be->softmax(s->ctx, s->t, d->B * d->H * d->T, d->T, attn_scale(d), d->T,
			   A(s, s->a.att_a), A(s, a->probs)));
	struct headmm pv = {0, 0, d->T, d->dh, d->T, A(s, a->probs), d->T, TT, d->H * TT,
			    A(s, a->qkv + 2 * D), (int)row3, d->dh, seq3,
			    A(s, a->ctx), d->D, d->dh, T * D};
	return gemm_heads(s, &pv);
}

/*
 * Backward of attention_fwd: from dctx (in scratch) writes dqkv. dprobs =
 * dctx v^T and dv = probs^T dctx; dscores through the softmax; then
 * dq = dscores k and dk = dscores^T q.
 */
static int attention_bwd(struct tf *s, const struct layer_act *a)
{
	const struct dims *d = &s->d;
	const struct acts *x = &s->a;
	long D = d->D, T = d->T, TT = T * T, row3 = 3 * D, seq3 = T * 3 * D;
	RT_TRY(enter(s, PH_ATTN));
	struct headmm dp = {0, 1, d->T, d->T, d->dh, A(s, x->dctx), d->D, d->dh, T * D,
			    A(s, a->qkv + 2 * D), (int)row3, d->dh, seq3,
			    A(s, x->att_a), d->T, TT, d->H * TT};
	RT_TRY(gemm_heads(s, &dp));
	struct headmm dv = {1, 0, d->T, d->dh, d->T, A(s, a->probs), d->T, TT, d->H * TT,
			    A(s, x->dctx), d->D, d->dh, T * D,
			    A(s, x->dqkv + 2 * D), (int)row3, d->dh, seq3};
	RT_TRY(gemm_heads(s, &dv));
	RT_TRY(s->be->softmax_backward(s->ctx, s->t, d->B * d->H * d->T, d->T, attn_scale(d),
				    A(s, a->probs), A(s, x->att_a), A(s, x->att_b)));
	struct headmm dq = {0, 0, d->T, d->dh, d->T, A(s, x->att_b), d->T, TT, d->H * TT,
			    A(s, a->qkv + D), (int)row3, d->dh, seq3,
			    A(s, x->dqkv), (int)row3, d->dh, seq3};
	RT_TRY(gemm_heads(s, &dq));
	struct headmm dk = {1, 0, d->T, d->dh, d->T, A(s, x->att_b), d->T, TT, d->H * TT,
			    A(s, a->qkv), (int)row3, d->dh, seq3,
			    A(s, x->dqkv + D), (int)row3, d->dh, seq3};
	return gemm_heads(s, &dk);
}

/* x1 = x + attn(ln1(x)); y = x1 + mlp(ln2(x1)). */
static int block_fwd(struct tf *s, int l)
{
	const struct layer_par *p = &s->p.layer[l];
	const struct layer_act *a = &s->a.layer[l];
	int D = s->d.D, F = s->d.F;
	RT_TRY(layernorm_fwd(s, a->x, p->ln1_g, p->ln1_b, a->h1, a->mean1, a->rstd1));
	RT_TRY(linear_fwd(s, a->h1, p->w_qkv, p->b_qkv, a->qkv, D, 3 * D));
	RT_TRY(attention_fwd(s, a));
	RT_TRY(residual_linear_fwd(s, a->x, a->ctx, p->w_o, p->b_o, a->x1, D));
	RT_TRY(layernorm_fwd(s, a->x1, p->ln2_g, p->ln2_b, a->h2, a->mean2, a->rstd2));
	RT_TRY(linear_gelu_fwd(s, a->h2, p->w_1, p->b_1, a->u, a->a, D, F));
	return residual_linear_fwd(s, a->x1, a->a, p->w_2, p->b_2, a->y, F);
}

/*
 * Backward of block_fwd. On entry scratch dx holds dL/dy; on return it holds
 * dL/dx, except for the first block (l == 0), whose input needs none.
 */
static int block_bwd(struct tf *s, int l)
{
	const struct layer_par *p = &s->p.layer[l];
	const struct layer_act *a = &s->a.layer[l];
	const struct acts *x = &s->a;
	int D = s->d.D, F = s->d.F;
	RT_TRY(linear_bwd(s, a->a, p->w_2, p->b_2, x->dx, x->dff_a, F, D));
	RT_TRY(enter(s, PH_ELEM));
	RT_TRY(s->be->gelu_backward(s->ctx, s->t, (size_t)s->d.N * F, A(s, a->u),
				 A(s, x->dff_a), A(s, x->dff_b)));
	RT_TRY(linear_bwd(s, a->h2, p->w_1, p->b_1, x->dff_b, x->dh, D, F));
	RT_TRY(layernorm_bwd(s, a->x1, p->ln2_g, p->ln2_b, a->mean2, a->rstd2, x->dh, x->dres));
	RT_TRY(add_into(s, x->dres, x->dx));
	RT_TRY(linear_bwd(s, a->ctx, p->w_o, p->b_o, x->dx, x->dctx, D, D));
	RT_TRY(attention_bwd(s, a));
	RT_TRY(linear_bwd(s, a->h1, p->w_qkv, p->b_qkv, x->dqkv, x->dh, D, 3 * D));
	RT_TRY(layernorm_bwd(s, a->x, p->ln1_g, p->ln1_b, a->mean1, a->rstd1, x->dh, x->dres));
	return l > 0 ? add_into(s, x->dres, x->dx) : 0;
}

/* Targets from the input batch, the blocks, the head and the loss. */
static int forward(struct tf *s)
{
	const struct acts *a = &s->a;
	int D = s->d.D;
	RT_TRY(enter(s, PH_GEMM));
	RT_TRY(gemm(s, 0, 0, s->d.N, D, D, A(s, a->layer[0].x), D, A(s, a->w_target), D, 0.0,
		 A(s, a->target), D));
	for (int l = 0; l < s->d.L; l++)
		RT_TRY(block_fwd(s, l));
	RT_TRY(layernorm_fwd(s, a->xf, s->p.lnf_g, s->p.lnf_b, a->hf, a->meanf, a->rstdf));
	RT_TRY(linear_fwd(s, a->hf, s->p.w_out, s->p.b_out, a->out, D, D));
	RT_TRY(enter(s, PH_ELEM));
	/* dL/dout goes to scratch dres, the head's incoming gradient */
	return s->be->mse_loss(s->ctx, s->t, (size_t)s->d.N * D, A(s, a->out),
			       A(s, a->target), A(s, a->loss), A(s, a->dres));
}

/* Every gradient into g (layer norms accumulate, so g is cleared first). */
static int backward(struct tf *s)
{
	const struct acts *a = &s->a;
	RT_TRY(enter(s, PH_ELEM));
	RT_TRY(s->be->fill(s->ctx, s->t, s->g, s->p.n, 0.0));
	RT_TRY(linear_bwd(s, a->hf, s->p.w_out, s->p.b_out, a->dres, a->dh, s->d.D, s->d.D));
	RT_TRY(layernorm_bwd(s, a->xf, s->p.lnf_g, s->p.lnf_b, a->meanf, a->rstdf, a->dh, a->dx));
	for (int l = s->d.L - 1; l >= 0; l--)
		RT_TRY(block_bwd(s, l));
	return 0;
}

static int optimize(struct tf *s)
{
	RT_TRY(enter(s, PH_OPT));
	s->adam_step++;
	return s->be->adam(s->ctx, s->t, s->p.n, s->w, s->g, s->m, s->v, TF_LR, TF_B1,
			   TF_B2, TF_EPS, s->adam_step);
}

/*
 * One pass over the next batch: data, forward, backward and, when update is
 * set, the optimizer. Phase seconds land in s->phase_s.
 */
static int train_pass(struct tf *s, int update, char *err, size_t errlen)
{
	memset(s->phase_s, 0, sizeof s->phase_s);
	s->phase = PH_NONE;
	int rc = enter(s, PH_DATA);
	if (!rc)
		rc = s->pipe.overlap ? pipeline_overlapped(&s->pipe, &s->a.layer[0].x, &s->a.x_next,
							   s->act, s->es)
				     : pipeline_next(&s->pipe, A(s, s->a.layer[0].x));
	if (!rc)
		rc = forward(s);
	if (!rc)
		rc = backward(s);
	if (!rc && update)
		rc = optimize(s);
	int failed_in = s->phase;
	if (!rc)
		rc = enter(s, PH_NONE);
	if (rc)
		return rt_fail(err, errlen, rc, "transformer step: a backend operation failed "
			       "in the %s phase (%s) %s",
			       failed_in < NPH ? phase_names[failed_in] : "final",
			       rt_strstatus(rc), rt_backend_why(s->be, s->ctx));
	return 0;
}

/* ---- The workload interface ---- */

static int tf_check(const rt_point *pt, const rt_shape *sh, char *err, size_t errlen)
{
	if (sh->n != NKEYS)
		return rt_fail(err, errlen, RT_EINVAL,
			       "transformer takes %d shape values, got %d", NKEYS, sh->n);
	for (int i = 0; i < NKEYS; i++)
		if (sh->v[i] < keys[i].min || sh->v[i] > keys[i].max)
			return rt_fail(err, errlen, RT_EINVAL,
				       "transformer %s=%ld is outside [%ld, %ld]", keys[i].name,
				       sh->v[i], keys[i].min, keys[i].max);
	if (sh->v[K_DMODEL] % sh->v[K_HEADS] != 0)
		return rt_fail(err, errlen, RT_EINVAL,
			       "transformer d_model=%ld is not a multiple of heads=%ld",
			       sh->v[K_DMODEL], sh->v[K_HEADS]);
	if (pt->batch < 1 || pt->threads < 1 || pt->workers < 0)
		return rt_fail(err, errlen, RT_EINVAL,
			       "transformer needs batch >= 1, threads >= 1 and workers >= 0 "
			       "(got %d, %d, %d)", pt->batch, pt->threads, pt->workers);
	if ((unsigned)pt->precision >= RT_NPRECISION)
		return rt_fail(err, errlen, RT_EINVAL, "unknown precision %d", (int)pt->precision);
	/* backend kernels take row counts as int: B*H*T softmax rows is the largest */
	if ((double)pt->batch * sh->v[K_HEADS] * sh->v[K_SEQ] > 2147483647.0)
		return rt_fail(err, errlen, RT_EINVAL,
			       "transformer batch x heads x seq_len = %.0f exceeds 2^31 - 1",
			       (double)pt->batch * sh->v[K_HEADS] * sh->v[K_SEQ]);
	return 0;
}

/*
 * Backend bytes: parameters, their gradients and two Adam moments, plus the
 * activation arena (what the backward pass keeps, the head, scratch). The
 * host staging of the data pipeline is not counted (one or a few input
 * batches, a few percent of the activations).
 */
static uint64_t tf_mem_bytes(const rt_point *pt, const rt_shape *sh)
{
	struct dims d;
	struct params p = {0};
	struct acts a = {0};
	dims_from(pt, sh, &d);
	param_layout(&d, &p);
	act_layout(&d, &a);
	return (uint64_t)(4 * p.n + a.n) * rt_dtype_size(rt_precision_dtype(pt->precision));
}

static void tf_teardown(void *state)
{
	struct tf *s = state;
	if (!s)
		return;
	pipeline_stop(&s->pipe);
	if (s->ctx) {
		void *bufs[] = {s->act, s->v, s->m, s->g, s->w};
		for (size_t i = 0; i < RT_COUNT(bufs); i++)
			if (bufs[i])
				s->be->free(s->ctx, bufs[i]);
		s->be->close(s->ctx);
	}
	free(s->a.layer);
	free(s->p.layer);
	free(s);
}

/* Converts n doubles to the storage dtype and uploads them to dst. */
static int upload_doubles(struct tf *s, void *dst, const double *src, size_t n)
{
	if (s->t == RT_F64)
		return s->be->upload(s->ctx, dst, src, n * sizeof *src);
	float *f = malloc(n * sizeof *f);
	if (!f)
		return RT_ENOMEM;
	for (size_t i = 0; i < n; i++)
		f[i] = (float)src[i];
	int rc = s->be->upload(s->ctx, dst, f, n * sizeof *f);
	free(f);
	return rc;
}

/* Downloads n elements of the storage dtype from src as doubles. */
static int download_doubles(struct tf *s, double *dst, const void *src, size_t n)
{
	if (s->t == RT_F64)
		return s->be->download(s->ctx, dst, src, n * sizeof *dst);
	float *f = malloc(n * sizeof *f);
	if (!f)
		return RT_ENOMEM;
	int rc = s->be->download(s->ctx, f, src, n * sizeof *f);
	for (size_t i = 0; !rc && i < n; i++)
		dst[i] = f[i];
	free(f);
	return rc;
}

/* Fills x[off .. off+n) with scale * N(0, 1) + shift (near-normal: cheap for 10^8 weights). */
static void randn(rt_rng *r, double *x, size_t off, size_t n, double scale, double shift)
{
	for (size_t i = 0; i < n; i++)
		x[off + i] = shift + scale * rt_rng_normal_approx(r);
}

/*
 * Weights from the seed: matrices N(0, 1/fan_in), layer-norm gains near 1,
 * biases and shifts small but nonzero; the target map N(0, 1/D). Adam's
 * moments start at zero.
 */
static int init_weights(struct tf *s)
{
	size_t D = (size_t)s->d.D, F = (size_t)s->d.F;
	double *h = malloc((s->p.n > D * D ? s->p.n : D * D) * sizeof *h);
	if (!h)
		return RT_ENOMEM;
	rt_rng r;
	rt_rng_seed(&r, TF_SEED);
	double sd = 1.0 / sqrt((double)D), sf = 1.0 / sqrt((double)F);
	for (int l = 0; l < s->d.L; l++) {
		const struct layer_par *q = &s->p.layer[l];
		randn(&r, h, q->ln1_g, D, 0.1, 1.0);
		randn(&r, h, q->ln1_b, D, 0.02, 0.0);
		randn(&r, h, q->w_qkv, D * 3 * D, sd, 0.0);
		randn(&r, h, q->b_qkv, 3 * D, 0.02, 0.0);
		randn(&r, h, q->w_o, D * D, sd, 0.0);
		randn(&r, h, q->b_o, D, 0.02, 0.0);
		randn(&r, h, q->ln2_g, D, 0.1, 1.0);
		randn(&r, h, q->ln2_b, D, 0.02, 0.0);
		randn(&r, h, q->w_1, D * F, sd, 0.0);
		randn(&r, h, q->b_1, F, 0.02, 0.0);
		randn(&r, h, q->w_2, F * D, sf, 0.0);
		randn(&r, h, q->b_2, D, 0.02, 0.0);
	}
	randn(&r, h, s->p.lnf_g, D, 0.1, 1.0);
	randn(&r, h, s->p.lnf_b, D, 0.02, 0.0);
	randn(&r, h, s->p.w_out, D * D, sd, 0.0);
	randn(&r, h, s->p.b_out, D, 0.02, 0.0);
	int rc = upload_doubles(s, s->w, h, s->p.n);
	if (!rc) {
		randn(&r, h, 0, D * D, sd, 0.0);
		rc = upload_doubles(s, A(s, s->a.w_target), h, D * D);
	}
	free(h);
	RT_TRY(rc);
	RT_TRY(s->be->fill(s->ctx, s->t, s->m, s->p.n, 0.0));
	RT_TRY(s->be->fill(s->ctx, s->t, s->v, s->p.n, 0.0));
	return s->be->synchronize(s->ctx);
}

/* Allocates the four parameter-sized buffers and the activation arena. */
static int alloc_buffers(struct tf *s, char *err, size_t errlen)
{
	size_t pb = s->p.n * s->es;
	void **bufs[] = {&s->w, &s->g, &s->m, &s->v};
	for (size_t i = 0; i < RT_COUNT(bufs); i++)
		if (s->be->alloc(s->ctx, pb, bufs[i]))
			return rt_fail(err, errlen, RT_EINFEASIBLE,
				       "cannot allocate %.1f MiB of parameters on %s",
				       (double)pb / (1 << 20), s->be->name);
	if (s->be->alloc(s->ctx, s->a.n * s->es, &s->act))
		return rt_fail(err, errlen, RT_EINFEASIBLE,
			       "cannot allocate %.1f MiB of activations on %s",
			       (double)(s->a.n * s->es) / (1 << 20), s->be->name);
	return 0;
}

static int tf_setup(const rt_point *pt, const rt_shape *sh, const rt_backend_ops *be,
		    void **state, char *err, size_t errlen)
{
	*state = NULL;
	RT_TRY(tf_check(pt, sh, err, errlen));
	struct tf *s = calloc(1, sizeof *s);
	if (!s)
		return rt_fail(err, errlen, RT_ENOMEM, "out of memory");
	s->be = be;
	s->phase = PH_NONE;
	dims_from(pt, sh, &s->d);
	s->t = rt_precision_dtype(pt->precision);
	s->es = rt_dtype_size(s->t);
	s->prec = pt->precision;
	s->flops = step_flops(&s->d);
	int rc = rt_backend_open_checked(be, pt->device, pt->threads, pt->precision,
					 tf_mem_bytes(pt, sh), &s->ctx, err, errlen);
	if (rc)
		goto fail;
	s->p.layer = calloc((size_t)s->d.L, sizeof *s->p.layer);
	s->a.layer = calloc((size_t)s->d.L, sizeof *s->a.layer);
	if (!s->p.layer || !s->a.layer) {
		rc = rt_fail(err, errlen, RT_ENOMEM, "out of memory");
		goto fail;
	}
	param_layout(&s->d, &s->p);
	act_layout(&s->d, &s->a);
	rc = alloc_buffers(s, err, errlen);
	if (rc)
		goto fail;
	rc = init_weights(s);
	if (rc) {
		rc = rt_fail(err, errlen, rc, "cannot initialize the transformer weights (%s)",
			     rt_strstatus(rc));
		goto fail;
	}
	rc = pipeline_start(&s->pipe, &s->d, s->t, pt->workers, be, s->ctx, err, errlen);
	if (rc)
		goto fail;
	*state = s;
	return 0;
fail:
	tf_teardown(s);
	return rc;
}

static rt_ctx *tf_context(void *state)
{
	return ((struct tf *)state)->ctx;
}

static int tf_step(void *state, rt_step_result *out, char *err, size_t errlen)
{
	struct tf *s = state;
	RT_TRY(train_pass(s, 1, err, errlen));
	memset(out, 0, sizeof *out);
	out->items = s->d.B;
	out->flops = s->flops;
	for (int i = 0; i < NPH; i++)
		out->phase[i] = s->phase_s[i];
	return 0;
}

/* Tokens per second: samples are sequences of seq_len tokens. */
static int tf_derive(const rt_point *pt, const rt_shape *sh, double items_per_s,
		     const double *phase_seconds, int usable_cores, rt_derived *out,
		     char *sentence, size_t len)
{
	(void)pt, (void)phase_seconds, (void)usable_cores;
	out[0] = (rt_derived){"tokens_per_s", items_per_s * (double)sh->v[K_SEQ]};
	if (len)
		sentence[0] = '\0';
	return 1;
}

/* The batch and the data loading of the point, as PyTorch's DataLoader takes them. */
static int tf_hints(rt_hint_lib lib, const rt_point *pt, const rt_shape *sh,
		    const rt_hint_cost *cost, char (*lines)[RT_HINT_LEN], int max)
{
	(void)sh;
	(void)cost;
	if (lib != RT_HINT_PYTORCH || max < 1)
		return 0;
	snprintf(lines[0], RT_HINT_LEN, "DataLoader(batch_size=%d, num_workers=%d%s)", pt->batch,
		 pt->workers, pt->workers ? ", persistent_workers=True" : "");
	return 1;
}

/*
 * The GEMMs of a step whose rows grow with the batch (m = batch * seq_len):
 * the QKV projection (k = d_model, n = 3 d_model) and the MLP's up-projection
 * (k = d_model, n = d_ff). The attention score GEMMs (seq_len x seq_len per
 * head) do not grow with the batch, and the output projection (n = d_model)
 * is smaller than QKV, so these two are the ones a batch must lift.
 */
static int tf_step_gemms(const rt_shape *sh, rt_gemm_dims *out, long *rows_per_sample)
{
	*rows_per_sample = sh->v[K_SEQ];
	out[0] = (rt_gemm_dims){"qkv", "qkv", sh->v[K_DMODEL], 3 * sh->v[K_DMODEL]};
	out[1] = (rt_gemm_dims){"ffn_up", "ffn", sh->v[K_DMODEL], sh->v[K_DFF]};
	return 2;
}

const rt_workload rt_workload_transformer = {
	.name = "transformer",
	.unit = "samples/s",
	.summary = "one training step of pre-LN transformer blocks (causal attention, GELU "
		   "MLP, MSE loss, backward, Adam) on batches prepared by `workers`; adds "
		   "tokens/s",
	.knobs = RT_KNOB_BIT(batch) | RT_KNOB_BIT(workers),
	.budget_weight = 2.0,
	.knee = "batch",
	.derive = tf_derive,
	.hints = tf_hints,
	.step_gemms = tf_step_gemms,
	.keys = keys,
	.nkeys = NKEYS,
	.phase_names = phase_names,
	.nphases = NPH,
	.host_phases = 1u << PH_DATA,
	.check = tf_check,
	.mem_bytes = tf_mem_bytes,
	.setup = tf_setup,
	.step = tf_step,
	.teardown = tf_teardown,
	.context = tf_context,
};

/* ---- Test hooks ---- */

size_t rt_transformer_nparams(const void *state)
{
	return ((const struct tf *)state)->p.n;
}

int rt_transformer_last_loss(void *state, double *loss, char *err, size_t errlen)
{
	struct tf *s = state;
	int rc = download_doubles(s, loss, A(s, s->a.loss), 1);
	return rc ? rt_fail(err, errlen, rc, "cannot download the loss") : 0;
}

int rt_transformer_loss_and_grads(void *state, double *loss, double *params,
				  double *grads, double *input, double *target,
				  char *err, size_t errlen)
{
	struct tf *s = state;
	size_t nd = (size_t)s->d.N * s->d.D;
	RT_TRY(train_pass(s, 0, err, errlen));
	int rc = 0;
	if (!rc && loss)
		rc = download_doubles(s, loss, A(s, s->a.loss), 1);
	if (!rc && params)
		rc = download_doubles(s, params, s->w, s->p.n);
	if (!rc && grads)
		rc = download_doubles(s, grads, s->g, s->p.n);
	if (!rc && input)
		rc = download_doubles(s, input, A(s, s->a.layer[0].x), nd);
	if (!rc && target)
		rc = download_doubles(s, target, A(s, s->a.target), nd);
	return rc ? rt_fail(err, errlen, rc, "cannot download the transformer state") : 0;
}
