/* pickle.c — see include/read/pickle.h. Opcode semantics follow CPython's
 * Modules/_pickle.c (load_* functions) and Lib/pickletools.py; byte values
 * in formats.md §4.6. */
#include "read/pickle.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ------------------------------------------------------------ */

enum pv_type {
	PV_NONE, PV_BOOL, PV_INT, PV_BIG, PV_FLOAT,
	PV_STR, PV_BYTES, PV_LIST, PV_TUPLE, PV_DICT,   /* heap nodes */
	PV_TENTRY,    /* a device trace entry being filled (streamed) */
	PV_DROP,      /* a container inside a streamed trace entry: skipped */
};

/* Roles of containers when streaming traces (see ctx_role). */
enum role { R_KEEP, R_ROOT, R_DTRACES, R_TLIST, R_TENTRY, R_DROP };

enum keyid { K_UNKNOWN, K_ACTION, K_ADDR, K_SIZE, K_DEVFREE, K_TIME, K_OTHER };

typedef struct pnode pnode;
typedef struct tentry tentry;

typedef struct pval {
	uint8_t t;
	union {
		int64_t i;      /* INT, BOOL */
		double f;       /* FLOAT, BIG (approximation) */
		pnode *p;       /* STR … DICT */
		tentry *e;      /* TENTRY */
	} u;
} pval;

/* Container flags. A container stored in another one is sealed: storing
 * into it afterwards is refused, which is what rules out cycles (a real
 * pickler finishes a container before its parent takes it; only a recursive
 * structure, which snapshots never contain, stores into it later) and keeps
 * depth and size exact. A container whose MARK-delimited items have been
 * stored (APPENDS/SETITEMS) is closed: it no longer counts as open. */
enum { PN_SEALED = 1, PN_CLOSED = 2 };

struct pnode {
	uint32_t refs;
	uint8_t type;       /* PV_STR … PV_DICT */
	uint8_t role;       /* enum role (containers) */
	uint8_t keyid;      /* enum keyid cache (strings) */
	uint8_t flags;      /* PN_* (containers) */
	uint16_t depth;     /* 0 for strings, 1 + deepest child for containers */
	uint16_t open;      /* containers: length of the run of open containers this one ends (see open_run) */
	union {
		uint32_t size;     /* containers but R_TLIST: JSON values it expands to, itself included */
		uint32_t ordinal;  /* R_TLIST: index among device trace lists (expands to one empty array) */
	} u;
	size_t n, cap;      /* items (dict: 2 per pair) or string length; TLIST: entries */
	pval *items;
	char s[];           /* string bytes, NUL-terminated */
};

struct tentry {
	kg_trace_entry e;
	pnode *action;      /* holds the action string alive */
	tentry *next;       /* free list */
};

typedef struct dec {
	kg_source *src;
	kg_error *err;
	const kg_trace_sink *sink;
	unsigned char *buf;
	size_t pos, len, cap;
	int64_t base;        /* stream offset of buf[0] */
	bool eof;
	int64_t op_off;      /* offset of the opcode being executed */
	unsigned char op;
	pval *stack;
	size_t sp, scap;
	size_t marks[KG_PICKLE_MAX_DEPTH];
	bool mdrop[KG_PICKLE_MAX_DEPTH]; /* the mark opens the items of a skipped container */
	size_t nmarks;
	uint32_t *memo;      /* memo index → MEMO_* or MEMO_KEPT + index into kept */
	size_t nmemo, memocap;
	pval *kept;          /* memoized values that are not skipped */
	size_t nkept, keptcap;
	uint32_t ntlists;
	tentry *free_te;
	size_t budget;       /* cJSON values left when converting */
	int jdepth;          /* conversion nesting */
	pnode **dead;        /* node_unref work list */
	size_t ndead, deadcap;
} dec;

#define BUFCAP (1u << 20)

static const char *const opnames[256] = {
	['('] = "MARK", ['.'] = "STOP", ['0'] = "POP", ['1'] = "POP_MARK",
	['2'] = "DUP", ['F'] = "FLOAT", ['I'] = "INT", ['J'] = "BININT",
	['K'] = "BININT1", ['L'] = "LONG", ['M'] = "BININT2", ['N'] = "NONE",
	['P'] = "PERSID", ['Q'] = "BINPERSID", ['R'] = "REDUCE", ['S'] = "STRING",
	['T'] = "BINSTRING", ['U'] = "SHORT_BINSTRING", ['V'] = "UNICODE",
	['X'] = "BINUNICODE", ['a'] = "APPEND", ['b'] = "BUILD", ['c'] = "GLOBAL",
	['d'] = "DICT", ['}'] = "EMPTY_DICT", ['e'] = "APPENDS", ['g'] = "GET",
	['h'] = "BINGET", ['i'] = "INST", ['j'] = "LONG_BINGET", ['l'] = "LIST",
	[']'] = "EMPTY_LIST", ['o'] = "OBJ", ['p'] = "PUT", ['q'] = "BINPUT",
	['r'] = "LONG_BINPUT", ['s'] = "SETITEM", ['t'] = "TUPLE",
	[')'] = "EMPTY_TUPLE", ['u'] = "SETITEMS", ['G'] = "BINFLOAT",
	['B'] = "BINBYTES", ['C'] = "SHORT_BINBYTES",
	[0x80] = "PROTO", [0x81] = "NEWOBJ", [0x82] = "EXT1", [0x83] = "EXT2",
	[0x84] = "EXT4", [0x85] = "TUPLE1", [0x86] = "TUPLE2", [0x87] = "TUPLE3",
	[0x88] = "NEWTRUE", [0x89] = "NEWFALSE", [0x8a] = "LONG1", [0x8b] = "LONG4",
	[0x8c] = "SHORT_BINUNICODE", [0x8d] = "BINUNICODE8", [0x8e] = "BINBYTES8",
	[0x8f] = "EMPTY_SET", [0x90] = "ADDITEMS", [0x91] = "FROZENSET",
	[0x92] = "NEWOBJ_EX", [0x93] = "STACK_GLOBAL", [0x94] = "MEMOIZE",
	[0x95] = "FRAME", [0x96] = "BYTEARRAY8", [0x97] = "NEXT_BUFFER",
	[0x98] = "READONLY_BUFFER",
};

const char *kg_pickle_opname(unsigned char op)
{
	return opnames[op];
}

static int fail(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(dec *d, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return kg_fail_at(d->err, d->op_off, "%s", msg);
}

/* ---- nodes ------------------------------------------------------------- */

static pnode *node_new(uint8_t type, size_t strlen_)
{
	pnode *p = kg_malloc(sizeof *p + (type == PV_STR || type == PV_BYTES ? strlen_ + 1 : 0));
	memset(p, 0, sizeof *p);
	p->refs = 1;
	p->type = type;
	p->depth = (type == PV_STR || type == PV_BYTES) ? 0 : 1;
	p->u.size = 1;
	if (type == PV_STR || type == PV_BYTES) {
		p->n = strlen_;
		p->s[strlen_] = 0;
	}
	return p;
}

static void pv_release(dec *d, pval *v);

static bool is_node(const pval *v)
{
	return v->t >= PV_STR && v->t <= PV_DICT;
}

static void dead_push(dec *d, pnode *p)
{
	if (d->ndead == d->deadcap) {
		d->deadcap = d->deadcap ? d->deadcap * 2 : 64;
		d->dead = kg_realloc(d->dead, d->deadcap * sizeof *d->dead);
	}
	d->dead[d->ndead++] = p;
}

/* Drops a reference; frees what becomes unreachable with a work list, not
 * recursion (a crafted pickle can nest deeper than any stack). There are
 * no cycles to leak: store_check refuses to store into a sealed container. */
static void node_unref(dec *d, pnode *p)
{
	if (--p->refs)
		return;
	size_t base = d->ndead;
	dead_push(d, p);
	while (d->ndead > base) {
		pnode *q = d->dead[--d->ndead];
		if (q->type != PV_STR && q->type != PV_BYTES) {
			for (size_t i = 0; i < q->n && q->items; i++) {
				pval *it = &q->items[i];
				if (is_node(it) && --it->u.p->refs == 0)
					dead_push(d, it->u.p);
				else if (!is_node(it))
					pv_release(d, it);
			}
			free(q->items);
		}
		free(q);
	}
}

static void te_free(dec *d, tentry *e)
{
	if (e->action)
		node_unref(d, e->action);
	e->action = NULL;
	e->next = d->free_te;
	d->free_te = e;
}

static void pv_release(dec *d, pval *v)
{
	if (is_node(v))
		node_unref(d, v->u.p);
	else if (v->t == PV_TENTRY)
		te_free(d, v->u.e);
	v->t = PV_NONE;
}

static void node_push(pnode *p, pval v)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 4;
		p->items = kg_realloc(p->items, p->cap * sizeof *p->items);
	}
	p->items[p->n++] = v;
}

/* ---- input ------------------------------------------------------------- */

/* Makes at least n bytes available at buf[pos]; n <= BUFCAP. Returns 0, or
 * -1 with err set (read error or truncated input). */
static int fill(dec *d, size_t n)
{
	if (d->pos) {
		memmove(d->buf, d->buf + d->pos, d->len - d->pos);
		d->base += (int64_t)d->pos;
		d->len -= d->pos;
		d->pos = 0;
	}
	while (d->len < n) {
		if (d->eof)
			return fail(d, "truncated pickle: %s needs %zu more bytes, the data ends at byte %" PRId64,
				    opnames[d->op] ? opnames[d->op] : "opcode", n - d->len,
				    d->base + (int64_t)d->len);
		ssize_t r = kg_source_read(d->src, d->buf + d->len, d->cap - d->len, d->err);
		if (r < 0)
			return -1;
		if (r == 0)
			d->eof = true;
		d->len += (size_t)r;
	}
	return 0;
}

#define NEED(n) do { if (d->len - d->pos < (size_t)(n) && fill(d, (n)) < 0) return -1; } while (0)

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- stack ------------------------------------------------------------- */

static size_t floor_(const dec *d)
{
	return d->nmarks ? d->marks[d->nmarks - 1] : 0;
}

static int grow_stack(dec *d, pval v);

static inline int push(dec *d, pval v)
{
	if (__builtin_expect(d->sp < d->scap, 1)) {
		d->stack[d->sp++] = v;
		return 0;
	}
	return grow_stack(d, v);
}

static int grow_stack(dec *d, pval v)
{
	if (d->scap >= KG_PICKLE_MAX_STACK) {
		pv_release(d, &v);
		return fail(d, "pickle stack deeper than %u items", KG_PICKLE_MAX_STACK);
	}
	d->scap = d->scap ? d->scap * 2 : 256;
	d->stack = kg_realloc(d->stack, d->scap * sizeof *d->stack);
	d->stack[d->sp++] = v;
	return 0;
}

static int pop(dec *d, pval *out)
{
	if (d->sp <= floor_(d))
		return fail(d, "corrupt pickle: %s on an empty stack", opnames[d->op]);
	*out = d->stack[--d->sp];
	return 0;
}

/* Index of the top mark, popping it; -1 with err when there is none. */
static long pop_mark(dec *d)
{
	if (!d->nmarks)
		return fail(d, "corrupt pickle: %s without MARK", opnames[d->op]);
	return (long)d->marks[--d->nmarks];
}

/* ---- streaming roles ---------------------------------------------------- */

static enum role role_of(const pval *v)
{
	if (v->t == PV_TENTRY)
		return R_TENTRY;
	if (v->t == PV_DROP)
		return R_DROP;
	if (v->t == PV_DICT || v->t == PV_LIST)
		return (enum role)v->u.p->role;
	return R_KEEP;
}

static bool str_is(const pval *v, const char *s, size_t n)
{
	return v && v->t == PV_STR && v->u.p->n == n && memcmp(v->u.p->s, s, n) == 0;
}

/* Role of a new container given a candidate parent and key (NULL when the
 * parent is a list, or when the new value would itself be a key); -1 when
 * the combination is impossible in a snapshot. */
static int child_role(const pval *parent, const pval *key, bool is_dict)
{
	switch (role_of(parent)) {
	case R_TENTRY:
	case R_DROP:
		return R_DROP;
	case R_ROOT:
		if (!key)
			return -1;
		if (!is_dict && str_is(key, "device_traces", 13))
			return R_DTRACES;
		return R_KEEP;
	case R_DTRACES:
		return is_dict ? -1 : R_TLIST;
	case R_TLIST:
		return is_dict ? R_TENTRY : -1;
	default:
		if (parent->t == PV_DICT && !key)
			return -1;
		return R_KEEP;
	}
}

static bool dictlike(const pval *v)
{
	return v->t == PV_DICT || v->t == PV_TENTRY || v->t == PV_DROP;
}

static bool listlike(const pval *v)
{
	return v->t == PV_LIST || v->t == PV_DROP;
}

/* Where does a container created now go? Decided from the stack: a pending
 * dict key (SETITEM without MARK), a list just below (APPEND without MARK),
 * or the container below the innermost MARK. Only matters when streaming
 * traces; a wrong guess is caught when the value is stored (store_check). */
static enum role ctx_role(dec *d, bool is_dict)
{
	if (!d->sink || !d->sink->entry)
		return R_KEEP;
	size_t sp = d->sp, fl = floor_(d);
	if (sp == 0)
		return is_dict ? R_ROOT : R_KEEP;
	const pval *top = &d->stack[sp - 1];
	int r;
	if (sp >= 2 && sp - 2 >= fl && top->t == PV_STR && dictlike(&d->stack[sp - 2]) &&
	    (r = child_role(&d->stack[sp - 2], top, is_dict)) >= 0)
		return (enum role)r;
	if (sp - 1 >= fl && listlike(top) && (r = child_role(top, NULL, is_dict)) >= 0)
		return (enum role)r;
	if (d->nmarks && fl >= 1) {
		const pval *parent = &d->stack[fl - 1];
		const pval *key = (dictlike(parent) && (sp - fl) % 2 == 1) ? top : NULL;
		if ((r = child_role(parent, key, is_dict)) >= 0)
			return (enum role)r;
	}
	return R_KEEP;
}

static tentry *te_new(dec *d)
{
	tentry *e = d->free_te;
	if (e)
		d->free_te = e->next;
	else
		e = kg_malloc(sizeof *e);
	memset(e, 0, sizeof *e);
	e->e.addr = e->e.size = e->e.device_free = e->e.time_us = KG_NONE;
	return e;
}

/* Length of the run of open containers a container pushed now ends. A
 * list or dict pushed right above an open one (or above a key over an open
 * dict), with no MARK between, is either its single item — how CPython's
 * _batch_appends/_batch_setitems write a one-item container: the item, then
 * APPEND/SETITEM — or its sibling in a MARK batch ([[], [], …]); which one
 * shows only when it is stored, after the whole run is on the stack. A run
 * longer than KG_PICKLE_MAX_OPEN is refused as it is pushed, so a nesting
 * bomb (a million `]`, then a million APPENDs) stops before it costs
 * memory; real runs are bounded by the nesting depth plus a batch (1000
 * items in CPython, larger only for a long list of empty dicts written by
 * the TorchScript pickler). Containers that are sealed or closed by
 * APPENDS/SETITEMS end a run. */
static uint32_t open_run(const dec *d)
{
	size_t fl = floor_(d), sp = d->sp;
	const pval *y = sp > fl ? &d->stack[sp - 1] : NULL;
	if (y && y->t != PV_LIST && y->t != PV_DICT) {
		bool key = y->t == PV_STR || y->t == PV_INT || y->t == PV_BIG || y->t == PV_BOOL;
		y = key && sp - 1 > fl && d->stack[sp - 2].t == PV_DICT ? &d->stack[sp - 2] : NULL;
	}
	if (!y || (y->u.p->flags & (PN_SEALED | PN_CLOSED)))
		return 1;
	return y->u.p->open + 1u;
}

/* APPENDS/SETITEMS ran on v: it is no longer open. */
static void close_container(pval *v)
{
	if (v->t == PV_LIST || v->t == PV_DICT)
		v->u.p->flags |= PN_CLOSED;
}

static int push_container(dec *d, uint8_t type)
{
	uint32_t run = open_run(d);
	if (run > KG_PICKLE_MAX_OPEN)
		return fail(d, "pickle nesting too deep: more than %u lists or dicts pushed one above another "
			    "before any is stored (nesting limit %d)", KG_PICKLE_MAX_OPEN, KG_PICKLE_MAX_DEPTH);
	enum role r = ctx_role(d, type == PV_DICT);
	pval v;
	if (r == R_DROP) {
		v.t = PV_DROP;
		v.u.i = 0;
	} else if (r == R_TENTRY) {
		v.t = PV_TENTRY;
		v.u.e = te_new(d);
	} else {
		v.t = type;
		v.u.p = node_new(type, 0);
		v.u.p->role = (uint8_t)r;
		v.u.p->open = (uint16_t)run;
		if (r == R_TLIST)
			v.u.p->u.ordinal = d->ntlists++;
	}
	return push(d, v);
}

/* ---- storing into containers ---------------------------------------------- */

static const char *layout_msg = "snapshot layout the streaming reader cannot follow (%s)";

/* JSON values v expands to (to_json counts the same way, dict keys aside);
 * exact because what is stored is sealed. */
static uint32_t expanded(const pval *v)
{
	if (v->t != PV_LIST && v->t != PV_TUPLE && v->t != PV_DICT)
		return 1;
	return v->u.p->role == R_TLIST ? 1 : v->u.p->u.size;
}

/* Expanded values a container may reach at the current opcode: shared
 * references (the memo) let a few bytes stand for a large subtree, but
 * real snapshots expand to fewer than 2 values per byte read (1.8 at most in
 * testdata/snapshots, traces built), so a budget proportional to the input
 * stops a memo bomb long before its tree exists, at O(1) per reference. */
static uint64_t node_budget(const dec *d)
{
	uint64_t b = KG_PICKLE_MIN_NODES + (uint64_t)KG_PICKLE_NODES_PER_BYTE * (uint64_t)d->op_off;
	return b < KG_PICKLE_MAX_NODES ? b : KG_PICKLE_MAX_NODES;
}

/* May v be stored in the ordinary (kept) container into? Refuses storing
 * into a sealed container and a container into itself (cycles), nesting
 * deeper than KG_PICKLE_MAX_DEPTH and expansion past node_budget; on
 * success seals v and updates into's depth and size. */
static int store_check(dec *d, pnode *into, const pval *v)
{
	if (v->t == PV_TENTRY || v->t == PV_DROP)
		return fail(d, layout_msg, "trace entry outside device_traces");
	if (v->t == PV_LIST && v->u.p->role == R_TLIST && v->u.p->n && into->role != R_DTRACES)
		return fail(d, layout_msg, "trace list outside device_traces");
	if ((into->flags & PN_SEALED) || (is_node(v) && v->u.p == into))
		return fail(d, "corrupt pickle: %s into a container that is already stored in another one "
			    "or is the value itself (a recursive structure, which snapshots never contain)",
			    opnames[d->op]);
	if (is_node(v) && v->u.p->depth + 1 > into->depth) {
		if (v->u.p->depth + 1 > KG_PICKLE_MAX_DEPTH)
			return fail(d, "pickle nesting deeper than %d", KG_PICKLE_MAX_DEPTH);
		into->depth = (uint16_t)(v->u.p->depth + 1);
	}
	uint64_t size = (uint64_t)into->u.size + expanded(v);
	if (size > node_budget(d))
		return fail(d, "pickle expands to more than %" PRIu64 " values within its first %" PRId64
			    " bytes (shared references)", node_budget(d), d->op_off);
	into->u.size = (uint32_t)size;
	if (is_node(v))
		v->u.p->flags |= PN_SEALED;
	return 0;
}

static enum keyid key_of(pnode *k)
{
	if (k->keyid == K_UNKNOWN) {
		static const struct { const char *s; enum keyid id; } keys[] = {
			{"action", K_ACTION}, {"addr", K_ADDR}, {"size", K_SIZE},
			{"device_free", K_DEVFREE}, {"time_us", K_TIME},
		};
		k->keyid = K_OTHER;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (k->n == strlen(keys[i].s) && !memcmp(k->s, keys[i].s, k->n))
				k->keyid = keys[i].id;
	}
	return (enum keyid)k->keyid;
}

static int64_t as_int(const pval *v)
{
	if (v->t == PV_INT || v->t == PV_BOOL)
		return v->u.i;
	if (v->t == PV_BIG)
		return v->u.f > 0 ? INT64_MAX : INT64_MIN + 1;
	return KG_NONE;
}

/* dict[k] = v; consumes k and v. */
static int setitem(dec *d, pval *target, pval k, pval v)
{
	int rc = 0;
	if (target->t == PV_TENTRY) {
		tentry *e = target->u.e;
		if (k.t == PV_STR) {
			switch (key_of(k.u.p)) {
			case K_ACTION:
				if (v.t == PV_STR) {
					if (e->action)
						node_unref(d, e->action);
					e->action = v.u.p;
					v.u.p->refs++;
					e->e.action = v.u.p->s;
					e->e.action_len = v.u.p->n;
				}
				break;
			case K_ADDR: e->e.addr = as_int(&v); break;
			case K_SIZE: e->e.size = as_int(&v); break;
			case K_DEVFREE: e->e.device_free = as_int(&v); break;
			case K_TIME: e->e.time_us = as_int(&v); break;
			default: break;
			}
		}
	} else if (target->t == PV_DROP) {
		/* skipped */
	} else if (target->t == PV_DICT) {
		pnode *p = target->u.p;
		if (k.t != PV_STR && k.t != PV_INT && k.t != PV_BIG && k.t != PV_BOOL) {
			rc = fail(d, "unsupported dict key type in pickle (only str and int keys occur in snapshots)");
		} else if ((rc = store_check(d, p, &v)) == 0) {
			/* Python keeps the last value for a repeated key. Small dicts only:
			 * the check is quadratic, and snapshot dicts are small. */
			if (k.t == PV_STR && p->n <= 128) {
				for (size_t i = 0; i < p->n; i += 2) {
					pval *ok = &p->items[i];
					if (ok->t == PV_STR && ok->u.p->n == k.u.p->n &&
					    !memcmp(ok->u.p->s, k.u.p->s, k.u.p->n)) {
						pv_release(d, &p->items[i + 1]);
						p->items[i + 1] = v;
						pv_release(d, &k);
						return 0;
					}
				}
			}
			node_push(p, k);
			node_push(p, v);
			return 0;
		}
	} else {
		rc = fail(d, "corrupt pickle: %s on a value that is not a dict", opnames[d->op]);
	}
	pv_release(d, &k);
	pv_release(d, &v);
	return rc;
}

/* list.append(v); consumes v. */
static int append(dec *d, pval *target, pval v)
{
	int rc = 0;
	if (target->t == PV_DROP) {
		/* skipped */
	} else if (target->t == PV_LIST && target->u.p->role == R_TLIST) {
		pnode *p = target->u.p;
		if (v.t != PV_TENTRY)
			rc = fail(d, layout_msg, "a device trace holds something other than entry dicts");
		else {
			d->sink->entry(d->sink->ctx, (int)p->u.ordinal, &v.u.e->e);
			p->n++;
		}
	} else if (target->t == PV_LIST) {
		pnode *p = target->u.p;
		if (p->role == R_DTRACES && v.t == PV_LIST && v.u.p->role == R_TLIST &&
		    v.u.p->n && v.u.p->u.ordinal != p->n)
			rc = fail(d, layout_msg, "a device trace list appears twice");
		else if ((rc = store_check(d, p, &v)) == 0) {
			node_push(p, v);
			return 0;
		}
	} else {
		rc = fail(d, "corrupt pickle: %s on a value that is not a list", opnames[d->op]);
	}
	pv_release(d, &v);
	return rc;
}

static int make_tuple(dec *d, size_t from)
{
	size_t n = d->sp - from;
	d->sp = from;
	pval v;
	if (ctx_role(d, false) == R_DROP) {
		for (size_t i = 0; i < n; i++)
			pv_release(d, &d->stack[from + i]);
		v.t = PV_DROP;
		v.u.i = 0;
		return push(d, v);
	}
	pnode *p = node_new(PV_TUPLE, 0);
	v.t = PV_TUPLE;
	v.u.p = p;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		pval it = d->stack[from + i];
		if (rc == 0 && (rc = store_check(d, p, &it)) == 0)
			node_push(p, it);
		else
			pv_release(d, &it);
	}
	if (rc < 0) {
		pv_release(d, &v);
		return rc;
	}
	return push(d, v);
}

/* ---- memo -------------------------------------------------------------- */

/* Memo slots are 4 bytes: most memoized objects of a large snapshot are
 * trace entries and their frame lists, which are streamed or skipped and
 * need no value, only a marker. */
enum { MEMO_UNSET, MEMO_DROP, MEMO_CONSUMED, MEMO_KEPT };

static int memo_put(dec *d, uint64_t idx)
{
	if (d->sp <= floor_(d))
		return fail(d, "corrupt pickle: %s on an empty stack", opnames[d->op]);
	if (idx > (uint64_t)(d->op_off + 1) || idx >= (1u << 30))
		return fail(d, "corrupt pickle: memo index %" PRIu64 " is larger than the data read so far", idx);
	if (idx >= d->memocap) {
		size_t nc = d->memocap ? d->memocap : 1024;
		while (nc <= idx)
			nc *= 2;
		d->memo = kg_realloc(d->memo, nc * sizeof *d->memo);
		memset(d->memo + d->memocap, 0, (nc - d->memocap) * sizeof *d->memo);
		d->memocap = nc;
	}
	uint32_t *slot = &d->memo[idx];
	if (*slot >= MEMO_KEPT)
		pv_release(d, &d->kept[*slot - MEMO_KEPT]);
	pval *top = &d->stack[d->sp - 1];
	if (top->t == PV_TENTRY) {
		*slot = MEMO_CONSUMED;
	} else if (top->t == PV_DROP) {
		*slot = MEMO_DROP;
	} else {
		if (d->nkept == d->keptcap) {
			d->keptcap = d->keptcap ? d->keptcap * 2 : 1024;
			d->kept = kg_realloc(d->kept, d->keptcap * sizeof *d->kept);
		}
		d->kept[d->nkept] = *top;
		if (is_node(top))
			top->u.p->refs++;
		*slot = (uint32_t)(MEMO_KEPT + d->nkept++);
	}
	if (idx >= d->nmemo)
		d->nmemo = idx + 1;
	return 0;
}

static int memo_get(dec *d, uint64_t idx)
{
	if (d->nmarks && d->mdrop[d->nmarks - 1] && idx < d->nmemo) {
		/* an item of a skipped container (a frame of a trace entry): it
		 * will be discarded, so do not touch the object itself */
		pval v = {.t = PV_DROP};
		return push(d, v);
	}
	uint32_t slot = idx < d->nmemo ? d->memo[idx] : MEMO_UNSET;
	if (slot == MEMO_UNSET)
		return fail(d, "corrupt pickle: memo index %" PRIu64 " out of range (memo holds %zu)", idx, d->nmemo);
	if (slot == MEMO_CONSUMED)
		return fail(d, layout_msg, "a trace entry is referenced twice");
	pval v = {.t = PV_DROP};
	if (slot >= MEMO_KEPT) {
		v = d->kept[slot - MEMO_KEPT];
		if (is_node(&v))
			v.u.p->refs++;
	}
	return push(d, v);
}

/* Inside a skipped container (a trace entry's frame list), runs of
 * BINGET/LONG_BINGET are the bulk of a snapshot: consume the buffered run
 * here without going back through the opcode dispatch. */
static int drop_gets(dec *d)
{
	if (!d->nmarks || !d->mdrop[d->nmarks - 1])
		return 0;
	const unsigned char *b = d->buf;
	size_t pos = d->pos, len = d->len;
	while (pos + 5 <= len && d->sp < d->scap) {
		uint64_t idx;
		if (b[pos] == 'h')
			idx = b[pos + 1];
		else if (b[pos] == 'j')
			idx = le32(b + pos + 1);
		else
			break;
		if (idx >= d->nmemo)
			break; /* let the normal path report it */
		d->stack[d->sp].t = PV_DROP;
		d->stack[d->sp].u.i = 0;
		d->sp++;
		pos += b[pos] == 'h' ? 2 : 5;
	}
	d->pos = pos;
	return 0;
}

/* ---- scalars ----------------------------------------------------------- */

static int push_int(dec *d, int64_t i)
{
	pval v = {.t = PV_INT};
	v.u.i = i;
	return push(d, v);
}

/* n bytes little-endian two's complement (LONG1/LONG4). */
static int push_long(dec *d, const unsigned char *b, size_t n)
{
	if (n == 0)
		return push_int(d, 0);
	bool neg = b[n - 1] & 0x80;
	bool fits = n <= 8;
	if (!fits) {
		/* fits in int64 when the high bytes are only sign fill */
		fits = ((b[7] & 0x80) != 0) == neg;
		for (size_t i = 8; i < n && fits; i++)
			fits = b[i] == (neg ? 0xff : 0x00);
	}
	if (fits) {
		uint64_t u = neg ? UINT64_MAX : 0;
		for (size_t i = 0; i < n && i < 8; i++) {
			u &= ~((uint64_t)0xff << (8 * i));
			u |= (uint64_t)b[i] << (8 * i);
		}
		return push_int(d, (int64_t)u);
	}
	/* wider than 64 bits: keep an approximation, marked big */
	double x = 0;
	for (size_t i = n; i-- > 0;)
		x = x * 256.0 + (neg ? (double)(0xff - b[i]) : (double)b[i]);
	if (neg)
		x = -(x + 1);
	pval v = {.t = PV_BIG};
	v.u.f = isfinite(x) ? x : (neg ? -HUGE_VAL : HUGE_VAL);
	return push(d, v);
}

static int push_string(dec *d, uint64_t n, uint8_t type)
{
	if (n > KG_PICKLE_MAX_STR)
		return fail(d, "%s of %" PRIu64 " bytes exceeds the %u-byte limit", opnames[d->op], n,
			    KG_PICKLE_MAX_STR);
	pnode *p = node_new(type, (size_t)n);
	size_t have = d->len - d->pos;
	size_t got = have < n ? have : (size_t)n;
	memcpy(p->s, d->buf + d->pos, got);
	d->pos += got;
	while (got < n) {
		ssize_t r = kg_source_read(d->src, p->s + got, (size_t)n - got, d->err);
		if (r <= 0) {
			free(p);
			if (r < 0)
				return -1;
			return fail(d, "truncated pickle: %s needs %" PRIu64 " more bytes, the data ends at byte %" PRId64,
				    opnames[d->op], n - got, d->base + (int64_t)d->len);
		}
		got += (size_t)r;
		d->base += r; /* bytes consumed outside buf */
	}
	pval v = {.t = type};
	v.u.p = p;
	return push(d, v);
}

/* ---- main loop ----------------------------------------------------------- */

static int refuse(dec *d)
{
	const char *name = opnames[d->op];
	switch (d->op) {
	case 'c': case 0x93: case 'R': case 'b': case 'i': case 'o': case 0x81:
	case 0x92: case 'P': case 'Q': case 0x82: case 0x83: case 0x84:
		return fail(d, "refusing pickle opcode %s (0x%02x): it imports or builds Python objects, "
			    "which an allocator snapshot never contains", name, d->op);
	case 0x96: case 0x97: case 0x98:
		return fail(d, "refusing pickle opcode %s (0x%02x): out-of-band buffers never occur in snapshots",
			    name, d->op);
	default:
		if (name)
			return fail(d, "unsupported pickle opcode %s (0x%02x): not used by allocator snapshots",
				    name, d->op);
		return fail(d, "corrupt pickle: unknown opcode 0x%02x", d->op);
	}
}

static int step(dec *d, pval *result, bool *done)
{
	pval a, b;
	long m;
	switch (d->op) {
	case 0x80: /* PROTO */
		NEED(1);
		if (d->buf[d->pos] < 2 || d->buf[d->pos] > 5)
			return fail(d, "unsupported pickle protocol %d (snapshots use 2 to 5)", d->buf[d->pos]);
		d->pos++;
		return 0;
	case 0x95: /* FRAME: advisory */
		NEED(8);
		d->pos += 8;
		return 0;
	case '.': /* STOP */
		if (pop(d, result) < 0)
			return -1;
		*done = true;
		return 0;
	case '(':
		if (d->nmarks >= KG_PICKLE_MAX_DEPTH)
			return fail(d, "pickle nesting deeper than %d", KG_PICKLE_MAX_DEPTH);
		d->mdrop[d->nmarks] = d->sp > 0 && d->stack[d->sp - 1].t == PV_DROP;
		d->marks[d->nmarks++] = d->sp;
		return 0;
	case '0': /* POP */
		if (d->nmarks && d->marks[d->nmarks - 1] == d->sp) {
			d->nmarks--;
			return 0;
		}
		if (pop(d, &a) < 0)
			return -1;
		pv_release(d, &a);
		return 0;
	case '1': /* POP_MARK */
		if ((m = pop_mark(d)) < 0)
			return -1;
		while (d->sp > (size_t)m)
			pv_release(d, &d->stack[--d->sp]);
		return 0;
	case '2': /* DUP */
		if (d->sp <= floor_(d))
			return fail(d, "corrupt pickle: DUP on an empty stack");
		a = d->stack[d->sp - 1];
		if (a.t == PV_TENTRY)
			return fail(d, layout_msg, "a trace entry is duplicated");
		if (is_node(&a))
			a.u.p->refs++;
		return push(d, a);
	case '}':
		return push_container(d, PV_DICT);
	case ']':
		return push_container(d, PV_LIST);
	case ')':
		return make_tuple(d, d->sp);
	case 't':
		if ((m = pop_mark(d)) < 0)
			return -1;
		return make_tuple(d, (size_t)m);
	case 0x85: case 0x86: case 0x87: {
		size_t k = (size_t)(d->op - 0x84);
		if (d->sp < floor_(d) + k)
			return fail(d, "corrupt pickle: %s needs %zu items on the stack", opnames[d->op], k);
		return make_tuple(d, d->sp - k);
	}
	case 's': /* SETITEM */
		if (d->sp < floor_(d) + 3)
			return fail(d, "corrupt pickle: SETITEM needs a dict, a key and a value");
		b = d->stack[--d->sp];
		a = d->stack[--d->sp];
		return setitem(d, &d->stack[d->sp - 1], a, b);
	case 'u': { /* SETITEMS */
		if ((m = pop_mark(d)) < 0)
			return -1;
		size_t from = (size_t)m;
		if (from == 0 || from - 1 < floor_(d) || (d->sp - from) % 2)
			return fail(d, "corrupt pickle: SETITEMS without a dict or with an odd item count");
		int rc = 0;
		size_t top = d->sp;
		d->sp = from;
		close_container(&d->stack[from - 1]);
		for (size_t i = from; i < top; i += 2) {
			if (rc == 0)
				rc = setitem(d, &d->stack[from - 1], d->stack[i], d->stack[i + 1]);
			else {
				pv_release(d, &d->stack[i]);
				pv_release(d, &d->stack[i + 1]);
			}
		}
		return rc;
	}
	case 'a': /* APPEND */
		if (d->sp < floor_(d) + 2)
			return fail(d, "corrupt pickle: APPEND needs a list and a value");
		a = d->stack[--d->sp];
		return append(d, &d->stack[d->sp - 1], a);
	case 'e': { /* APPENDS */
		if ((m = pop_mark(d)) < 0)
			return -1;
		size_t from = (size_t)m;
		if (from == 0 || from - 1 < floor_(d))
			return fail(d, "corrupt pickle: APPENDS without a list");
		int rc = 0;
		size_t top = d->sp;
		d->sp = from;
		close_container(&d->stack[from - 1]);
		if (d->stack[from - 1].t == PV_DROP) {
			for (size_t i = from; i < top; i++)
				if (d->stack[i].t != PV_DROP)
					pv_release(d, &d->stack[i]);
			return 0;
		}
		for (size_t i = from; i < top; i++) {
			if (rc == 0)
				rc = append(d, &d->stack[from - 1], d->stack[i]);
			else
				pv_release(d, &d->stack[i]);
		}
		return rc;
	}
	case 'K':
		NEED(1);
		return push_int(d, d->buf[d->pos++]);
	case 'M':
		NEED(2);
		d->pos += 2;
		return push_int(d, d->buf[d->pos - 2] | d->buf[d->pos - 1] << 8);
	case 'J':
		NEED(4);
		d->pos += 4;
		return push_int(d, (int32_t)le32(d->buf + d->pos - 4));
	case 0x8a: { /* LONG1 */
		NEED(1);
		size_t n = d->buf[d->pos];
		NEED(1 + n);
		d->pos += 1 + n;
		return push_long(d, d->buf + d->pos - n, n);
	}
	case 0x8b: { /* LONG4 */
		NEED(4);
		int32_t n = (int32_t)le32(d->buf + d->pos);
		if (n < 0)
			return fail(d, "corrupt pickle: LONG4 with negative length %d", n);
		if ((uint32_t)n > KG_PICKLE_MAX_LONG)
			return fail(d, "LONG4 integer of %d bytes exceeds the %u-byte limit", n, KG_PICKLE_MAX_LONG);
		NEED(4 + (size_t)n);
		d->pos += 4 + (size_t)n;
		return push_long(d, d->buf + d->pos - n, (size_t)n);
	}
	case 'G': { /* BINFLOAT, big-endian */
		NEED(8);
		uint64_t u = 0;
		for (int i = 0; i < 8; i++)
			u = u << 8 | d->buf[d->pos + i];
		d->pos += 8;
		pval v = {.t = PV_FLOAT};
		memcpy(&v.u.f, &u, sizeof u);
		return push(d, v);
	}
	case 'N':
		return push(d, (pval){.t = PV_NONE});
	case 0x88: case 0x89: {
		pval v = {.t = PV_BOOL};
		v.u.i = d->op == 0x88;
		return push(d, v);
	}
	case 0x8c: /* SHORT_BINUNICODE */
	case 'C':  /* SHORT_BINBYTES */
		NEED(1);
		d->pos++;
		return push_string(d, d->buf[d->pos - 1], d->op == 'C' ? PV_BYTES : PV_STR);
	case 'X': /* BINUNICODE */
	case 'B': /* BINBYTES */
		NEED(4);
		d->pos += 4;
		return push_string(d, le32(d->buf + d->pos - 4), d->op == 'B' ? PV_BYTES : PV_STR);
	case 0x8d: /* BINUNICODE8 */
	case 0x8e: /* BINBYTES8 */
		NEED(8);
		d->pos += 8;
		return push_string(d, le64(d->buf + d->pos - 8), d->op == 0x8e ? PV_BYTES : PV_STR);
	case 0x94: /* MEMOIZE */
		return memo_put(d, d->nmemo);
	case 'q':
		NEED(1);
		return memo_put(d, d->buf[d->pos++]);
	case 'r':
		NEED(4);
		d->pos += 4;
		return memo_put(d, le32(d->buf + d->pos - 4));
	case 'h':
		NEED(1);
		if (memo_get(d, d->buf[d->pos++]) < 0)
			return -1;
		return drop_gets(d);
	case 'j':
		NEED(4);
		d->pos += 4;
		if (memo_get(d, le32(d->buf + d->pos - 4)) < 0)
			return -1;
		return drop_gets(d);
	default:
		return refuse(d);
	}
}

/* ---- conversion to cJSON ------------------------------------------------------ */

static bool plain_ascii(const pnode *p)
{
	for (size_t i = 0; i < p->n; i++)
		if ((unsigned char)p->s[i] < 0x20 || (unsigned char)p->s[i] > 0x7e)
			return false;
	return true;
}

/* A frame dict whose "filename" ends in ".py". */
static bool python_frame(const pval *f)
{
	if (f->t != PV_DICT)
		return false;
	const pnode *p = f->u.p;
	for (size_t i = 0; i + 1 < p->n; i += 2) {
		if (str_is(&p->items[i], "filename", 8)) {
			const pval *fn = &p->items[i + 1];
			return fn->t == PV_STR && fn->u.p->n >= 3 && !memcmp(fn->u.p->s + fn->u.p->n - 3, ".py", 3);
		}
	}
	return false;
}

static cJSON *to_json(dec *d, const pval *v);

/* A list or tuple as an array; with only_py (a "frames" list when
 * sink->python_frames_only) only Python frame dicts are kept. */
static cJSON *list_json(dec *d, const pval *v, bool only_py)
{
	cJSON *a = cJSON_CreateArray();
	if (v->u.p->role == R_TLIST)
		return a;
	for (size_t i = 0; i < v->u.p->n; i++) {
		if (only_py && !python_frame(&v->u.p->items[i]))
			continue;
		cJSON *c = to_json(d, &v->u.p->items[i]);
		if (!c) {
			cJSON_Delete(a);
			return NULL;
		}
		cJSON_AddItemToArray(a, c);
	}
	return a;
}

static cJSON *to_json_inner(dec *d, const pval *v);

/* Nesting is checked again here, defensively: store_check already keeps
 * every stored container within KG_PICKLE_MAX_DEPTH, and sealing rules out
 * cycles. */
static cJSON *to_json(dec *d, const pval *v)
{
	if (d->jdepth >= KG_PICKLE_MAX_DEPTH) {
		kg_fail_at(d->err, d->op_off, "pickle nesting deeper than %d (or a recursive structure)",
			   KG_PICKLE_MAX_DEPTH);
		return NULL;
	}
	d->jdepth++;
	cJSON *c = to_json_inner(d, v);
	d->jdepth--;
	return c;
}

static cJSON *to_json_inner(dec *d, const pval *v)
{
	if (d->budget == 0) {
		kg_fail_at(d->err, d->op_off, "pickle expands to more than %u values (shared references)",
			   KG_PICKLE_MAX_NODES);
		return NULL;
	}
	d->budget--;
	switch (v->t) {
	case PV_NONE: return cJSON_CreateNull();
	case PV_BOOL: return cJSON_CreateBool(v->u.i != 0);
	case PV_INT: return cJSON_CreateNumber((double)v->u.i);
	case PV_BIG: return cJSON_CreateNumber(v->u.f);
	case PV_FLOAT: return isfinite(v->u.f) ? cJSON_CreateNumber(v->u.f) : cJSON_CreateNull();
	case PV_STR:
	case PV_BYTES: {
		if (plain_ascii(v->u.p))
			return cJSON_CreateString(v->u.p->s);
		char *s = kg_sanitize_utf8(v->u.p->s, v->u.p->n);
		cJSON *j = cJSON_CreateString(s);
		free(s);
		return j;
	}
	case PV_LIST:
	case PV_TUPLE:
		return list_json(d, v, false);
	case PV_DICT: {
		cJSON *o = cJSON_CreateObject();
		for (size_t i = 0; i + 1 < v->u.p->n; i += 2) {
			const pval *k = &v->u.p->items[i];
			char num[64], *key;
			if (k->t == PV_STR)
				key = plain_ascii(k->u.p) ? kg_strdup(k->u.p->s) : kg_sanitize_utf8(k->u.p->s, k->u.p->n);
			else {
				if (k->t == PV_BIG)
					snprintf(num, sizeof num, "%.17g", k->u.f);
				else if (k->t == PV_BOOL)
					snprintf(num, sizeof num, "%s", k->u.i ? "True" : "False");
				else
					snprintf(num, sizeof num, "%" PRId64, k->u.i);
				key = kg_strdup(num);
			}
			const pval *val = &v->u.p->items[i + 1];
			cJSON *c = val->t == PV_LIST && d->sink && d->sink->python_frames_only &&
					   str_is(k, "frames", 6) ? list_json(d, val, true) : to_json(d, val);
			if (!c) {
				free(key);
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToObject(o, key, c);
			free(key);
		}
		return o;
	}
	default:
		kg_fail_at(d->err, d->op_off, layout_msg, "a streamed trace entry is the result");
		return NULL;
	}
}

cJSON *kg_pickle_load(kg_source *src, const kg_trace_sink *sink, kg_error *err)
{
	dec *d = kg_calloc(1, sizeof *d);
	d->src = src;
	d->err = err;
	d->sink = sink;
	d->cap = BUFCAP;
	d->buf = kg_malloc(d->cap);
	d->budget = KG_PICKLE_MAX_NODES;
	pval result = {.t = PV_NONE};
	bool done = false;
	int rc = 0;
	while (!done) {
		if (d->pos >= d->len) {
			d->op = 0;
			d->op_off = d->base + (int64_t)d->len;
			if (d->len - d->pos < 1 && (rc = fill(d, 1)) < 0) {
				if (d->eof)
					kg_fail_at(err, d->base + (int64_t)d->len,
						   "truncated pickle: the data ends before STOP");
				break;
			}
		}
		d->op_off = d->base + (int64_t)d->pos;
		d->op = d->buf[d->pos++];
		if ((rc = step(d, &result, &done)) < 0)
			break;
	}
	cJSON *out = NULL;
	if (rc == 0) {
		out = to_json(d, &result);
		pv_release(d, &result);
	}
	while (d->sp)
		pv_release(d, &d->stack[--d->sp]);
	for (size_t i = 0; i < d->nkept; i++)
		pv_release(d, &d->kept[i]);
	free(d->kept);
	while (d->free_te) {
		tentry *e = d->free_te;
		d->free_te = e->next;
		free(e);
	}
	free(d->memo);
	free(d->dead);
	free(d->stack);
	free(d->buf);
	free(d);
	return out;
}
