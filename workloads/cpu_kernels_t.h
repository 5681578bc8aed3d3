/*
 * cpu_kernels_t.h: the body of the CPU kernels for one storage type,
 * included twice by cpu_kernels.c (no include guard, on purpose) with:
 *   T        float or double
 *   FN(name) name with the type's suffix (name_f32, name_f64)
 *   EXP, TANH, SQRT  the exp, tanh and sqrt of T (TANH is an approximation for
 *            float, see fast_tanhf)
 *   TANH_SPAN the attributes of the span functions that call TANH
 * The math is in kernels.h. Each kernel is a pool job over items [b, e)
 * (elements, rows or columns, as its dispatcher in cpu_kernels.c says) that
 * unpacks its kargs and calls a span or row function: gcc honours restrict
 * on parameters (not on locals loaded from a struct), and without it the
 * loops do not vectorize.
 */

static void FN(fill_span)(T *restrict x, size_t n, T v)
{
	VLOOP(i, 0, n, x[i] = v);
}

static void FN(fill)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(fill_span)((T *)a->y + b, e - b, (T)a->s[0]);
}

static void FN(axpby_span)(size_t n, T ca, const T *restrict x, T cb, T *restrict y)
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

static void FN(add_span)(size_t n, const T *restrict x, T *restrict y)
{
	VLOOP(i, 0, n, y[i] += x[i]);
}

/* Items are rows. */
static void FN(add_bias)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	for (size_t r = b; r < e; r++)
		FN(add_span)(a->cols, a->x, (T *)a->y + r * a->cols);
}

/*
 * acc[c] += dy[c], or dy[c] * (x[c] - m) * rs when x is not NULL (the
 * summand of layernorm's dgamma), for c < w.
 */
static void FN(colsum_row)(double *restrict acc, size_t w, const T *restrict dy,
			   const T *restrict x, T m, T rs)
{
	if (x)
		VLOOP(c, 0, w, acc[c] += (double)(dy[c] * ((x[c] - m) * rs)));
	else
		VLOOP(c, 0, w, acc[c] += (double)dy[c]);
}

/*
 * Column sums of the rows x cols matrix dy for columns [b, e) into out
 * (out[c] += sum when accumulate, else out[c] = sum), a tile of columns at a
 * time in double accumulators so the inner loop runs along a row. With x,
 * mean and rstd the summand is layernorm's dgamma term (see colsum_row).
 */
static void FN(colsum)(const T *dy, const T *x, const T *mean, const T *rstd, size_t rows,
		       size_t cols, size_t b, size_t e, T *out, int accumulate)
{
	double acc[COL_TILE];
	for (size_t c0 = b; c0 < e; c0 += COL_TILE) {
		const size_t w = e - c0 < COL_TILE ? e - c0 : COL_TILE;
		for (size_t c = 0; c < w; c++)
			acc[c] = 0;
		for (size_t r = 0; r < rows; r++)
			FN(colsum_row)(acc, w, dy + r * cols + c0, x ? x + r * cols + c0 : NULL,
				       x ? mean[r] : 0, x ? rstd[r] : 0);
		for (size_t c = 0; c < w; c++)
			out[c0 + c] = (T)((accumulate ? (double)out[c0 + c] : 0.0) + acc[c]);
	}
}

/* Items are columns. */
static void FN(sum_rows)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(colsum)(a->x, NULL, NULL, NULL, a->rows, a->cols, b, e, a->y, 0);
}

TANH_SPAN static void FN(gelu_span)(size_t n, const T *restrict x, T *restrict y)
{
	const T k0 = (T)RT_GELU_K0, k1 = (T)RT_GELU_K1, half = (T)0.5, one = 1;
	VLOOP(i, 0, n, y[i] = half * x[i] * (one + TANH(k0 * (x[i] + k1 * x[i] * x[i] * x[i]))));
}

static void FN(gelu)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(gelu_span)(e - b, (const T *)a->x + b, (T *)a->y + b);
}

TANH_SPAN static void FN(gelu_backward_span)(size_t n, const T *restrict x, const T *restrict dy,
				   T *restrict dx)
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

TANH_SPAN static void FN(tanh_span)(size_t n, const T *restrict x, T *restrict y)
{
	VLOOP(i, 0, n, y[i] = TANH(x[i]));
}

static void FN(tanh_fwd)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(tanh_span)(e - b, (const T *)a->x + b, (T *)a->y + b);
}

static void FN(tanh_backward_span)(size_t n, const T *restrict y, const T *restrict dy,
				   T *restrict dx)
{
	const T one = 1;
	VLOOP(i, 0, n, dx[i] = dy[i] * (one - y[i] * y[i]));
}

static void FN(tanh_backward)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(tanh_backward_span)(e - b, (const T *)a->x + b, (const T *)a->dy + b, (T *)a->y + b);
}

/* One row of softmax: the first `valid` columns are live, the rest masked. */
static void FN(softmax_row)(size_t cols, size_t valid, T scale, const T *restrict x,
			    T *restrict y)
{
	T mx = scale * x[0];
	double sum = 0;
	for (size_t c = 1; c < valid; c++)
		mx = scale * x[c] > mx ? scale * x[c] : mx;
	for (size_t c = 0; c < valid; c++) {
		y[c] = EXP(scale * x[c] - mx);
		sum += y[c];
	}
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

static void FN(softmax_backward_row)(size_t cols, T scale, const T *restrict y,
				     const T *restrict dy, T *restrict dx)
{
	double dot = 0;
	for (size_t c = 0; c < cols; c++)
		dot += (double)(dy[c] * y[c]);
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

static void FN(layernorm_row)(size_t cols, const T *restrict x, const T *restrict gamma,
			      const T *restrict beta, T *restrict y, T *restrict mean,
			      T *restrict rstd)
{
	double s = 0, ss = 0, mu;
	for (size_t c = 0; c < cols; c++)
		s += x[c];
	mu = s / (double)cols;
	for (size_t c = 0; c < cols; c++)
		ss += (x[c] - mu) * (x[c] - mu);
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

static void FN(layernorm_dx_row)(size_t cols, const T *restrict x, const T *restrict gamma,
				 T m, T rs, const T *restrict dy, T *restrict dx)
{
	double sg = 0, sgx = 0;
	for (size_t c = 0; c < cols; c++) {
		const T g = dy[c] * gamma[c];
		sg += g;
		sgx += (double)(g * ((x[c] - m) * rs));
	}
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

/* dgamma and dbeta, items are columns. */
static void FN(layernorm_dparams)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(colsum)(a->dy, a->x, a->mean, a->rstd, a->rows, a->cols, b, e, a->dgamma, 1);
	FN(colsum)(a->dy, NULL, NULL, NULL, a->rows, a->cols, b, e, a->dbeta, 1);
}

/* dp over n elements; returns the sum of squared differences. */
static double FN(mse_span)(size_t n, T k, const T *restrict x, const T *restrict t,
			   T *restrict dp)
{
	double s = 0;
	for (size_t i = 0; i < n; i++) {
		const T d = x[i] - t[i];
		s += (double)(d * d);
		dp[i] = k * d;
	}
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

static void FN(adam_span)(size_t n, T *restrict w, const T *restrict g, T *restrict m,
			  T *restrict v, const double *s)
{
	const T lr = (T)s[0], b1 = (T)s[1], b2 = (T)s[2], eps = (T)s[3];
	const T c1 = (T)s[4], c2 = (T)s[5], one = 1;
	for (size_t i = 0; i < n; i++) {
		m[i] = b1 * m[i] + (one - b1) * g[i];
		v[i] = b2 * v[i] + (one - b2) * g[i] * g[i];
		w[i] -= lr * (m[i] / c1) / (SQRT(v[i] / c2) + eps);
	}
}

static void FN(adam)(void *p, size_t b, size_t e)
{
	const kargs *a = p;
	FN(adam_span)(e - b, (T *)a->y + b, (const T *)a->x + b, (T *)a->m + b, (T *)a->v + b,
		      a->s);
}
