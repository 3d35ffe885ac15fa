/* pickle.h — a safe, streaming reader for the subset of Python pickle that
 * allocator snapshots use (protocols 2–5; formats.md §4.5–4.6; written by
 * `torch.cuda.memory._dump_snapshot` with `pickle.dump`, CPython 3.8+
 * default protocol 4, and by the TorchScript pickler, protocol 2).
 *
 * Only plain data is decoded: dict, list, tuple, str, bytes, int, float,
 * bool, None, with the memo (BINPUT/MEMOIZE/BINGET) so shared objects work —
 * the decoded value is a DAG, held with reference counts, and expanded into
 * a tree only when converted to cJSON. A recursive structure (a container
 * stored into itself or into one already stored elsewhere; CPython pickles
 * these, snapshots never hold one) is refused at the storing opcode, so
 * every path frees everything. Every opcode that would import, build
 * or call an object (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ,
 * NEWOBJ_EX, PERSID, BINPERSID, EXT1/2/4, out-of-band buffers) is refused
 * with an error naming the opcode and its byte offset; nothing is ever
 * executed. Truncated or corrupt input is an error with the offset, never a
 * crash or a hang. Limits: nesting depth KG_PICKLE_MAX_DEPTH (and runs of
 * KG_PICKLE_MAX_OPEN lists/dicts pushed one above another, refused as they
 * are pushed), expansion of shared references to KG_PICKLE_MIN_NODES +
 * KG_PICKLE_NODES_PER_BYTE per byte read (at most KG_PICKLE_MAX_NODES),
 * checked as references are stored, stack
 * KG_PICKLE_MAX_STACK items, one string KG_PICKLE_MAX_STR bytes, memo
 * indices no larger than the bytes read so far, integers wider than 64 bits
 * (LONG1/LONG4) are kept as a saturated double approximation, LONG4 payloads
 * over KG_PICKLE_MAX_LONG bytes are refused.
 *
 * Streaming: with a trace sink, the entries of root["device_traces"][d] are
 * handed to the sink one at a time and never stored, and whatever they
 * contain (frame lists) is skipped, so memory stays far below the file size;
 * the returned tree then has device_traces[d] as empty lists. */
#ifndef KG_PICKLE_H
#define KG_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "read/source.h"
#include "model/util.h"

struct cJSON;

#define KG_PICKLE_MAX_DEPTH 200          /* container nesting (values and MARKs) */
#define KG_PICKLE_MAX_OPEN 32768u       /* lists/dicts pushed one above another, unfilled */
#define KG_PICKLE_MAX_STACK (1u << 22)   /* items on the unpickling stack */
#define KG_PICKLE_MAX_STR (64u << 20)    /* bytes in one str/bytes value */
#define KG_PICKLE_MAX_LONG 4096u         /* bytes in one LONG4 integer */
#define KG_PICKLE_MAX_NODES 8000000u     /* JSON values after expanding sharing */
#define KG_PICKLE_MIN_NODES 500000u      /* … allowed for any input size (~40 MiB of cJSON) */
#define KG_PICKLE_NODES_PER_BYTE 16u     /* … plus this many per input byte */

/* One allocator trace entry (formats.md §4.2, "Trace entry keys"). Integer
 * fields are KG_NONE when the entry lacks them. action points into storage
 * valid only during the callback; it is not NUL-terminated beyond
 * action_len (it is, in practice, but use the length). */
typedef struct kg_trace_entry {
	const char *action;       /* "alloc", "free_completed", "oom", …; NULL if absent */
	size_t action_len;
	int64_t addr;             /* block/segment address */
	int64_t size;             /* bytes (requested size for alloc/free_*) */
	int64_t device_free;      /* oom entries: cudaMemGetInfo free bytes */
	int64_t time_us;          /* epoch microseconds (≈2.2+) */
} kg_trace_entry;

typedef struct kg_trace_sink {
	void *ctx;
	/* Called for each entry of device_traces[device], in file order; NULL:
	 * traces are built into the tree like everything else. */
	void (*entry)(void *ctx, int device, const kg_trace_entry *e);
	/* In the returned tree, every "frames" list keeps only the frame dicts
	 * whose "filename" ends in ".py" (C++ frames dropped): all that the
	 * top-sites rule looks at, at a fraction of the memory. */
	bool python_frames_only;
} kg_trace_sink;

/* Decodes the pickle read from src. Returns the value as a cJSON tree
 * (tuples become arrays, bytes become strings with non-UTF-8 bytes replaced,
 * ints beyond 2^53 lose precision as cJSON numbers do, dict keys that are
 * ints become decimal strings), or NULL with err (offset = byte offset of the
 * offending opcode in the decompressed stream). sink may be NULL (or have
 * no entry callback): then everything, traces included, is built. Trailing bytes after STOP are
 * ignored, as pickle.load does. */
struct cJSON *kg_pickle_load(kg_source *src, const kg_trace_sink *sink, kg_error *err);

/* Name of a pickle opcode byte ("GLOBAL", "BINGET", …), or NULL when the
 * byte is no opcode. From CPython Lib/pickletools.py. */
const char *kg_pickle_opname(unsigned char op);

#endif
