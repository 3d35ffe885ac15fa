/* Unit tests for pickle.c: the safe reader refuses object-building opcodes
 * with the opcode and byte offset, rejects truncated, oversized, deeply
 * nested and memo-corrupt input cleanly, and decodes plain data exactly.
 * The hostile inputs are the classic payloads (os.system via GLOBAL/REDUCE,
 * protocol 0 and 4) written out byte by byte. Run from the source root. */
#include "read/pickle.h"
#include "tap.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpl[] = "/tmp/kgpickleXXXXXX";

/* Writes bytes to a temporary file and decodes it (sink optional). */
static cJSON *load_bytes(const void *p, size_t n, const kg_trace_sink *sink, kg_error *err)
{
	char path[sizeof tmpl];
	memcpy(path, tmpl, sizeof tmpl);
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		return NULL;
	close(fd);
	kg_source src;
	memset(err, 0, sizeof *err);
	err->offset = -1;
	cJSON *v = NULL;
	if (kg_source_open(&src, path, err) == 0)
		v = kg_pickle_load(&src, sink, err);
	kg_source_close(&src);
	unlink(path);
	return v;
}

static void expect_error(const char *bytes, size_t n, int64_t offset, const char *needle, const char *what)
{
	kg_error err;
	cJSON *v = load_bytes(bytes, n, NULL, &err);
	TAP_OK(v == NULL, "%s: rejected", what);
	cJSON_Delete(v);
	TAP_EQ_I64(err.offset, offset, "%s: error at byte %lld", what, (long long)offset);
	TAP_OK(strstr(err.msg, needle) != NULL, "%s: message names '%s' (%s)", what, needle, err.msg);
}

static void count_entry(void *ctx, int device, const kg_trace_entry *e)
{
	(void)device;
	(void)e;
	(*(long *)ctx)++;
}

static char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len);
	*n = fread(buf, 1, (size_t)len, f);
	fclose(f);
	return buf;
}

int main(void)
{
	/* The classic: cos\nsystem\n(S'echo pwned'\ntR. (protocol 0) */
	static const char p0[] = "cos\nsystem\n(S'echo pwned'\ntR.";
	expect_error(p0, sizeof p0 - 1, 0, "GLOBAL", "protocol-0 os.system");
	/* protocol 4: PROTO FRAME "posix" "system" STACK_GLOBAL "echo" TUPLE1 REDUCE */
	static const char p4[] = "\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00"
				 "\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x04" "echo\x94\x85\x94R\x94.";
	expect_error(p4, sizeof p4 - 1, 28, "STACK_GLOBAL", "protocol-4 os.system");
	static const char red[] = "\x80\x04N)R.";
	expect_error(red, sizeof red - 1, 4, "REDUCE", "REDUCE alone");
	static const struct { unsigned char op; const char *name; } bad[] = {
		{'b', "BUILD"}, {'i', "INST"}, {'o', "OBJ"}, {0x81, "NEWOBJ"}, {0x92, "NEWOBJ_EX"},
		{'P', "PERSID"}, {'Q', "BINPERSID"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"},
		{0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"}, {0x96, "BYTEARRAY8"}, {0x8f, "EMPTY_SET"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char b[4] = {'\x80', '\x04', (char)bad[i].op, '.'};
		expect_error(b, 4, 2, bad[i].name, bad[i].name);
	}
	expect_error("\x80\x04\xff.", 4, 2, "unknown opcode 0xff", "unknown opcode");
	expect_error("\x80\x09N.", 4, 0, "protocol 9", "protocol 9");

	/* LONG4 announcing 1 GiB of digits */
	expect_error("\x80\x04\x8b\x00\x00\x00\x40", 7, 2, "LONG4", "LONG4 of 1 GiB");
	expect_error("\x80\x04\x8b\xff\xff\xff\xff.", 8, 2, "negative", "LONG4 negative length");
	/* BINUNICODE announcing 4 GiB − 1 */
	expect_error("\x80\x04X\xff\xff\xff\xff", 7, 2, "limit", "BINUNICODE of 4 GiB");
	/* memo */
	expect_error("\x80\x04h\x05.", 5, 2, "memo index 5 out of range", "BINGET 5 on an empty memo");
	expect_error("\x80\x04]r\xff\xff\xff\x7f.", 9, 3, "memo index", "LONG_BINPUT 2^31-1");
	/* nesting: 1000 MARKs; 300 nested lists */
	char deep[1100];
	memcpy(deep, "\x80\x04", 2);
	memset(deep + 2, '(', 1000);
	expect_error(deep, 1002, 2 + 200, "nesting", "1000 MARKs");
	char nest[2 + 300 + 299 + 1];
	memcpy(nest, "\x80\x04", 2);
	memset(nest + 2, ']', 300);
	memset(nest + 302, 'a', 299);
	nest[601] = '.';
	expect_error(nest, sizeof nest, 302 + 200 - 1, "nesting", "300 nested lists");
	/* billion laughs: L_i = [L_{i-1}, L_{i-1}] through the memo, 40 levels */
	kg_buf lol = {0};
	kg_buf_append(&lol, "\x80\x04]\x94", 4);
	for (int i = 1; i <= 40; i++) {
		char step[] = {']', '\x94', '(', 'h', (char)(i - 1), 'h', (char)(i - 1), 'e', '0'};
		kg_buf_append(&lol, step, sizeof step);
	}
	kg_buf_append(&lol, "h\x28.", 3);
	kg_error err;
	cJSON *v = load_bytes(lol.data, lol.len, NULL, &err);
	/* refused while the DAG is built (O(1) per reference), not when it is
	 * expanded: L_18, 2^19 - 1 values, exceeds the KG_PICKLE_MIN_NODES budget */
	TAP_OK(v == NULL && strstr(err.msg, "expands"), "2^40 shared references refused (%s)", err.msg);
	TAP_EQ_I64(err.offset, 2 + 2 + 17 * 9 + 7, "... at the APPENDS that makes L_18 (byte %lld)", (long long)err.offset);
	kg_buf_free(&lol);
	/* cycles (CPython pickles them; a snapshot never holds one) are refused
	 * where the storing opcode is, and everything built so far is freed —
	 * the ASan build checks for leaks */
	expect_error("\x80\x04]\x94h\x00" "a.", 8, 6, "recursive", "a list appended to itself");
	expect_error("\x80\x02]q\x00h\x00" "a.", 8, 7, "recursive", "l.append(l) as CPython pickles it");
	expect_error("\x80\x04]\x94(h\x00" "e.", 9, 7, "recursive", "a list APPENDS itself");
	expect_error("\x80\x04}\x94\x8c\x01kh\x00s.", 11, 9, "recursive", "a dict set into itself");
	/* L = [A], A = [L]: A takes L first, so L is sealed when it takes A */
	expect_error("\x80\x04]\x94]\x94h\x00" "aa.", 11, 9, "recursive", "two lists holding each other");
	/* d = {"self": [d]}, CPython protocol 4 */
	static const char dself[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x04self\x94]\x94h\x00" "as.";
	expect_error(dself, sizeof dself - 1, 25, "recursive", "d = {'self': [d]}");
	/* a million `]` then a million APPENDs: refused as the lists are
	 * pushed, before they cost memory */
	size_t nb = 1000000;
	char *bomb = malloc(2 + 2 * nb + 1);
	memcpy(bomb, "\x80\x02", 2);
	memset(bomb + 2, ']', nb);
	memset(bomb + 2 + nb, 'a', nb - 1);
	bomb[2 + 2 * nb - 1] = '.';
	expect_error(bomb, 2 + 2 * nb, 2 + KG_PICKLE_MAX_OPEN, "nesting too deep", "1,000,000 nested lists");
	/* the same run of lists when they are siblings, [[], [], …] with
	 * 20,000 items in one MARK (as the TorchScript pickler writes a long
	 * list, unbatched), decodes */
	size_t ns = 20000;
	memcpy(bomb, "\x80\x02](", 4);
	memset(bomb + 4, ']', ns);
	memcpy(bomb + 4 + ns, "e.", 2);
	v = load_bytes(bomb, 4 + ns + 2, NULL, &err);
	TAP_EQ_I64(cJSON_GetArraySize(v), (long long)ns, "20,000 empty lists in one APPENDS decode (%s)", v ? "" : err.msg);
	cJSON_Delete(v);
	free(bomb);
	expect_error("\x80\x04.", 3, 2, "empty stack", "STOP on empty stack");
	expect_error("\x80\x04N", 3, 3, "before STOP", "no STOP");
	expect_error("\x80\x04\x8c\x10" "abc", 7, 2, "truncated", "string cut short");
	expect_error("\x80\x04]Nu.", 5, 4, "MARK", "SETITEMS without MARK");
	expect_error("\x80\x04N(Nu.", 6, 5, "dict", "SETITEMS on None");

	/* plain data decodes exactly: {"a": [1, -1, 2**40, 2**70, 1.5, None, True, (1,)], 7: "x"} */
	static const char ok[] = "\x80\x04}\x94(\x8c\x01" "a]\x94(K\x01J\xff\xff\xff\xff"
				 "\x8a\x06\x00\x00\x00\x00\x00\x01" "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x40"
				 "G\x3f\xf8\x00\x00\x00\x00\x00\x00N\x88K\x01\x85" "eK\x07\x8c\x01xu.";
	v = load_bytes(ok, sizeof ok - 1, NULL, &err);
	TAP_OK(v != NULL, "plain data decodes (%s)", err.msg);
	char *s = v ? cJSON_PrintUnformatted(v) : NULL;
	TAP_EQ_STR(s, "{\"a\":[1,-1,1099511627776,1.1805916207174113e+21,1.5,null,true,[1]],\"7\":\"x\"}",
		   "decoded value");
	free(s);
	cJSON_Delete(v);
	/* LONG1 edge cases: 8 bytes of 0xff is -1; 2^63 needs 9 bytes and is big */
	v = load_bytes("\x80\x04\x8a\x08\xff\xff\xff\xff\xff\xff\xff\xff.", 13, NULL, &err);
	TAP_OK(v && v->valuedouble == -1, "LONG1 8×0xff = -1");
	cJSON_Delete(v);
	v = load_bytes("\x80\x04\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00.", 14, NULL, &err);
	TAP_OK(v && v->valuedouble == 9223372036854775808.0, "LONG1 2^63 kept as a big number");
	cJSON_Delete(v);

	/* a real snapshot cut at every 1/16th: always an error with an offset
	 * inside the data, never a crash */
	size_t n;
	char *real = read_file("testdata/snapshots/eor-nn-counterfactuals.pickle", &n);
	TAP_OK(real != NULL, "read eor-nn-counterfactuals.pickle");
	for (int k = 1; real && k < 16; k++) {
		size_t cut = n * (size_t)k / 16;
		long entries = 0;
		kg_trace_sink sink = {&entries, count_entry, true};
		v = load_bytes(real, cut, &sink, &err);
		TAP_OK(v == NULL && err.offset >= 0 && err.offset <= (int64_t)cut && strstr(err.msg, "truncated"),
		       "cut at %d/16 (%zu bytes): %s at byte %lld", k, cut, err.msg, (long long)err.offset);
		cJSON_Delete(v);
	}
	/* whole file, streamed and not: same tree apart from the traces */
	long entries = 0;
	kg_trace_sink sink = {&entries, count_entry, true};
	cJSON *streamed = real ? load_bytes(real, n, &sink, &err) : NULL;
	kg_trace_sink py_only = {NULL, NULL, true};
	cJSON *full = real ? load_bytes(real, n, &py_only, &err) : NULL;
	TAP_OK(streamed && full, "whole file decodes both ways");
	TAP_EQ_I64(entries, 5803, "5803 trace entries streamed");
	const cJSON *tr = cJSON_GetArrayItem(cJSON_GetObjectItem(full, "device_traces"), 0);
	TAP_EQ_I64(cJSON_GetArraySize(tr), 5803, "5803 trace entries built without a sink");
	TAP_OK(cJSON_Compare(cJSON_GetObjectItem(streamed, "segments"), cJSON_GetObjectItem(full, "segments"), 1),
	       "segments identical streamed and not");
	cJSON_Delete(streamed);
	cJSON_Delete(full);
	free(real);

	/* 500 deterministic corruptions of a small real-layout snapshot (1–4
	 * random bytes overwritten, streamed and not): each either decodes or
	 * fails with an offset inside the data — no crash, no hang (valgrind /
	 * ASan builds make this a memory-safety check too) */
	char *syn = read_file("testdata/snapshots/synthetic-p5.pickle", &n);
	TAP_OK(syn != NULL, "read synthetic-p5.pickle");
	uint32_t seed = 12345;
	int clean = 0, decoded = 0;
	for (int k = 0; syn && k < 500; k++) {
		char *m = malloc(n);
		memcpy(m, syn, n);
		int flips = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;
		for (int j = 0; j < flips; j++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % n;
			seed = seed * 1103515245u + 12345u;
			m[at] = (char)(seed >> 16);
		}
		long cnt = 0;
		kg_trace_sink sk = {&cnt, count_entry, true};
		v = load_bytes(m, n, k % 2 ? &sk : NULL, &err);
		if (v)
			decoded++;
		else if (err.offset >= 0 && err.offset <= (int64_t)n && err.msg[0])
			clean++;
		else
			printf("#   mutation %d: error without offset: %s\n", k, err.msg);
		cJSON_Delete(v);
		free(m);
	}
	TAP_EQ_I64(clean + decoded, 500, "500 corrupted pickles: %d rejected with an offset, %d still decode", clean, decoded);
	free(syn);
	return tap_done();
}
