/* source.h — opening inputs (files, "-" for stdin), transparent gzip
 * (zlib's inflate over RFC 1952 members, one after another as gzip(1)
 * reads them; plain text after the last member is read too and reported),
 * and sniffing the input kind from content, never from the file name
 * (DESIGN §1). Reads are streamed: memory stays bounded whatever the size. */
#ifndef KG_SOURCE_H
#define KG_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>
#include "model/util.h"

typedef enum kg_kind {
	KG_KIND_LOG,            /* text: the fallback for anything not clearly
	                           another kind (NULs, UTF-16 with a BOM, JSON
	                           Lines, a log starting with a dict, a table
	                           or "---" all read as a log) */
	KG_KIND_PICKLE,         /* \x80 + protocol byte 2–5: allocator snapshot */
	KG_KIND_JSON,           /* one JSON object with snapshot (segments,
	                           device_traces) or memory_stats() keys */
	KG_KIND_SUMMARY,        /* a memory_summary() table and nothing else */
	KG_KIND_YAML,           /* a YAML mapping: a training config (all of
	                           the head's lines are keys, items or comments) */
	KG_KIND_ZIP,            /* PK\3\4: torch.save() archive */
	KG_KIND_EMPTY,          /* zero bytes */
	KG_KIND_BINARY,         /* not text: over 1/8 of the head's non-NUL
	                           bytes are control bytes or invalid UTF-8 */
} kg_kind;

/* Name of a kind as used in messages and the JSON "inputs[].kind". */
const char *kg_kind_name(kg_kind k);

#define KG_SNIFF_BYTES 8192

typedef struct kg_source {
	char *path;            /* as given ("-" for stdin) */
	char *name;            /* display name: path, or "<stdin>" */
	int fd;
	z_stream *zs;          /* inflate state while in a gzip member, or NULL */
	int mode;              /* 0 plain, 1 gzip, 2 plain text after gzip data */
	bool member_open;      /* inside a gzip member (its end not yet seen) */
	unsigned char *in;     /* raw bytes read from fd, not yet used */
	size_t inlen, inpos;
	bool gzip;             /* the stream is gzip-compressed */
	int64_t file_size;     /* bytes on disk for a regular file, else -1 */
	int64_t raw_read;      /* bytes read from fd so far */
	int64_t bytes_read;    /* decompressed bytes handed out so far */
	int64_t trailing_at;   /* byte offset (in the file) of plain text found
	                          after the gzip data, read as text; else -1 */
	int64_t shrunk_to;     /* a regular file found smaller at its end than
	                          when opened: its size then; else -1 */
	unsigned char head[KG_SNIFF_BYTES]; /* first decompressed bytes */
	size_t headlen, headpos;            /* head is replayed by kg_source_read */
	bool eof;
	bool progress;         /* print a progress line on stderr while reading */
	double progress_last;  /* monotonic seconds of the last progress line */
	double progress_start;
} kg_source;

/* Opens path ("-" = standard input) and reads the first KG_SNIFF_BYTES
 * (decompressing gzip). Returns 0, or -1 with err naming the reason
 * (missing, unreadable, a directory, truncated gzip header). */
int kg_source_open(kg_source *src, const char *path, kg_error *err);

/* Same for an already open descriptor (a pipe, a memfd, a socket): fd is
 * taken over (closed on failure and by kg_source_close); name is the display
 * name used in messages and locations. Used by the fuzz harnesses to read a
 * memory buffer. Returns 0, or -1 with err as kg_source_open. */
int kg_source_open_fd(kg_source *src, int fd, const char *name, kg_error *err);

/* Kind of the opened input from its first bytes (see kg_kind). One JSON
 * document is KG_KIND_JSON (a snapshot or memory_stats()) by its shape:
 * a top-level key within the first KG_SNIFF_BYTES that
 * kg_snapshot_json_key() knows; the same keys nested deeper (the tool's
 * own JSON report, a one-record --report spool) leave it text. */
kg_kind kg_source_sniff(const kg_source *src);

/* What a top-level key key[0..n) of a JSON object says the object is:
 * 1 an allocator snapshot's (segments, device_traces;
 * torch.cuda.memory._snapshot()), 2 memory_stats()'s (allocated_bytes,
 * reserved_bytes, active, active_bytes, inactive_split,
 * inactive_split_bytes, requested_bytes, allocation, segment, each alone
 * or before a '.'; num_ooms, num_alloc_retries; torch/cuda/memory.py),
 * 0 neither. */
int kg_snapshot_json_key(const char *key, size_t n);

/* Reads up to n decompressed bytes (the sniffed head first). Returns the
 * count, 0 at end of input, or -1 with err (e.g. "truncated gzip data at
 * byte N", a read error). */
ssize_t kg_source_read(kg_source *src, void *buf, size_t n, kg_error *err);

void kg_source_close(kg_source *src);

/* Turns the progress line on for this source: while it is read, stderr
 * shows `NAME: 312.0 MiB / 1.10 GiB (420 MiB/s)` (for gzip, the compressed
 * bytes consumed), refreshed at most 5 times a second and erased when the
 * source is closed. Callers decide when (a TTY, not under CI, a large input,
 * or --progress). */
void kg_source_set_progress(kg_source *src, bool on);

/* Reads the whole input into memory (at most max bytes; more is an error).
 * For small inputs such as configs and rule files. Returns malloc'd data
 * NUL-terminated, length in *len; NULL with err on failure. */
char *kg_source_slurp(kg_source *src, size_t max, size_t *len, kg_error *err);

#endif
