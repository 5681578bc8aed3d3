/* rigtune fleet check's answer: which nodes regressed, by how much, and what changed on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_sql.h"
#include "../cli.h"

/* Each node's newest check (since $1, '' for any), its worst point and its machine diff. */
static const char newest_sql[] =
	"SELECT DISTINCT ON (c.node) c.node, c.result, c.regressions, c.worst_ratio,"
	"  c.worst_point, c.generated,"
	"  (SELECT count(*) FROM rigtune_check_points p WHERE (p.node, p.generated, p.baseline)"
	"    = (c.node, c.generated, c.baseline)),"
	"  (SELECT string_agg(d.field || ' ' || coalesce(d.before, '(none)') || ' -> ' ||"
	"    coalesce(d.after, '(none)'), '; ' ORDER BY d.field) FROM rigtune_check_diffs d"
	"    WHERE (d.node, d.generated, d.baseline) = (c.node, c.generated, c.baseline))"
	" FROM rigtune_checks c WHERE $1 = '' OR c.generated >= $1::timestamptz"
	" ORDER BY c.node, c.generated DESC";

enum { C_NODE, C_RESULT, C_REGRESSIONS, C_RATIO, C_POINT, C_GENERATED, C_POINTS, C_DIFF };

int rt_fleet_check_answer(rt_store *s, const char *since, FILE *f, int *regressed, char *err,
			  size_t errlen)
{
	PGresult *r;
	const char *v[] = {since};
	int rc = rt_store_exec(s, newest_sql, 1, v, &r, err, errlen);
	if (rc)
		return rc;
	int n = PQntuples(r), bad = 0;
	for (int i = 0; i < n; i++) {
		const char *node = PQgetvalue(r, i, C_NODE), *diff = PQgetvalue(r, i, C_DIFF);
		if (strcmp(PQgetvalue(r, i, C_RESULT), "regression")) {
			const char *np = PQgetvalue(r, i, C_POINTS);
			rt_tprintf(f, "%s: pass (%s point%s, checked %s)\n", node, np,
				strcmp(np, "1") ? "s" : "", PQgetvalue(r, i, C_GENERATED));
			continue;
		}
		bad++;
		rt_tprintf(f, "%s: regression: %s of %s points", node, PQgetvalue(r, i, C_REGRESSIONS),
			PQgetvalue(r, i, C_POINTS));
		if (!PQgetisnull(r, i, C_RATIO))
			rt_tprintf(f, ", the worst %s %.0f%% slower (%.2fx its baseline)",
				PQgetvalue(r, i, C_POINT), 100 * (1 - atof(PQgetvalue(r, i, C_RATIO))),
				atof(PQgetvalue(r, i, C_RATIO)));
		else if (!PQgetisnull(r, i, C_POINT))
			rt_tprintf(f, ", %s no longer runs", PQgetvalue(r, i, C_POINT));
		rt_tprintf(f, "; changed on it: %s\n", *diff ? diff : "nothing in its machine description");
	}
	rt_tprintf(f, "%d of %d node%s regressed", bad, n, n == 1 ? "" : "s");
	for (int i = 0, first = 1; i < n; i++)
		if (!strcmp(PQgetvalue(r, i, C_RESULT), "regression")) {
			rt_tprintf(f, "%s%s", first ? ": " : ", ", PQgetvalue(r, i, C_NODE));
			first = 0;
		}
	fputc('\n', f);
	PQclear(r);
	*regressed = bad;
	return RT_OK;
}
