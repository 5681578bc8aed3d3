/*
 * usercmd_template.c: the user's command as a template (usercmd.h): split
 * into words like a POSIX shell without its expansions, {knob} placeholders
 * checked once and replaced per point, and argv quoted back for people.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rt.h"
#include "usercmd.h"

/* A growing string. */
typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static int sb_add(sbuf *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s)
			return RT_ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->n, p, n);
	b->n += n;
	b->s[b->n] = '\0';
	return RT_OK;
}

static int sb_addc(sbuf *b, char c)
{
	return sb_add(b, &c, 1);
}

/* A growing list of words. */
static int push_word(rt_cmd_template *t, sbuf *w)
{
	char **words = realloc(t->words, sizeof *words * (size_t)(t->nwords + 1));
	if (!words)
		return RT_ENOMEM;
	t->words = words;
	t->words[t->nwords++] = w->s ? w->s : strdup("");
	w->s = NULL;
	w->n = w->cap = 0;
	return t->words[t->nwords - 1] ? RT_OK : RT_ENOMEM;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* What a shell would do something with outside quotes, that only --shell gives. */
static int is_shell_syntax(char c)
{
	return c && strchr("|&;<>`$", c) != NULL;
}

static int name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/*
 * The placeholder at s (s[0] == '{', not "{{"): its name's length into
 * *len; -1 when it is malformed.
 */
static int placeholder_at(const char *s, size_t *len)
{
	size_t n = 1;
	if (!name_start(s[1]))
		return -1;
	while (name_char(s[n]))
		n++;
	if (s[n] != '}')
		return -1;
	*len = n - 1;
	return 0;
}

/* Checks the braces of one word: every { opens a good placeholder, } only as }} or closing. */
static int check_braces(const char *word, char *err, size_t errlen)
{
	for (const char *p = word; *p; p++) {
		size_t len;
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			p++;
		} else if (*p == '{') {
			if (placeholder_at(p, &len))
				return rt_fail(err, errlen, RT_EINVAL,
					       "the command's '%.20s': a placeholder is {name} with a "
					       "name of letters, digits and _ (write {{ for a brace)",
					       p);
			p += len + 1;
		} else if (*p == '}') {
			return rt_fail(err, errlen, RT_EINVAL,
				       "the command has a lone '}' (write }} for a brace)");
		}
	}
	return RT_OK;
}

/* Inside "...": a backslash keeps only these (and joins lines before a newline). */
static int dq_escapable(char c)
{
	return c == '"' || c == '\\' || c == '$' || c == '`' || c == '\n';
}

/* The quoted part that starts at *p (a ' or "), appended to w; *p moves past it. */
static int quoted(const char **p, sbuf *w, char *err, size_t errlen)
{
	char q = *(*p)++;
	int rc = RT_OK;
	for (; **p && **p != q && rc == RT_OK; (*p)++) {
		if (q == '"' && **p == '\\' && dq_escapable((*p)[1])) {
			(*p)++;
			if (**p == '\n')
				continue;
		}
		rc = sb_addc(w, **p);
	}
	if (rc == RT_OK && !**p)
		return rt_fail(err, errlen, RT_EINVAL, "the command has an unterminated %s quote",
			       q == '"' ? "double" : "single");
	(*p)++;
	return rc;
}

/* One word from *p (not at a blank) into w; *p moves past it. */
static int one_word(const char **p, sbuf *w, char *err, size_t errlen)
{
	int rc = sb_add(w, "", 0); /* "" is a word too */
	while (rc == RT_OK && **p && !is_blank(**p)) {
		char c = **p;
		if (c == '\'' || c == '"') {
			rc = quoted(p, w, err, errlen);
		} else if (c == '\\') {
			if (!(*p)[1])
				return rt_fail(err, errlen, RT_EINVAL,
					       "the command ends in a backslash");
			if ((*p)[1] != '\n')
				rc = sb_addc(w, (*p)[1]);
			*p += 2;
		} else if (is_shell_syntax(c)) {
			return rt_fail(err, errlen, RT_EINVAL,
				       "the command has '%c' outside quotes: rigtune runs it "
				       "without a shell (quote it, or use --shell)",
				       c);
		} else {
			rc = sb_addc(w, c);
			(*p)++;
		}
	}
	return rc == RT_ENOMEM ? rt_fail(err, errlen, rc, "out of memory") : rc;
}

static int check_shell(const char *text, char *err, size_t errlen);

static int split(const char *text, rt_cmd_template *t, char *err, size_t errlen)
{
	const char *p = text;
	sbuf w = {0};
	int rc = RT_OK;
	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		if ((rc = one_word(&p, &w, err, errlen)) || (rc = push_word(t, &w)))
			break;
	}
	free(w.s);
	return rc == RT_ENOMEM ? rt_fail(err, errlen, rc, "out of memory") : rc;
}

int rt_cmd_template_parse(const char *text, int shell, rt_cmd_template *t, char *err,
			  size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->shell = shell;
	int rc;
	if (shell) {
		sbuf w = {0};
		rc = sb_add(&w, text, strlen(text));
		if (rc == RT_OK)
			rc = push_word(t, &w);
		free(w.s);
		if (rc)
			rc = rt_fail(err, errlen, rc, "out of memory");
	} else {
		rc = split(text, t, err, errlen);
	}
	if (rc == RT_OK && (t->nwords == 0 || (shell && strspn(text, " \t\n") == strlen(text))))
		rc = rt_fail(err, errlen, RT_EINVAL, "the command is empty");
	for (int i = 0; rc == RT_OK && i < t->nwords; i++)
		rc = check_braces(t->words[i], err, errlen);
	if (rc == RT_OK && shell)
		rc = check_shell(t->words[0], err, errlen);
	if (rc)
		rt_cmd_template_free(t);
	return rc;
}

void rt_cmd_template_hash(const rt_cmd_template *t, const char *metric, int warmup, int minimize,
			  char out[17])
{
	char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof buf, "shell=%d\nmetric=%s\nwarmup=%d\nminimize=%d\n",
				    t->shell, metric, warmup, minimize);
	for (int i = 0; i < t->nwords && n < sizeof buf; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%c", t->words[i], 0);
	snprintf(out, 17, "%016llx",
		 (unsigned long long)rt_fnv1a(buf, n < sizeof buf ? n : sizeof buf));
}

void rt_cmd_template_free(rt_cmd_template *t)
{
	for (int i = 0; i < t->nwords; i++)
		free(t->words[i]);
	free(t->words);
	memset(t, 0, sizeof *t);
}

/*
 * Walks the placeholders of a checked word: calls fn with each name (len
 * bytes at name), or with name NULL for a literal stretch. Stops at fn's
 * first nonzero return and returns it.
 */
static int each_part(const char *word, int (*fn)(void *, const char *, size_t, int), void *user)
{
	int rc = 0;
	for (const char *p = word; *p && !rc;) {
		size_t len;
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			rc = fn(user, p, 1, 0);
			p += 2;
		} else if (*p == '{' && placeholder_at(p, &len) == 0) {
			rc = fn(user, p + 1, len, 1);
			p += len + 2;
		} else {
			len = strcspn(p, "{}");
			len = len ? len : 1;
			rc = fn(user, p, len, 0);
			p += len;
		}
	}
	return rc;
}

/* ---- --shell: how sh reads the place of each placeholder ---- */

/*
 * The constructs of sh's lexer that change how a spliced value is read: the
 * top level and $( ) and ( ) read words unquoted; "..." and `...` and ${...}
 * and arithmetic ($(( )), (( ))) each their own way.
 */
typedef enum sh_mode { SH_TOP, SH_DQ, SH_BQ, SH_PAREN, SH_BRACE, SH_ARITH } sh_mode;

#define SH_DEPTH 64

/* The lexer's state after the text so far. */
typedef struct sh_lex {
	sh_mode stack[SH_DEPTH]; /* stack[depth - 1] is where the text is */
	int parens[SH_DEPTH];    /* an arithmetic expansion's open parentheses */
	int depth;
	int single, ansi;        /* inside '...', inside bash's $'...' */
	int escaped, comment, heredoc, overflow;
	int word_start, dollar, opened, lt; /* what the last character was */
} sh_lex;

typedef enum sh_quoting { SHQ_PLAIN, SHQ_SINGLE, SHQ_DOUBLE } sh_quoting;

static void sh_init(sh_lex *l)
{
	memset(l, 0, sizeof *l);
	l->depth = 1;
	l->word_start = 1;
}

static void sh_push(sh_lex *l, sh_mode m, int parens)
{
	if (l->depth == SH_DEPTH) {
		l->overflow = 1;
		return;
	}
	l->parens[l->depth] = parens;
	l->stack[l->depth++] = m;
}

static void sh_pop(sh_lex *l)
{
	if (l->depth > 1)
		l->depth--;
}

/* An unquoted character at the top level, in $( ), ${ } or arithmetic. */
static void sh_unquoted(sh_lex *l, char c, int opened, int lt)
{
	sh_mode *top = &l->stack[l->depth - 1];
	if (c == '(' && opened) { /* (( or $((: arithmetic */
		*top = SH_ARITH;
		l->parens[l->depth - 1] = 2;
	} else if (c == '(' && *top == SH_ARITH) {
		l->parens[l->depth - 1]++;
	} else if (c == '(') {
		sh_push(l, SH_PAREN, 0);
		l->opened = 1;
	} else if (c == ')' && *top == SH_ARITH) {
		if (--l->parens[l->depth - 1] <= 0)
			sh_pop(l);
	} else if ((c == ')' && *top == SH_PAREN) || (c == '}' && *top == SH_BRACE)) {
		sh_pop(l);
	} else if (c == '"') {
		sh_push(l, SH_DQ, 0);
	} else if (c == '\'') {
		l->single = 1;
	} else if (c == '#' && l->word_start && *top != SH_BRACE && *top != SH_ARITH) {
		l->comment = 1;
	} else if (c == '<') {
		l->heredoc |= lt; /* << and <<-: the lines after are a here-document */
		l->lt = 1;
	}
	l->word_start = strchr(" \t\n;&|()", c) != NULL;
}

/* Moves l past one literal character c of the command. */
static void sh_char(sh_lex *l, char c)
{
	int dollar = l->dollar, opened = l->opened, lt = l->lt;
	sh_mode top = l->stack[l->depth - 1];
	l->dollar = l->opened = l->lt = 0;
	if (l->escaped) {
		l->escaped = 0;
		l->word_start = 0;
	} else if (l->comment) {
		l->comment = c != '\n';
		l->word_start = 1;
	} else if (l->single) {
		l->single = c != '\'';
	} else if (l->ansi) {
		l->escaped = c == '\\';
		l->ansi = c != '\'';
	} else if (top == SH_BQ) {
		l->escaped = c == '\\';
		if (c == '`')
			sh_pop(l);
	} else if (c == '\\') {
		l->escaped = 1;
	} else if (c == '`') {
		sh_push(l, SH_BQ, 0);
	} else if (c == '$') {
		l->dollar = 1;
		l->word_start = 0;
	} else if (dollar && c == '(') {
		sh_push(l, SH_PAREN, 0);
		l->opened = 1;
	} else if (dollar && c == '{') {
		sh_push(l, SH_BRACE, 0);
	} else if (dollar && c == '\'' && top != SH_DQ) {
		l->ansi = 1;
	} else if (top == SH_DQ) {
		if (c == '"')
			sh_pop(l);
	} else {
		sh_unquoted(l, c, opened, lt);
	}
}

/* Why a value cannot be quoted where the lexer is; NULL when it can. */
static const char *sh_refusal(const sh_lex *l)
{
	static const char *const inside[] = {[SH_BQ] = "`...`", [SH_BRACE] = "${...}",
					     [SH_ARITH] = "an arithmetic expansion"};
	if (l->overflow)
		return "constructs nested too deep";
	if (l->heredoc)
		return "a here-document";
	if (l->comment)
		return "a comment";
	if (l->escaped || l->dollar)
		return l->escaped ? "a backslash" : "a $";
	if (l->ansi)
		return "$'...'";
	for (int i = 0; i < l->depth; i++)
		if (l->stack[i] < (int)RT_COUNT(inside) && inside[l->stack[i]])
			return inside[l->stack[i]];
	return NULL;
}

static sh_quoting sh_quoting_at(const sh_lex *l)
{
	if (l->single)
		return SHQ_SINGLE;
	return l->stack[l->depth - 1] == SH_DQ ? SHQ_DOUBLE : SHQ_PLAIN;
}

/*
 * value as sh reads it back where the lexer is: in '...' at the top level,
 * '\'' for a quote inside '...', a backslash before $ ` " \ inside "...".
 * Nothing in it is syntax, whatever it holds.
 */
static int sh_add_value(sbuf *b, const sh_lex *l, const char *value)
{
	sh_quoting q = sh_quoting_at(l);
	int rc = q == SHQ_PLAIN ? sb_addc(b, '\'') : RT_OK;
	for (const char *v = value; *v && rc == RT_OK; v++) {
		if (q != SHQ_DOUBLE && *v == '\'')
			rc = sb_add(b, "'\\''", 4);
		else if (q == SHQ_DOUBLE && strchr("$`\"\\", *v))
			rc = sb_add(b, (const char[]){'\\', *v}, 2);
		else
			rc = sb_addc(b, *v);
	}
	return rc == RT_OK && q == SHQ_PLAIN ? sb_addc(b, '\'') : rc;
}

typedef struct shell_check {
	sh_lex lex;
	char *err;
	size_t errlen;
} shell_check;

static int check_shell_part(void *user, const char *s, size_t len, int is_name)
{
	shell_check *k = user;
	const char *why = is_name ? sh_refusal(&k->lex) : NULL;
	if (why)
		return rt_fail(k->err, k->errlen, RT_EINVAL,
			       "--shell: the placeholder {%.*s} stands inside %s, where rigtune "
			       "cannot quote its value for sh (put it outside, or inside '...' "
			       "or \"...\")",
			       (int)len, s, why);
	for (size_t i = 0; !is_name && i < len; i++)
		sh_char(&k->lex, s[i]);
	return RT_OK;
}

/* Every placeholder of a --shell command stands where its value can be quoted. */
static int check_shell(const char *text, char *err, size_t errlen)
{
	shell_check k = {.err = err, .errlen = errlen};
	sh_init(&k.lex);
	return each_part(text, check_shell_part, &k);
}

typedef struct names_acc {
	char (*names)[RT_KNOB_NAMELEN];
	int max, n;
} names_acc;

static int add_name(void *user, const char *s, size_t len, int is_name)
{
	names_acc *a = user;
	if (!is_name)
		return 0;
	char name[RT_KNOB_NAMELEN];
	snprintf(name, sizeof name, "%.*s", (int)len, s);
	int k = 0;
	while (k < a->n && k < a->max && strcmp(a->names[k], name))
		k++;
	if (k < a->n && k < a->max)
		return 0; /* seen */
	if (a->n < a->max)
		memcpy(a->names[a->n], name, sizeof name);
	a->n++;
	return 0;
}

int rt_cmd_template_names(const rt_cmd_template *t, char (*names)[RT_KNOB_NAMELEN], int max)
{
	names_acc a = {names, max, 0};
	for (int i = 0; i < t->nwords; i++)
		each_part(t->words[i], add_name, &a);
	return a.n;
}

typedef struct expand_acc {
	sbuf out;
	const rt_knob_value *kv;
	int n;
	sh_lex *lex; /* --shell: where sh reads each value; NULL: argv words */
	char *err;
	size_t errlen;
} expand_acc;

static int add_part(void *user, const char *s, size_t len, int is_name)
{
	expand_acc *a = user;
	for (size_t i = 0; a->lex && !is_name && i < len; i++)
		sh_char(a->lex, s[i]);
	if (!is_name)
		return sb_add(&a->out, s, len);
	for (int i = 0; i < a->n; i++)
		if (strlen(a->kv[i].name) == len && !memcmp(a->kv[i].name, s, len))
			return a->lex ? sh_add_value(&a->out, a->lex, a->kv[i].value)
				      : sb_add(&a->out, a->kv[i].value, strlen(a->kv[i].value));
	return rt_fail(a->err, a->errlen, RT_EINVAL, "the command's placeholder {%.*s} has no knob",
		       (int)len, s);
}

int rt_cmd_template_expand(const rt_cmd_template *t, const rt_knob_value *kv, int n,
			   char ***argv, char *err, size_t errlen)
{
	static const char *const sh[] = {"/bin/sh", "-c"};
	int pre = t->shell ? 2 : 0;
	char **v = calloc((size_t)(pre + t->nwords + 1), sizeof *v);
	int rc = v ? RT_OK : RT_ENOMEM;
	for (int i = 0; rc == RT_OK && i < pre; i++)
		rc = (v[i] = strdup(sh[i])) ? RT_OK : RT_ENOMEM;
	for (int i = 0; rc == RT_OK && i < t->nwords; i++) {
		sh_lex lex;
		sh_init(&lex);
		expand_acc a = {{0}, kv, n, t->shell ? &lex : NULL, err, errlen};
		rc = sb_add(&a.out, "", 0);
		if (rc == RT_OK)
			rc = each_part(t->words[i], add_part, &a);
		v[pre + i] = a.out.s;
	}
	if (rc == RT_ENOMEM)
		rt_fail(err, errlen, rc, "out of memory");
	if (rc) {
		rt_argv_free(v);
		v = NULL;
	}
	*argv = v;
	return rc;
}

void rt_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

void rt_shell_quote(const char *s, char *buf, size_t len)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	if (!len)
		return;
	if (*s && strspn(s, safe) == strlen(s)) {
		snprintf(buf, len, "%s", s);
		return;
	}
	if (len < 3) { /* not even '' fits */
		buf[0] = '\0';
		return;
	}
	size_t n = 0;
	buf[n++] = '\'';
	for (; *s; s++) {
		size_t k = *s == '\'' ? 4 : 1; /* ' becomes '\'' */
		if (n + k + 2 > len)
			break; /* cut, keeping room for the closing quote */
		memcpy(buf + n, k == 4 ? "'\\''" : s, k);
		n += k;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
}

char *rt_shell_quote_dup(const char *s)
{
	size_t len = 4 * strlen(s) + 3; /* every byte a quote ('\'' each), and the two quotes */
	char *q = malloc(len);
	if (q)
		rt_shell_quote(s, q, len);
	return q;
}

void rt_argv_format(char *const *argv, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (char *const *p = argv; *p; p++) {
		char q[1024];
		rt_shell_quote(*p, q, sizeof q);
		rt_list_append(buf, len, " ", q);
	}
}
