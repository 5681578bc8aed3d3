/*
 * cpu_kernels_t.h: the body of the CPU kernels for one storage type,
 * included twice by cpu_kernels.c (no include guard, on purpose) with:
 *   T        float or double
 *   FN(name) name with the type's suffix (name_f32, name_f64)
 *   EXP, TANH, SQRT  the exp, tanh and sqrt of T (EXP and TANH are
 *            approximations for float, see fast_expf and fast_tanhf; EXP's
 *            result is used only for arguments <= 0)
 * The math is in kernels.h. Each kernel is a pool job over items [b, e)
 * (elements, rows or columns, as its dispatcher in cpu_kernels.c says) that
 * unpacks its kargs and calls a span or row function: gcc honours restrict
 * on parameters (not on locals loaded from a struct), and without it the
 * loops do not vectorize. The span and row functions hold the loops, and
 * are the ones compiled per instruction set (VEC_CLONES).
 */

VEC_CLONES static void FN(fill_span)(T *restrict x, size_t n, T v)
{
	VLOOP(i, 0, n, x[i] = v);
}

static void FN(fill)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(fill_span)((T *)a->y + b, e - b, (T)a->s[0]);
}

VEC_CLONES static void FN(axpby_span)(size_t n, T ca, const T *restrict x, T cb, T *restrict y)
{
	if (cb == 0)
		VLOOP(i, 0, n, y[i] = ca * x[i]);
	else
		VLOOP(i, 0, n, y[i] = ca * x[i] + cb * y[i]);
}

static void FN(axpby)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(axpby_span)(e - b, (T)a->s[0], (const T *)a->x + b, (T)a->s[1], (T *)a->y + b);
}

/* y[r][c] += x[c] for the rows rows of y (row stride cols). */
VEC_CLONES static void FN(add_rows_span)(size_t rows, size_t cols, const T *restrict x,
					 T *restrict y)
{
	for (size_t r = 0; r < rows; r++, y += cols)
		VLOOP(c, 0, cols, y[c] += x[c]);
}

/* Items are rows. */
static void FN(add_bias)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(add_rows_span)(e - b, a->cols, a->x, (T *)a->y + b * a->cols);
}

/*
 * acc[c] += dy[r][c] for c < w over `rows` rows of stride ld, in one pass
 * down the rows. Four rows at a time, added to acc[c] one after another in
 * row order (so the sums are those of a loop over single rows, with a
 * quarter of its loads and stores of acc).
 */
VEC_CLONES static void FN(colsum_span)(double *restrict acc, size_t w, const T *restrict dy,
				       size_t ld, size_t rows)
{
	size_t r = 0;
	for (; r + 4 <= rows; r += 4, dy += 4 * ld) {
		const T *restrict d1 = dy + ld, *restrict d2 = dy + 2 * ld, *restrict d3 = dy + 3 * ld;
		VLOOP(c, 0, w, acc[c] = acc[c] + (double)dy[c] + (double)d1[c] + (double)d2[c] +
				       (double)d3[c]);
	}
	for (; r < rows; r++, dy += ld)
		VLOOP(c, 0, w, acc[c] += (double)dy[c]);
}

/*
 * layernorm's parameter gradients for columns [0, w), in one pass down the
 * rows: ag[c] += dy[r][c] (x[r][c] - mean[r]) rstd[r], ab[c] += dy[r][c].
 */
VEC_CLONES static void FN(lnparams_span)(double *restrict ag, double *restrict ab, size_t w,
					 const T *restrict dy, const T *restrict x,
					 const T *restrict mean, const T *restrict rstd, size_t ld,
					 size_t rows)
{
	for (size_t r = 0; r < rows; r++, dy += ld, x += ld) {
		const T m = mean[r], rs = rstd[r];
		VLOOP(c, 0, w, {
			ag[c] += (double)(dy[c] * ((x[c] - m) * rs));
			ab[c] += (double)dy[c];
		});
	}
}

/* out[c] = (accumulate ? out[c] : 0) + acc[c], rounded to T, for c < w. */
static void FN(store_sums)(T *out, const double *acc, size_t w, int accumulate)
{
	for (size_t c = 0; c < w; c++)
		out[c] = (T)((accumulate ? (double)out[c] : 0.0) + acc[c]);
}

/* Items are columns: db[c] = sum_r dy[r][c], a tile of columns per pass down the rows. */
static void FN(sum_rows)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	double acc[COL_TILE];
	for (size_t c0 = b; c0 < e; c0 += COL_TILE) {
		const size_t w = e - c0 < COL_TILE ? e - c0 : COL_TILE;
		memset(acc, 0, w * sizeof *acc);
		FN(colsum_span)(acc, w, (const T *)a->x + c0, a->cols, a->rows);
		FN(store_sums)((T *)a->y + c0, acc, w, 0);
	}
}

VEC_CLONES static void FN(gelu_span)(size_t n, const T *restrict x, T *restrict y)
{
	const T k0 = (T)RT_GELU_K0, k1 = (T)RT_GELU_K1, half = (T)0.5, one = 1;
	VLOOP(i, 0, n, y[i] = half * x[i] * (one + TANH(k0 * (x[i] + k1 * x[i] * x[i] * x[i]))));
}

static void FN(gelu)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(gelu_span)(e - b, (const T *)a->x + b, (T *)a->y + b);
}

VEC_CLONES static void FN(gelu_backward_span)(size_t n, const T *restrict x,
					      const T *restrict dy, T *restrict dx)
{
	const T k0 = (T)RT_GELU_K0, k1 = (T)RT_GELU_K1, half = (T)0.5, one = 1, three = 3;
	VLOOP(i, 0, n, {
		const T xi = x[i], th = TANH(k0 * (xi + k1 * xi * xi * xi));
		dx[i] = dy[i] * (half * (one + th) +
				 half * xi * (one - th * th) * k0 * (one + three * k1 * xi * xi));
	});
}

static void FN(gelu_backward)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(gelu_backward_span)(e - b, (const T *)a->x + b, (const T *)a->dy + b, (T *)a->y + b);
}

VEC_CLONES static void FN(tanh_span)(size_t n, const T *restrict x, T *restrict y)
{
	VLOOP(i, 0, n, y[i] = TANH(x[i]));
}

static void FN(tanh_fwd)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(tanh_span)(e - b, (const T *)a->x + b, (T *)a->y + b);
}

VEC_CLONES static void FN(tanh_backward_span)(size_t n, const T *restrict y,
					      const T *restrict dy, T *restrict dx)
{
	const T one = 1;
	VLOOP(i, 0, n, dx[i] = dy[i] * (one - y[i] * y[i]));
}

static void FN(tanh_backward)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(tanh_backward_span)(e - b, (const T *)a->x + b, (const T *)a->dy + b, (T *)a->y + b);
}

/*
 * One row of softmax: the first `valid` columns are live, the rest masked.
 * The maximum goes through VW running maxima (exact, so their order does
 * not matter), each a > b ? a : b like x86's max instructions. The exps run
 * over whole blocks of VW columns as far as cols allows, so that the last
 * block of a row does not fall to a scalar loop; the masked columns among
 * them are overwritten with 0 (their exps are finite or inf, never read).
 */
VEC_CLONES static void FN(softmax_row)(size_t cols, size_t valid, T scale, const T *restrict x,
				       T *restrict y)
{
	const size_t whole = (valid + VW - 1) / VW * VW, span = whole < cols ? whole : cols;
	T mv[VW], mx;
	size_t c0 = 0;
	double sum;
	for (size_t k = 0; k < VW; k++)
		mv[k] = scale * x[0];
	for (; c0 + VW <= valid; c0 += VW)
		for (size_t k = 0; k < VW; k++) {
			const T z = scale * x[c0 + k];
			mv[k] = z > mv[k] ? z : mv[k];
		}
	for (size_t c = c0; c < valid; c++) {
		const T z = scale * x[c];
		mv[c - c0] = z > mv[c - c0] ? z : mv[c - c0];
	}
	mx = mv[0];
	for (size_t k = 1; k < VW; k++)
		mx = mv[k] > mx ? mv[k] : mx;
	VLOOP(c, 0, span, y[c] = EXP(scale * x[c] - mx));
	VSUM(sum, c, 0, valid, y[c]);
	const T inv = (T)(1.0 / sum);
	VLOOP(c, 0, valid, y[c] *= inv);
	VLOOP(c, valid, cols, y[c] = 0);
}

/* Items are rows. */
static void FN(softmax)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	const size_t cols = a->cols, block = (size_t)a->block;
	for (size_t r = b; r < e; r++) {
		const size_t last = block ? r % block : cols - 1;
		FN(softmax_row)(cols, last + 1 < cols ? last + 1 : cols, (T)a->s[0],
				(const T *)a->x + r * cols, (T *)a->y + r * cols);
	}
}

VEC_CLONES static void FN(softmax_backward_row)(size_t cols, T scale, const T *restrict y,
						const T *restrict dy, T *restrict dx)
{
	double dot;
	VSUM(dot, c, 0, cols, dy[c] * y[c]);
	const T d = (T)dot;
	VLOOP(c, 0, cols, dx[c] = scale * y[c] * (dy[c] - d));
}

/* Items are rows. */
static void FN(softmax_backward)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	const size_t cols = a->cols;
	for (size_t r = b; r < e; r++)
		FN(softmax_backward_row)(cols, (T)a->s[0], (const T *)a->x + r * cols,
					 (const T *)a->dy + r * cols, (T *)a->y + r * cols);
}

VEC_CLONES static void FN(layernorm_row)(size_t cols, const T *restrict x,
					 const T *restrict gamma, const T *restrict beta,
					 T *restrict y, T *restrict mean, T *restrict rstd)
{
	double s, ss, mu;
	VSUM(s, c, 0, cols, x[c]);
	mu = s / (double)cols;
	VSUM(ss, c, 0, cols, (x[c] - mu) * (x[c] - mu));
	*mean = (T)mu;
	*rstd = (T)(1.0 / sqrt(ss / (double)cols + RT_LAYERNORM_EPS));
	const T m = *mean, rs = *rstd;
	VLOOP(c, 0, cols, y[c] = (x[c] - m) * rs * gamma[c] + beta[c]);
}

/* Items are rows. */
static void FN(layernorm)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	const size_t cols = a->cols;
	for (size_t r = b; r < e; r++)
		FN(layernorm_row)(cols, (const T *)a->x + r * cols, a->gamma, a->beta,
				  (T *)a->y + r * cols, (T *)a->mean + r, (T *)a->rstd + r);
}

VEC_CLONES static void FN(layernorm_dx_row)(size_t cols, const T *restrict x,
					    const T *restrict gamma, T m, T rs,
					    const T *restrict dy, T *restrict dx)
{
	double sg, sgx;
	VSUM(sg, c, 0, cols, dy[c] * gamma[c]);
	VSUM(sgx, c, 0, cols, (dy[c] * gamma[c]) * ((x[c] - m) * rs));
	const T mg = (T)(sg / (double)cols), mgx = (T)(sgx / (double)cols);
	VLOOP(c, 0, cols, dx[c] = rs * (dy[c] * gamma[c] - mg - (x[c] - m) * rs * mgx));
}

/* dx, items are rows. */
static void FN(layernorm_dx)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	const size_t cols = a->cols;
	for (size_t r = b; r < e; r++)
		FN(layernorm_dx_row)(cols, (const T *)a->x + r * cols, a->gamma,
				     ((const T *)a->mean)[r], ((const T *)a->rstd)[r],
				     (const T *)a->dy + r * cols, (T *)a->y + r * cols);
}

/* dgamma and dbeta, items are columns, a tile of columns per pass down the rows. */
static void FN(layernorm_dparams)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	double ag[COL_TILE], ab[COL_TILE];
	for (size_t c0 = b; c0 < e; c0 += COL_TILE) {
		const size_t w = e - c0 < COL_TILE ? e - c0 : COL_TILE;
		memset(ag, 0, w * sizeof *ag);
		memset(ab, 0, w * sizeof *ab);
		FN(lnparams_span)(ag, ab, w, (const T *)a->dy + c0, (const T *)a->x + c0, a->mean,
				  a->rstd, a->cols, a->rows);
		FN(store_sums)((T *)a->dgamma + c0, ag, w, 1);
		FN(store_sums)((T *)a->dbeta + c0, ab, w, 1);
	}
}

/* dp over n elements; returns the sum of squared differences. */
VEC_CLONES static double FN(mse_span)(size_t n, T k, const T *restrict x, const T *restrict t,
				      T *restrict dp)
{
	double s;
	VLOOP(i, 0, n, dp[i] = k * (x[i] - t[i]));
	VSUM(s, i, 0, n, (x[i] - t[i]) * (x[i] - t[i]));
	return s;
}

/* Items are blocks of a->block elements; block i's sum of squares goes to partial[i]. */
static void FN(mse)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	const size_t bs = (size_t)a->block;
	for (size_t blk = b; blk < e; blk++) {
		const size_t i0 = blk * bs, i1 = i0 + bs < a->n ? i0 + bs : a->n;
		a->partial[blk] = FN(mse_span)(i1 - i0, (T)(2.0 / (double)a->n),
					       (const T *)a->x + i0, (const T *)a->dy + i0,
					       (T *)a->y + i0);
	}
}

VEC_CLONES static void FN(adam_span)(size_t n, T *restrict w, const T *restrict g,
				     T *restrict m, T *restrict v, const double *s)
{
	const T lr = (T)s[0], b1 = (T)s[1], b2 = (T)s[2], eps = (T)s[3];
	const T c1 = (T)s[4], c2 = (T)s[5], one = 1;
	VLOOP(i, 0, n, {
		m[i] = b1 * m[i] + (one - b1) * g[i];
		v[i] = b2 * v[i] + (one - b2) * g[i] * g[i];
		w[i] -= lr * (m[i] / c1) / (SQRT(v[i] / c2) + eps);
	});
}

static void FN(adam)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(adam_span)(e - b, (T *)a->y + b, (const T *)a->x + b, (T *)a->m + b, (T *)a->v + b,
		      a->s);
}
