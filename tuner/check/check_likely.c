/* check_likely.c: a slowdown that every sample shows (check_likely.h). */
#include "check_likely.h"

#include <math.h>

#include "../../search/stats.h"

/* Where a sample is past the threshold below base's median (throughput: slower is lower). */
static double cut_of(const double *base, size_t nb, double threshold)
{
	return (1 - threshold) * rt_median(base, nb);
}

double rt_check_below_chance(const double *base, size_t nb, size_t nn, double threshold)
{
	if (!nb)
		return 1;
	double cut = cut_of(base, nb, threshold);
	size_t k = 0;
	for (size_t i = 0; i < nb; i++)
		k += base[i] <= cut;
	return pow((double)(k + 1) / (double)(nb + 1), (double)nn);
}

int rt_check_every_sample_slower(const double *base, size_t nb, const double *now, size_t nn,
				 double threshold, double alpha)
{
	if (!nb || nn < 2)
		return 0;
	double cut = cut_of(base, nb, threshold);
	for (size_t i = 0; i < nn; i++)
		if (!(now[i] <= cut))
			return 0;
	return rt_check_below_chance(base, nb, nn, threshold) <= alpha;
}
