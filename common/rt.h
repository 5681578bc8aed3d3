/*
 * rt.h: conventions shared by every module of rigtune.
 *
 * Error contract (stated once, hwloc-style): a function that can fail returns
 * 0 on success or one of the negative RT_E* codes below, and, when the caller
 * passes a non-NULL buffer, writes one human-readable sentence into it.
 * Only tuner/ turns a code into an exit status (see rt_exit_code()).
 * Every destroy/free function accepts NULL.
 */
#ifndef RT_H
#define RT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum rt_status {
	RT_OK = 0,
	RT_EINVAL = -1,      /* bad usage or input: the user can fix it (exit 2) */
	RT_ENOMEM = -2,      /* an allocation failed */
	RT_EIO = -3,         /* a file or pipe operation failed */
	RT_EUNAVAIL = -4,    /* a backend, library or device is not there */
	RT_EINFEASIBLE = -5, /* this point cannot run here (memory, timeout, crash) */
	RT_ERUNTIME = -6,    /* any other failure at run time (exit 3) */
};

/*
 * Why a point could not run (a trial, a run of the user's command): the
 * strategies and the tuner act on the kind, people read the sentence beside
 * it. MEMORY means every larger batch of the same settings fails too; the
 * others concern that one point (CRASH and TIMEOUT may be the machine's
 * mood and are measured again on reuse).
 */
typedef enum rt_cause {
	RT_CAUSE_NONE = 0,    /* it ran */
	RT_CAUSE_MEMORY,      /* does not fit: "needs N GiB", killed for memory */
	RT_CAUSE_CRASH,       /* died on a signal or exited with a failure */
	RT_CAUSE_TIMEOUT,     /* no result before its deadline */
	RT_CAUSE_UNAVAILABLE, /* its backend, device or precision is not there */
	RT_CAUSE_BAD_OUTPUT,  /* ran but reported nothing usable (no metric match) */
	RT_NCAUSE
} rt_cause;

/* "memory", "crash", ...: the name a journal records; "none" for RT_CAUSE_NONE. */
const char *rt_cause_name(rt_cause c);
/* The cause spelled name, -1 if none is. */
int rt_cause_parse(const char *name);

/* Size of the error buffers that callers allocate on their stack. */
#define RT_ERRLEN 512

/*
 * Formats a message into err (which may be NULL) and returns code, so that a
 * failure path reads:  return rt_fail(err, errlen, RT_EINVAL, "bad m=%d", m);
 */
int rt_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "invalid input", "out of memory", ...: the name of a status code. */
const char *rt_strstatus(int code);

/* The process exit status for a status code: 0, 2 for RT_EINVAL, else 3. */
int rt_exit_code(int code);

/*
 * Appends item to the list in buf ("a, b" with sep ", "), sep before it
 * unless buf is empty; cut to fit len. buf starts as "".
 */
void rt_list_append(char *buf, size_t len, const char *sep, const char *item);

/* Whether word is an item of list, whose items are separated by any of seps (NULL list: no). */
int rt_list_has(const char *list, const char *seps, const char *word);

/*
 * The length of the UTF-8 character at s (at most n bytes), 0 when s does
 * not start one: a stray or missing continuation byte, an overlong form, a
 * surrogate or a code point past U+10FFFF.
 */
size_t rt_utf8_char(const unsigned char *s, size_t n);
/* Whether the n bytes of s are valid UTF-8 (a NUL is invalid here). */
int rt_utf8_valid(const char *s, size_t n);
/*
 * src made safe to print to a terminal into dst (len bytes, cut to fit):
 * control characters (C0, DEL, C1: the escapes that move a cursor or set a
 * title) and bytes that are not UTF-8 become '?'.
 */
void rt_printable(char *dst, size_t len, const char *src);

/* Writes all n bytes to fd, retrying short writes and EINTR; 0 or -1 (errno set). */
int rt_write_all(int fd, const void *data, size_t n);

/*
 * Reads the whole file at path into *text (malloc'd, NUL-terminated, *len
 * bytes without the NUL): what is there when it is opened, even while a
 * writer appends. RT_EIO "cannot read PATH: why", RT_ENOMEM; RT_EINVAL for
 * what is not a regular file (a FIFO would block, a device never end) or
 * is larger than RT_READ_MAX_BYTES (no file rigtune reads comes near it).
 */
#define RT_READ_MAX_BYTES (64 << 20)
int rt_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen);
/*
 * The one door every reader of a named file goes through: opens path for
 * reading without waiting (a FIFO does not block), and checks that it is a
 * regular file of at most RT_READ_MAX_BYTES, with rt_read_file's errors.
 * *fd (close-on-exec) and its *size on success.
 */
int rt_open_read(const char *path, int *fd, off_t *size, char *err, size_t errlen);
/* The first cap - 1 bytes at most of the file at path (rt_open_read) into buf, NUL-terminated. */
int rt_read_head(const char *path, char *buf, size_t cap, char *err, size_t errlen);

/* 64-bit FNV-1a of n bytes: the hash of a canonical text (fingerprints, a command's key). */
uint64_t rt_fnv1a(const void *data, size_t n);

/*
 * Crash drills (tests/cli/test_drills.sh): when $RIGTUNE_DRILL is "POINT" or
 * "POINT:N", rt_drill_at(POINT) is true the N-th time (default the first)
 * the process reaches that point, and rt_drill(POINT) then kills the process
 * with SIGKILL, as a power cut or the OOM killer would. Both return 0 at once
 * when the variable is unset. Points: journal-header, journal-append (half
 * the document written), trial (a trial's child running), output-rename (the
 * temporary file written, not yet renamed).
 */
int rt_drill_at(const char *point);
void rt_drill(const char *point);

/* Monotonic wall clock in seconds: what measures, never faked (budgets: clock.h). */
double rt_now(void);

/*
 * Room for element n of the array *array (a T **, its elements elem bytes,
 * *cap of them allocated): doubled when full, `first` elements at first.
 * RT_OK, or RT_ENOMEM with the array as it was.
 */
int rt_grow(void *array, int *cap, int n, size_t elem, int first);

/* Parses a whole decimal integer; RT_EINVAL unless all of s is a number. */
int rt_parse_long(const char *s, long *out);
/* Parses a finite decimal number; RT_EINVAL otherwise. */
int rt_parse_double(const char *s, double *out);

/* Returns the status from the enclosing function when call fails. */
#define RT_TRY(call)                   \
	do {                           \
		int rt_try_rc_ = (call); \
		if (rt_try_rc_)          \
			return rt_try_rc_; \
	} while (0)

/* Number of elements in a static array. */
#define RT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * RT_BUG_ON(cond): an invariant that holds unless rigtune itself is wrong
 * (an index inside its array, a search state the strategy left consistent, a
 * buffer large enough by construction). It is checked in every build, NDEBUG
 * or not: a broken invariant stops the program at its cause, naming the file,
 * the line and the condition, instead of showing up far away as a wrong
 * figure. Never for input a user can get wrong: that is RT_EINVAL.
 * (__attribute__((noreturn)), not _Noreturn: the CUDA and HIP plugins compile
 * this header as C++.)
 */
#define RT_BUG_ON(cond) ((cond) ? rt_bug(__FILE__, __LINE__, #cond) : (void)0)
__attribute__((noreturn)) void rt_bug(const char *file, int line, const char *cond);

#endif
