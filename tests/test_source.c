/* Unit tests for the input side of issue 13: sniffing with text as the
 * fallback (source.c), gzip members and plain text after them, a file that
 * shrinks while it is read, envelope sniffing and time stamps (envelope.c),
 * reading order and ranks from paths (inputs.c). Inputs are written to a
 * temporary directory; the real logs are tested end to end by
 * test_envelopes.py, test_cli.sh and the golden logs. */
#include "tap.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "read/envelope.h"
#include "read/inputs.h"
#include "read/source.h"
#include "model/util.h"

static char dir[] = "/tmp/kg-test-source-XXXXXX";

static char *write_file(const char *name, const void *data, size_t n)
{
	char *p = kg_asprintf("%s/%s", dir, name);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
	if (system(cmd) != 0)
		abort();
	*slash = '/';
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(data, 1, n, f) != n)
		abort();
	fclose(f);
	return p;
}

static char *gzip_bytes(const char *text, size_t *out_n)
{
	/* a gzip member (RFC 1952) via zlib's deflate with the gzip wrapper */
	z_stream z = {0};
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&z, strlen(text)) + 64;
	char *out = kg_malloc(cap);
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static kg_kind sniff_text(const char *name, const char *text, size_t n)
{
	char *p = write_file(name, text, n);
	kg_source src;
	kg_error err = {0};
	kg_kind k = KG_KIND_BINARY;
	if (kg_source_open(&src, p, &err) == 0)
		k = kg_source_sniff(&src);
	kg_source_close(&src);
	free(p);
	return k;
}

static char *read_all(const char *path, kg_source *src, size_t *n)
{
	kg_error err = {0};
	if (kg_source_open(src, path, &err) < 0)
		return NULL;
	return kg_source_slurp(src, 1 << 20, n, &err);
}

static void test_sniff(void)
{
	static const struct { const char *name, *text; kg_kind want; const char *why; } cases[] = {
		{"dict.log", "{'lr': 0.001, 'batch_size': 128}\nstep 1\n", KG_KIND_LOG,
		 "a log starting with a printed dict is a log"},
		{"docker.log", "{\"log\":\"a\\n\",\"stream\":\"stderr\"}\n{\"log\":\"b\\n\"}\n", KG_KIND_LOG,
		 "JSON Lines (Docker json-file) is a log"},
		{"stats.json", "{\n  \"allocated_bytes.all.current\": 1024,\n  \"num_ooms\": 1\n}\n", KG_KIND_JSON,
		 "one memory_stats() document is JSON"},
		{"other.json", "{\"name\": \"run\", \"lr\": 0.1}\n", KG_KIND_LOG,
		 "a JSON object of other keys is read as text"},
		/* issue 34 (N7): by the top-level keys, not anywhere */
		{"report.json", "{\n  \"schema\": \"kgmem-diagnose/1\",\n  \"snapshots\": [{\"stats\": "
		 "{\"allocated_bytes.all.current\": 1024}, \"segments\": 1}],\n  \"num_ooms\": [1]\n}\n",
		 KG_KIND_JSON, "memory_stats keys nested, one at the top level: JSON"},
		{"report2.json", "{\n  \"schema\": \"kgmem-diagnose/1\",\n  \"snapshots\": [{\"stats\": "
		 "{\"allocated_bytes.all.current\": 1024, \"num_ooms\": 1}, \"segments\": []}]\n}\n",
		 KG_KIND_LOG, "snapshot and memory_stats keys only nested (the tool's own report): text"},
		{"string.json", "{\"msg\": \"{\\\"segments\\\": [], \\\"num_ooms\\\": 1}\", \"k\": \"segments\"}\n",
		 KG_KIND_LOG, "snapshot keys inside strings, escaped quotes too: text"},
		{"snap.json", "{\"segments\": [{\"device\": 0}], \"device_traces\": [[]]}", KG_KIND_JSON,
		 "an allocator snapshot as JSON: JSON"},
		{"active.json", "{\"active.all.current\": 1}", KG_KIND_JSON, "memory_stats' active.* keys: JSON"},
		{"dashes.log", "---\nstep 1 | loss 0.5\nRuntimeError: CUDA error: out of memory\n", KG_KIND_LOG,
		 "a log starting with --- is a log"},
		{"cfg.yaml", "---\nmodel:\n  dim: 512\n  name: rotate\ndata:\n  test_bs: 128\n", KG_KIND_YAML,
		 "a YAML config after --- is still a config"},
		{"srun.log", " 0: starting\n 1: starting\n12: loading data\n 0: step 1 loss 2.3\n"
		 " 3: Traceback (most recent call last):\n 3:   File \"train.py\", line 10, in <module>\n", KG_KIND_LOG,
		 "srun --label output with padded task numbers is a log, not a config"},
		{"srun-cfg.log", "0: model:\n0:   dim: 512\n0:   name: rotate\n0: data:\n0:   test_bs: 128\n", KG_KIND_LOG,
		 "a config echoed under srun --label is a log"},
		{"weights.yaml", "model:\n  dim: 512\nloss:\n  class_weights:\n    0: 1.0\n    1: 2.5\n", KG_KIND_YAML,
		 "a config with all-digit nested keys is still a config"},
		{"table.txt", "|=====|\n|  PyTorch CUDA memory summary, device ID 0  |\n|=====|\n| row |\n|=====|\n",
		 KG_KIND_SUMMARY, "a memory_summary() table alone is a table"},
		{"table.log", "|=====|\n|  PyTorch CUDA memory summary, device ID 0  |\n|=====|\n| row |\n|=====|\n"
		 "RuntimeError: CUDA error: out of memory\n", KG_KIND_LOG, "a log starting with a table is a log"},
		{"u16.log", "\xff\xfe" "a", KG_KIND_LOG, "UTF-16 LE with a BOM is a log"},
		{"empty.log", "", KG_KIND_EMPTY, "an empty file is empty"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		TAP_OK(sniff_text(cases[i].name, cases[i].text, strlen(cases[i].text)) == cases[i].want, "%s", cases[i].why);
	char nul[6000];
	memset(nul, 0, 4096);
	snprintf(nul + 4096, sizeof nul - 4096, "step 1\nRuntimeError: CUDA error: out of memory\n");
	TAP_OK(sniff_text("nul.log", nul, 4096 + strlen(nul + 4096)) == KG_KIND_LOG, "a NUL page before the text: a log");
}

static void test_gzip(void)
{
	size_t n1, n2;
	char *a = gzip_bytes("first member\n", &n1);
	char *b = gzip_bytes("second member\n", &n2);
	static const char plain[] = "plain after\n";
	char *all = kg_malloc(n1 + n2 + sizeof plain);
	memcpy(all, a, n1);
	memcpy(all + n1, b, n2);
	memcpy(all + n1 + n2, plain, sizeof plain - 1);
	char *p = write_file("multi.log.gz", all, n1 + n2 + sizeof plain - 1);
	kg_source src;
	size_t n = 0;
	char *text = read_all(p, &src, &n);
	TAP_OK(text && n == strlen("first member\nsecond member\nplain after\n") &&
	       !memcmp(text, "first member\nsecond member\nplain after\n", n),
	       "two gzip members then plain text: all of it is read");
	TAP_EQ_I64(src.trailing_at, (int64_t)(n1 + n2), "the plain text's byte offset is recorded");
	TAP_OK(src.gzip, "the input is gzip");
	kg_source_close(&src);
	free(text);
	free(p);
	/* cut inside the second member: an error, never a silent partial read */
	p = write_file("cut.log.gz", all, n1 + n2 / 2);
	kg_error err = {0};
	int opened = kg_source_open(&src, p, &err);
	char *t2 = opened == 0 ? kg_source_slurp(&src, 1 << 20, &n, &err) : NULL;
	TAP_OK(!t2 && strstr(err.msg, "truncated gzip data"), "a member cut short is an error: %s", err.msg);
	kg_source_close(&src);
	free(t2);
	free(p);
	free(all);
	free(a);
	free(b);
}

static void test_shrink(void)
{
	char *big = kg_malloc(1 << 20);
	memset(big, 'x', 1 << 20);
	for (size_t i = 79; i < (1 << 20); i += 80)
		big[i] = '\n';
	char *p = write_file("shrink.log", big, 1 << 20);
	kg_source src;
	kg_error err = {0};
	TAP_OK(kg_source_open(&src, p, &err) == 0, "open the file that will shrink");
	char buf[65536];
	ssize_t r = kg_source_read(&src, buf, sizeof buf, &err);
	TAP_OK(r > 0, "read some of it");
	if (truncate(p, 200000) != 0)
		abort();
	while ((r = kg_source_read(&src, buf, sizeof buf, &err)) > 0)
		;
	TAP_EQ_I64(src.shrunk_to, 200000, "a file that shrank while read: its new size is recorded");
	kg_source_close(&src);
	free(p);
	free(big);
}

static void test_envelope(void)
{
	kg_buf out = {0};
	static const char cri[] = "2025-01-01T00:00:00.123456789Z stderr F RuntimeError: CUDA error: out of memory";
	TAP_EQ_I64(kg_envelope_decode_line(KG_ENV_CRI, cri, strlen(cri), &out), KG_ENV_CRI, "a CRI line decodes");
	TAP_OK(out.len && !strcmp(out.data, "RuntimeError: CUDA error: out of memory\n"), "CRI: the text after the tag");
	kg_buf_reset(&out);
	static const char jr[] = "2025-01-01T00:00:00+0000 node7 python[42]: Traceback (most recent call last):";
	TAP_EQ_I64(kg_envelope_decode_line(KG_ENV_JOURNAL, jr, strlen(jr), &out), KG_ENV_JOURNAL, "a journalctl short-iso line decodes");
	TAP_OK(out.len && !strcmp(out.data, "Traceback (most recent call last):\n"), "journal: the text after ident[pid]:");
	kg_buf_reset(&out);
	static const char sl[] = "3: RuntimeError: CUDA error: out of memory";
	TAP_EQ_I64(kg_envelope_decode_line(KG_ENV_SLURM, sl, strlen(sl), &out), KG_ENV_SLURM, "an srun --label line decodes");
	TAP_OK(out.len && !strncmp(out.data, "[rank3]: ", 9), "Slurm: the label becomes a rank prefix");
	kg_buf_reset(&out);
	static const char js[] = "{\"MESSAGE\":[104,105],\"__REALTIME_TIMESTAMP\":\"1735689600000000\"}";
	TAP_EQ_I64(kg_envelope_decode_line(KG_ENV_JSON, js, strlen(js), &out), KG_ENV_JSON, "journal JSON with a byte-array MESSAGE decodes");
	TAP_OK(out.len && !strcmp(out.data, "hi\n"), "journal JSON: the bytes are the text");
	kg_buf_reset(&out);
	static const char nojs[] = "{\"level\":\"info\",\"n\":3}";
	TAP_EQ_I64(kg_envelope_decode_line(KG_ENV_JSON, nojs, strlen(nojs), &out), 0, "a JSON line with no text field passes through");
	kg_buf_free(&out);
	TAP_EQ_I64(kg_time_ns("1970-01-01T00:00:01.5Z"), 1500000000LL, "time: 1.5 s after the epoch");
	TAP_EQ_I64(kg_time_ns("2025-01-01T01:00:00+01:00"), kg_time_ns("2025-01-01T00:00:00Z"), "time: an offset is taken off");
	TAP_EQ_I64(kg_time_ns("step 5"), KG_NONE, "time: not a time stamp");
	/* the fuzzer's find (fuzz-pipeline, regressions/pipeline/timestamp-year-before-1678):
	 * years int64 nanoseconds cannot hold were a signed overflow */
	TAP_EQ_I64(kg_time_ns("1012-05-01T10:00:02"), KG_NONE, "time: the year 1012 is out of range");
	TAP_EQ_I64(kg_time_ns("0000-01-01 00:00:00"), KG_NONE, "time: the year 0 is out of range");
	TAP_EQ_I64(kg_time_ns("9999-12-31T23:59:59"), KG_NONE, "time: the year 9999 is out of range");
	TAP_EQ_I64(kg_time_ns("1700-01-01T00:00:00Z"), -8520336000LL * 1000000000LL, "time: 1700 is in range");
}

static void test_inputs(void)
{
	TAP_EQ_I64(kg_path_rank("logs/rank3.log"), 3, "rank3.log names rank 3");
	TAP_EQ_I64(kg_path_rank("run/attempt_0/5/stderr.log"), 5, "torchrun --log-dir: attempt_0/5/stderr.log");
	TAP_EQ_I64(kg_path_rank("out/train-rank_12.out"), 12, "train-rank_12.out");
	TAP_EQ_I64(kg_path_rank("logs/train.log"), KG_NONE, "no rank in train.log");
	TAP_EQ_I64(kg_path_rank("logs/cranky7.log"), KG_NONE, "'rank' inside a word is not a rank");
	free(write_file("d/train.log", "c\n", 2));
	free(write_file("d/train.log.1", "b\n", 2));
	free(write_file("d/train.log.2.gz", "a\n", 2));
	free(write_file("d/rank10.log", "x\n", 2));
	free(write_file("d/rank2.log", "x\n", 2));
	free(write_file("d/.hidden", "x\n", 2));
	char *d = kg_asprintf("%s/d", dir);
	kg_input_file *fs;
	size_t n;
	kg_error err = {0};
	TAP_OK(kg_dir_files(d, &fs, &n, &err) == 0 && n == 5, "a directory's files, hidden ones skipped");
	if (n == 5) {
		static const char *const want[] = {"rank2.log", "rank10.log", "train.log.2.gz", "train.log.1", "train.log"};
		for (size_t i = 0; i < 5; i++)
			TAP_EQ_STR(strrchr(fs[i].path, '/') + 1, want[i], "reading order %zu", i);
		TAP_EQ_I64(fs[1].rank, 10, "rank10.log is rank 10");
		TAP_OK(kg_same_rotation(fs[2].path, fs[4].path) && !kg_same_rotation(fs[0].path, fs[1].path),
		       "train.log.2.gz rotates from train.log; rank2 and rank10 are different logs");
	}
	kg_input_files_free(fs, n);
	free(d);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	test_sniff();
	test_gzip();
	test_shrink();
	test_envelope();
	test_inputs();
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 99;
	return tap_done();
}
