/* store_sql.h: the store's SQL for the fleet folder's own files (not for outside it). */
#ifndef RT_STORE_SQL_H
#define RT_STORE_SQL_H

#include <libpq-fe.h>

#include "fleet.h"

PGconn *rt_store_conn(rt_store *s);

/*
 * Runs sql with n text parameters (NULL: SQL null). RT_OK with the result in
 * *out (PQclear it; out NULL: dropped), else RT_EIO with the server's message.
 */
int rt_store_exec(rt_store *s, const char *sql, int n, const char *const *values,
		  PGresult **out, char *err, size_t errlen);

/* Ends the transaction: COMMIT when rc is RT_OK (its result), else ROLLBACK (rc and err kept). */
int rt_store_end(rt_store *s, int rc, char *err, size_t errlen);

/* v as a parameter (all its digits) in buf, or NULL (SQL null) when it is no finite number. */
const char *rt_store_num(char *buf, size_t len, double v);

/* Connects again if the connection was lost: 0 when it is up, -1 when not. */
int rt_store_reconnect(rt_store *s);
/* RT_EIO "the store: why" from the connection's last error, without credentials. */
int rt_store_error(rt_store *s, char *err, size_t errlen);

#endif
