#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rt_rng_seed(rt_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rt_rng_next(rt_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double rt_rng_uniform(rt_rng *r)
{
	return (double)(rt_rng_next(r) >> 11) * 0x1.0p-53;
}

double rt_rng_normal(rt_rng *r)
{
	double u1 = 1.0 - rt_rng_uniform(r); /* (0, 1]: log() stays finite */
	double u2 = rt_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double rt_rng_normal_approx(rt_rng *r)
{
	uint64_t x = rt_rng_next(r);
	double sum = (double)(x & 0xffff) + (double)((x >> 16) & 0xffff) +
		     (double)((x >> 32) & 0xffff) + (double)(x >> 48);
	/* four uniforms on [0, 65535]: mean 2 * 65535, variance 4 * (65536^2 - 1) / 12 */
	return (sum - 2.0 * 65535.0) / 37837.2272; /* the square root of that variance */
}

uint64_t rt_rng_below(rt_rng *r, uint64_t n)
{
	/* Rejection keeps it unbiased; the loop almost never repeats. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = rt_rng_next(r);
	while (x >= limit);
	return x % n;
}
