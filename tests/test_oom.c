/* Unit tests for oom.c, one group per family (DESIGN §4), on real texts:
 * ids name the testdata/corpus/dev.jsonl record a text comes from (byte
 * values are that record's `expect`); texts marked "template" are built
 * from the source template quoted in ../shared/reference/formats.md (§ given)
 * because the corpus has no real instance; their bytes are the nearest byte
 * of the printed size in binary units (DESIGN §4).
 *
 * Negative cases — decided here and in the report: a line that merely
 * mentions memory ("pin_memory=True", "num_ooms: 0", "out of memory
 * retries: 0", DeepSpeed's cache-flush warning, prose such as "to avoid
 * running out of memory we use …" or "CUDA out of memory errors are
 * common") is not an OOM. */
#include "tap.h"
#include "oom.h"
#include "units.h"
#include "util.h"

#include <stdlib.h>

/* Parses text as a window whose first line ends at the first '\n'. */
static int parse(const char *text, kg_oom *o)
{
	return kg_oom_parse(text, strlen(text), strcspn(text, "\n"), o);
}

static void size_is(kg_size s, long long want, const char *id, const char *what)
{
	TAP_EQ_I64(s.bytes, want, "%s %s = %lld", id, what, want);
}

static void none(kg_size s, const char *id, const char *what)
{
	TAP_OK(!kg_size_known(s), "%s %s not stated (null)", id, what);
}

static bool must_parse(const char *text, kg_oom *o, const char *id)
{
	int rc = parse(text, o);
	TAP_OK(rc == 1, "%s parses", id);
	return rc == 1;
}

static void head(const kg_oom *o, const char *id, const char *family, const char *framework,
                 const char *device_type, long long index)
{
	TAP_EQ_STR(o->family, family, "%s family", id);
	TAP_EQ_STR(o->framework, framework, "%s framework", id);
	TAP_EQ_STR(o->device_type, device_type, "%s device.type", id);
	TAP_EQ_I64(o->device_index, index, "%s device.index", id);
}

static void not_oom(const char *text, const char *why)
{
	kg_oom o;
	int rc = parse(text, &o);
	TAP_OK(rc == 0, "not an OOM: %s", why);
	if (rc)
		kg_oom_free(&o);
}

#define NONE KG_NONE

static void test_pytorch1(void)
{
	kg_oom o;
	const char *t = "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; "
		"15.90 GiB total capacity; 13.13 GiB already allocated; 415.88 MiB free; 14.80 GiB "
		"reserved in total by PyTorch)";
	if (must_parse(t, &o, "pt1-0018")) {
		head(&o, "pt1-0018", "pytorch1", "pytorch", "cuda", 0);
		TAP_EQ_STR(o.kind, "oom", "pt1-0018 kind");
		size_is(o.mem.requested, 536870912, "pt1-0018", "requested");
		size_is(o.mem.total_capacity, 17072495002, "pt1-0018", "total_capacity");
		size_is(o.mem.allocated, 14098230149, "pt1-0018", "allocated");
		size_is(o.mem.free, 436081787, "pt1-0018", "free");
		size_is(o.mem.reserved, 15891378995, "pt1-0018", "reserved");
		none(o.mem.reserved_unallocated, "pt1-0018", "reserved_unallocated");
		none(o.mem.allowed, "pt1-0018", "allowed");
		TAP_EQ_I64(o.start, 14, "pt1-0018 message starts at 'CUDA'");
		TAP_EQ_I64(o.end, strlen(t), "pt1-0018 message ends at ')'");
		TAP_OK(o.mem.requested.lo == 536865670 && o.mem.requested.hi == 536876154,
		       "512.00 MiB carries its ±0.005 MiB interval [%lld, %lld]",
		       (long long)o.mem.requested.lo, (long long)o.mem.requested.hi);
		kg_oom_free(&o);
	}

	/* Era A: "cached" is reserved − allocated */
	t = "RuntimeError: CUDA out of memory. Tried to allocate 8.13 GiB (GPU 0; 10.76 GiB total "
	    "capacity; 643.57 MiB already allocated; 8.20 GiB free; 32.43 MiB cached)";
	if (must_parse(t, &o, "pt1-0014")) {
		size_is(o.mem.reserved_unallocated, 34005320, "pt1-0014", "cached → reserved_unallocated");
		none(o.mem.reserved, "pt1-0014", "reserved");
		size_is(o.mem.free, 8804682957, "pt1-0014", "free");
		kg_oom_free(&o);
	}

	/* Era B with a memory fraction (template §1.2, issue 111729 numbers) */
	t = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; "
	    "5.96 GiB total capacity; 4.50 GiB already allocated; 100.00 MiB free; 4.77 GiB allowed; "
	    "4.74 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
	    "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
	    "Management and PYTORCH_CUDA_ALLOC_CONF";
	if (must_parse(t, &o, "allowed")) {
		size_is(o.mem.allowed, 5121748500, "allowed", "allowed");
		size_is(o.mem.reserved, 5089536246, "allowed", "reserved");
		size_is(o.mem.free, 104857600, "allowed", "free");
		TAP_EQ_I64(o.end, strlen(t), "1.x max_split_size_mb hint is part of the message");
		kg_oom_free(&o);
	}

	/* wrapped anywhere, '#' and indentation already stripped (pt1-0044) */
	t = "RuntimeError: CUDA out of memory. Tried to allocate 6.61 GiB \n"
	    "(GPU 1; 10.76 GiB total capacity; 1.25 GiB already allocated; \n"
	    "2.39 GiB free; 6.38 GiB cached)\n"
	    "next line";
	if (must_parse(t, &o, "pt1-0044")) {
		head(&o, "pt1-0044", "pytorch1", "pytorch", "cuda", 1);
		size_is(o.mem.requested, 7097433457, "pt1-0044", "requested");
		size_is(o.mem.allocated, 1342177280, "pt1-0044", "allocated");
		size_is(o.mem.free, 2566242959, "pt1-0044", "free");
		size_is(o.mem.reserved_unallocated, 6850472837, "pt1-0044", "cached");
		TAP_EQ_I64(o.end, strstr(t, "\nnext") - t, "pt1-0044 range ends on the third line");
		kg_oom_free(&o);
	}

	/* a word split by the wrap: "already\nallocated" (pt1-0040) */
	t = "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total "
	    "capacity; 130.35 MiB already\nallocated; 47.06 MiB free; 188.00 MiB reserved in total "
	    "by PyTorch) If reserved memory is >> allocated memory try\nsetting max_split_size_mb to "
	    "avoid fragmentation.\nSee documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF";
	if (must_parse(t, &o, "pt1-0040")) {
		size_is(o.mem.allocated, 136681882, "pt1-0040", "allocated");
		size_is(o.mem.reserved, 197132288, "pt1-0040", "reserved");
		TAP_EQ_I64(o.end, strlen(t), "pt1-0040 hint wrapped over three lines is consumed");
		kg_oom_free(&o);
	}

	/* truncated after the first clause (pt1-0047), and without ')' (pt1-0015) */
	t = "RuntimeError: CUDA out of memory. Tried to allocate 1.36 GiB (GPU 0; 10.92 GiB total capacity;";
	if (must_parse(t, &o, "pt1-0047")) {
		size_is(o.mem.requested, 1460288881, "pt1-0047", "requested");
		size_is(o.mem.total_capacity, 11725260718, "pt1-0047", "total_capacity");
		none(o.mem.allocated, "pt1-0047", "allocated");
		none(o.mem.free, "pt1-0047", "free");
		kg_oom_free(&o);
	}
	t = "RuntimeError: CUDA out of memory. Tried to allocate 1.36 GiB (GPU 0; 10.92 GiB total capacity; 1.2";
	if (must_parse(t, &o, "cut inside a size")) {
		none(o.mem.allocated, "cut inside a size", "allocated");
		kg_oom_free(&o);
	}
	t = "RuntimeError: CUDA out of memory. Tried to allocate 92.00 MiB (GPU 0; 1.96 GiB total "
	    "capacity; 1.46 GiB already allocated; 16.38 MiB free; 1.51 GiB reserved in total by PyTorch";
	if (must_parse(t, &o, "pt1-0015")) {
		size_is(o.mem.reserved, 1621350154, "pt1-0015", "reserved");
		kg_oom_free(&o);
	}

	/* the head cut off: begins at "Tried to allocate" (pt1-0005) */
	t = "Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity; 1.24 GiB already allocated; "
	    "2.88 MiB free; 1.25 GiB reserved in total by PyTorch)";
	if (must_parse(t, &o, "pt1-0005")) {
		head(&o, "pt1-0005", "pytorch1", "pytorch", NULL, 0);
		size_is(o.mem.free, 3019899, "pt1-0005", "free");
		kg_oom_free(&o);
	}
	not_oom("Tried to allocate 768.00 MB on private pool.", "a bare 'Tried to allocate' without a layout");

	/* XPU in the parenthesised layout, no "free" clause (xpu-0003) */
	t = "RuntimeError: XPU out of memory. Tried to allocate 1.71 GiB (GPU 0; 15.56 GiB total "
	    "capacity; 176.00 MiB already allocated; 176.00 MiB reserved in total by PyTorch)";
	if (must_parse(t, &o, "xpu-0003")) {
		head(&o, "xpu-0003", "pytorch1", "pytorch", "xpu", 0);
		size_is(o.mem.allocated, 184549376, "xpu-0003", "allocated");
		size_is(o.mem.reserved, 184549376, "xpu-0003", "reserved");
		none(o.mem.free, "xpu-0003", "free");
		kg_oom_free(&o);
	}

	/* torch_npu prints its own "(NPU N; …; X current active; …)" (template §7.3) */
	t = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total "
	    "capacity; 57.07 GiB already allocated; 57.07 GiB current active; 1.18 GiB free; "
	    "58.88 GiB reserved in total by PyTorch)";
	if (must_parse(t, &o, "npu")) {
		head(&o, "npu", "pytorch1", "pytorch", "npu", 0);
		size_is(o.mem.free, 1267015352, "npu", "free after an unknown clause");
		size_is(o.mem.reserved, 63221918597, "npu", "reserved");
		kg_oom_free(&o);
	}
}

static void test_pytorch2(void)
{
	kg_oom o;
	/* 2.1: capacty typo, old hint (pt2-0001) */
	const char *t = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. "
		"GPU 0 has a total capacty of 6.00 GiB of which 0 bytes is free. Of the allocated memory "
		"2.93 GiB is allocated by PyTorch, and 2.30 GiB is reserved by PyTorch but unallocated. "
		"If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
		"fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF";
	if (must_parse(t, &o, "pt2-0001")) {
		head(&o, "pt2-0001", "pytorch2", "pytorch", "cuda", 0);
		size_is(o.mem.requested, 1825361101, "pt2-0001", "requested");
		size_is(o.mem.total_capacity, 6442450944, "pt2-0001", "total (capacty)");
		size_is(o.mem.free, 0, "pt2-0001", "free is a stated 0, not null");
		size_is(o.mem.allocated, 3146063544, "pt2-0001", "allocated");
		size_is(o.mem.reserved_unallocated, 2469606195, "pt2-0001", "reserved_unallocated");
		none(o.mem.reserved, "pt2-0001", "reserved");
		none(o.mem.process_in_use, "pt2-0001", "process_in_use");
		TAP_EQ_I64(o.mem.nprocs, 0, "pt2-0001 no processes");
		TAP_EQ_I64(o.end, strlen(t), "pt2-0001 old hint consumed");
		kg_oom_free(&o);
	}

	/* 2.2+: new hint with URL, another process (pt2-0033) */
	t = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 1 has a "
	    "total capacity of 22.07 GiB of which 14.25 MiB is free. Process 241484 has 22.05 GiB "
	    "memory in use. Of the allocated memory 21.68 GiB is allocated by PyTorch, and 24.24 MiB "
	    "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
	    "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
	    "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#"
	    "environment-variables)\nTraceback (most recent call last):";
	if (must_parse(t, &o, "pt2-0033")) {
		head(&o, "pt2-0033", "pytorch2", "pytorch", "cuda", 1);
		TAP_EQ_I64(o.mem.nprocs, 1, "pt2-0033 one process");
		if (o.mem.nprocs == 1) {
			TAP_EQ_I64(o.mem.procs[0].pid, 241484, "pt2-0033 pid");
			size_is(o.mem.procs[0].in_use, 23676007219, "pt2-0033", "process bytes");
		}
		none(o.mem.process_in_use, "pt2-0033", "process_in_use");
		TAP_EQ_I64(o.end, strchr(t, '\n') - t, "pt2-0033 new hint and URL consumed, not the next line");
		kg_oom_free(&o);
	}

	/* "capacity" spelled right with the old hint (threestudio #403): the
	 * combination formats.md says exists */
	t = "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 12.00 GiB "
	    "of which 2.50 GiB is free. Of the allocated memory 1.00 GiB is allocated by PyTorch, and "
	    "512.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is "
	    "large try setting max_split_size_mb to avoid fragmentation.  See documentation for "
	    "Memory Management and PYTORCH_CUDA_ALLOC_CONF";
	if (must_parse(t, &o, "capacity+old hint")) {
		size_is(o.mem.total_capacity, 12884901888, "capacity+old hint", "total");
		size_is(o.mem.free, 2684354560, "capacity+old hint", "free");
		TAP_EQ_I64(o.end, strlen(t), "capacity+old hint: hint consumed");
		kg_oom_free(&o);
	}

	/* no hint at all (2026 builds with expandable segments on) */
	t = "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 12.00 GiB "
	    "of which 2.50 GiB is free. Of the allocated memory 1.00 GiB is allocated by PyTorch, and "
	    "512.00 MiB is reserved by PyTorch but unallocated.\nEpoch 3: loss 0.1";
	if (must_parse(t, &o, "no hint")) {
		size_is(o.mem.reserved_unallocated, 536870912, "no hint", "reserved_unallocated");
		TAP_EQ_I64(o.end, strchr(t, '\n') - t, "no hint: ends at 'unallocated.'");
		kg_oom_free(&o);
	}

	/* several processes and this process, in NVML order (pt2-0048) */
	t = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 42.00 MiB. GPU 0 has a "
	    "total capacity of 47.27 GiB of which 9.38 MiB is free. Process 644963 has 5.59 MiB memory "
	    "in use. Process 644977 has 5.59 MiB memory in use. Process 2925282 has 312.00 MiB memory "
	    "in use. Process 3053273 has 29.04 GiB memory in use. Process 3120922 has 14.74 GiB memory "
	    "in use. Including non-PyTorch memory, this process has 3.14 GiB memory in use. Of the "
	    "allocated memory 2.92 GiB is allocated by PyTorch, and 34.62 MiB is reserved by PyTorch "
	    "but unallocated. If reserved but unallocated memory is large try setting";
	if (must_parse(t, &o, "pt2-0048")) {
		static const long long pid[] = {644963, 644977, 2925282, 3053273, 3120922};
		static const long long by[] = {5861540, 5861540, 327155712, 31181462569, 15826954486};
		TAP_EQ_I64(o.mem.nprocs, 5, "pt2-0048 five processes");
		for (size_t i = 0; i < 5 && i < o.mem.nprocs; i++) {
			TAP_EQ_I64(o.mem.procs[i].pid, pid[i], "pt2-0048 process %zu pid", i);
			size_is(o.mem.procs[i].in_use, by[i], "pt2-0048", "process bytes");
		}
		size_is(o.mem.process_in_use, 3371549327, "pt2-0048", "process_in_use");
		size_is(o.mem.allocated, 3135326126, "pt2-0048", "allocated");
		TAP_EQ_I64(o.end, strlen(t), "pt2-0048 hint cut after 'setting' consumed to the cut");
		kg_oom_free(&o);
	}

	/* "Process has X" without a pid is this process (DESIGN §4) */
	t = "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 12.00 GiB "
	    "of which 2.00 MiB is free. Process has 1.19 GiB memory in use. Of the allocated memory "
	    "1.00 GiB is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated.";
	if (must_parse(t, &o, "Process has")) {
		size_is(o.mem.process_in_use, 1277752771, "Process has", "process_in_use");
		TAP_EQ_I64(o.mem.nprocs, 0, "Process has: not another process");
		kg_oom_free(&o);
	}

	/* private pools, wrapped lines (pt2-0039) */
	t = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 304.00 MiB.\n"
	    "GPU 0 has a total capacity of 94.97 GiB of which 218.81 MiB is free.\n"
	    "Including non-PyTorch memory, this process has 93.84 GiB memory in use.\n"
	    "Of the allocated memory 91.19 GiB is allocated by PyTorch, with 118.00 MiB\n"
	    "allocated in private pools (e.g., CUDA Graphs), and 744.36 MiB is reserved by\n"
	    "PyTorch but unallocated.\n"
	    "[rank0]: next";
	if (must_parse(t, &o, "pt2-0039")) {
		size_is(o.mem.free, 229438915, "pt2-0039", "free");
		size_is(o.mem.process_in_use, 100759932764, "pt2-0039", "process_in_use");
		size_is(o.mem.allocated, 97914516931, "pt2-0039", "allocated");
		size_is(o.mem.private_pools, 123731968, "pt2-0039", "private_pools");
		size_is(o.mem.reserved_unallocated, 780518031, "pt2-0039", "reserved_unallocated");
		TAP_EQ_I64(o.end, strstr(t, "\n[rank0]") - t, "pt2-0039 six lines consumed");
		kg_oom_free(&o);
	}

	/* allowed; "allocated by PyTorch." ends it (pt2-0030) */
	t = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.60 GiB.\n"
	    "GPU 0 has a total capacity of 8.00 GiB of which 453.00 MiB is free.\n"
	    "6.80 GiB allowed; Of the allocated memory 6.41 GiB is allocated by PyTorch.";
	if (must_parse(t, &o, "pt2-0030")) {
		size_is(o.mem.allowed, 7301444403, "pt2-0030", "allowed");
		size_is(o.mem.allocated, 6882685092, "pt2-0030", "allocated");
		none(o.mem.reserved_unallocated, "pt2-0030", "reserved_unallocated");
		kg_oom_free(&o);
	}

	/* cut inside a process sentence: the cut clause still counts */
	t = "OutOfMemoryError: CUDA out of memory. Tried to allocate 52.00 MiB. GPU 0 has a total "
	    "capacty of 31.74 GiB of which 39.62 MiB is free. Process 101553 has 1.19 GiB memory in "
	    "use. Process 101554 has 1.19 GiB memory i";
	if (must_parse(t, &o, "cut in proc")) {
		TAP_EQ_I64(o.mem.nprocs, 2, "cut in proc: both processes");
		none(o.mem.allocated, "cut in proc", "allocated");
		kg_oom_free(&o);
	}

	/* cut right after the head (pytorch issue 126766) */
	t = "OutOfMemoryError: CUDA out of memory. Tried to allocate 3725.29 GiB. GPU";
	if (must_parse(t, &o, "cut at GPU")) {
		head(&o, "cut at GPU", "pytorch2", "pytorch", "cuda", NONE);
		size_is(o.mem.requested, 3999999679529, "cut at GPU", "requested");
		none(o.mem.total_capacity, "cut at GPU", "total");
		kg_oom_free(&o);
	}

	/* ROCm: HIP prefix and PYTORCH_HIP_ALLOC_CONF hint (rocm-0007) */
	t = "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.50 GiB. GPU 0 has a total "
	    "capacity of 15.98 GiB of which 1.40 GiB is free. Of the allocated memory 1.26 GiB is "
	    "allocated by PyTorch, and 152.50 MiB is reserved by PyTorch but unallocated. If reserved "
	    "but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
	    "to avoid fragmentation.  See documentation for Memory Management  "
	    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
	if (must_parse(t, &o, "rocm-0007")) {
		head(&o, "rocm-0007", "pytorch2", "pytorch", "hip", 0);
		size_is(o.mem.requested, 4831838208, "rocm-0007", "requested");
		size_is(o.mem.reserved_unallocated, 159907840, "rocm-0007", "reserved_unallocated");
		TAP_EQ_I64(o.end, strlen(t), "rocm-0007 HIP hint consumed");
		kg_oom_free(&o);
	}

	/* XPU sentence layout without "of which", and its own hint (xpu-0007) */
	t = "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total "
	    "capacity of 13.74 GiB. Of the allocated memory 10.10 GiB is allocated by PyTorch, and "
	    "3.47 GiB is reserved by PyTorch but unallocated. Please use `empty_cache` to release all "
	    "unoccupied cached memory.";
	if (must_parse(t, &o, "xpu-0007")) {
		head(&o, "xpu-0007", "pytorch2", "pytorch", "xpu", 0);
		size_is(o.mem.total_capacity, 14753212662, "xpu-0007", "total");
		none(o.mem.free, "xpu-0007", "free");
		size_is(o.mem.reserved_unallocated, 3725884129, "xpu-0007", "reserved_unallocated");
		TAP_EQ_I64(o.end, strlen(t), "xpu-0007 empty_cache hint consumed");
		kg_oom_free(&o);
	}

	/* XPU's first text has no numbers (template §7.3) */
	t = "RuntimeError: XPU out of memory, please use `empty_cache` to release all unoccupied cached memory.";
	if (must_parse(t, &o, "xpu v1")) {
		head(&o, "xpu v1", "other", "pytorch", "xpu", NONE);
		none(o.mem.requested, "xpu v1", "requested");
		TAP_EQ_I64(o.end, strlen(t), "xpu v1 whole sentence");
		kg_oom_free(&o);
	}

	/* every device prefix of §1.5/§7.3 */
	static const char *const devs[][2] = {
		{"MLU", "mlu"}, {"MUSA", "musa"}, {"DPCPP", "xpu"}, {"NPU", "npu"}, {"HIP", "hip"},
	};
	for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
		char *s = kg_asprintf("%s out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total "
		                      "capacity of 12.00 GiB of which 2.00 MiB is free.", devs[i][0]);
		if (must_parse(s, &o, devs[i][0])) {
			head(&o, devs[i][0], "pytorch2", "pytorch", devs[i][1], 3);
			kg_oom_free(&o);
		}
		free(s);
	}

	/* over 1 EiB (template §1.2): a lower bound */
	t = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.";
	if (must_parse(t, &o, "1EB")) {
		head(&o, "1EB", "other", "pytorch", "cuda", NONE);
		TAP_EQ_I64(o.mem.requested.lo, 1LL << 60, "1EB requested ≥ 2^60");
		TAP_EQ_I64(o.mem.requested.hi, INT64_MAX, "1EB upper bound open");
		kg_oom_free(&o);
	}

	/* a bare head at the end of a line */
	t = "torch.cuda.OutOfMemoryError: CUDA out of memory.\n  File \"train.py\", line 3";
	if (must_parse(t, &o, "bare head")) {
		head(&o, "bare head", "other", "pytorch", "cuda", NONE);
		TAP_EQ_I64(o.start, strlen("torch.cuda.OutOfMemoryError: "), "bare head starts at CUDA");
		kg_oom_free(&o);
	}
	/* the head on one line, the numbers on the next: still the full layout */
	t = "torch.cuda.OutOfMemoryError: CUDA out of memory.\nTried to allocate 20.00 MiB (GPU 0; "
	    "1.96 GiB total capacity;";
	if (must_parse(t, &o, "head wrapped")) {
		TAP_EQ_STR(o.family, "pytorch1", "head wrapped: layout read from the next line");
		size_is(o.mem.total_capacity, 2104533975, "head wrapped", "total");
		kg_oom_free(&o);
	}
}

static void test_async_cpu(void)
{
	kg_oom o;
	/* template §1.5 (CUDAMallocAsyncAllocator.cpp) */
	const char *t = "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. "
		"(out of memory)\nCurrently allocated     : 30.00 GiB\nRequested               : 2.00 GiB\n"
		"Device limit            : 31.00 GiB\nFree (according to CUDA): 512.00 MiB\n"
		"PyTorch limit (set by user-supplied memory fraction)\n                        : 31.00 GiB\n"
		"after";
	if (must_parse(t, &o, "cudaMallocAsync")) {
		head(&o, "cudaMallocAsync", "other", "pytorch", "cuda", 0);
		size_is(o.mem.allocated, 32212254720, "cudaMallocAsync", "allocated");
		size_is(o.mem.requested, 2147483648, "cudaMallocAsync", "requested");
		size_is(o.mem.total_capacity, 33285996544, "cudaMallocAsync", "device limit → total");
		size_is(o.mem.free, 536870912, "cudaMallocAsync", "free");
		size_is(o.mem.allowed, 33285996544, "cudaMallocAsync", "PyTorch limit → allowed");
		TAP_EQ_I64(o.end, strstr(t, "\nafter") - t, "cudaMallocAsync: all seven lines");
		kg_oom_free(&o);
	}

	t = "RuntimeError: [enforce fail at alloc_cpu.cpp:73] . DefaultCPUAllocator: can't allocate "
	    "memory: you tried to allocate 1073741824 bytes. Error code 12 (Cannot allocate memory)";
	if (must_parse(t, &o, "cpu")) {
		head(&o, "cpu", "pytorch_cpu", "pytorch", "cpu", NONE);
		size_is(o.mem.requested, 1073741824, "cpu", "requested");
		TAP_EQ_I64(o.end, strlen(t), "cpu: through the errno text");
		kg_oom_free(&o);
	}
	t = "RuntimeError: [enforce fail at CPUAllocator.cpp:64] . DefaultCPUAllocator: not enough "
	    "memory: you tried to allocate 28481536000 bytes. Buy new RAM!";
	if (must_parse(t, &o, "cpu old")) {
		size_is(o.mem.requested, 28481536000, "cpu old", "requested");
		kg_oom_free(&o);
	}
}

static void test_cuda_runtime(void)
{
	kg_oom o;
	const char *t = "THCudaCheck FAIL file=/Users/scheibler/sandbox/pytorch/torch/lib/THC/generic/"
		"THCStorage.cu line=66 error=2 : out of memory";
	if (must_parse(t, &o, "cuda-0001 THC")) {
		head(&o, "cuda-0001 THC", "cuda_runtime", "pytorch", "cuda", NONE);
		TAP_EQ_I64(o.start, 0, "THC message starts at THCudaCheck");
		none(o.mem.requested, "cuda-0001", "requested");
		TAP_OK(o.status == NULL, "cuda_runtime has no library status word");
		kg_oom_free(&o);
	}
	t = "RuntimeError: cuda runtime error (2) : out of memory at /Users/scheibler/sandbox/pytorch/"
	    "torch/lib/THC/generic/THCStorage.cu:66";
	if (must_parse(t, &o, "cuda-0001 runtime")) {
		head(&o, "cuda-0001 runtime", "cuda_runtime", "pytorch", "cuda", NONE);
		kg_oom_free(&o);
	}
	t = "CUDA error: out of memory CUDA kernel errors might be asynchronously reported at some "
	    "other API call, so the stacktrace below might be incorrect.";
	if (must_parse(t, &o, "cuda-0005")) {
		head(&o, "cuda-0005", "cuda_runtime", "pytorch", "cuda", NONE);
		kg_oom_free(&o);
	}
	t = "cuda failed with error 2 out of memory. use CUDA_LAUNCH_BLOCKING=1 to get correct traceback.";
	if (must_parse(t, &o, "oth-0003")) {
		head(&o, "oth-0003", "cuda_runtime", NULL, "cuda", NONE);
		kg_oom_free(&o);
	}
	/* ggml prints the c10-looking text too, with the device on the next line */
	t = "CUDA error: out of memory\n  current device: 1, in function ggml_cuda_pool_malloc at ggml-cuda.cu:365";
	if (must_parse(t, &o, "ggml CUDA error")) {
		head(&o, "ggml CUDA error", "cuda_runtime", "ggml", "cuda", 1);
		kg_oom_free(&o);
	}
	t = "F0613 12:00:00.000 syncedmem.cpp:56] Check failed: error == cudaSuccess (2 vs. 0)  out of memory";
	if (must_parse(t, &o, "caffe cuda")) {
		head(&o, "caffe cuda", "cuda_runtime", "caffe", "cuda", NONE);
		kg_oom_free(&o);
	}
}

static void test_status(void)
{
	kg_oom o;
	const char *t = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`";
	if (must_parse(t, &o, "cublas-0002")) {
		head(&o, "cublas-0002", "cublas", "pytorch", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUBLAS_STATUS_ALLOC_FAILED", "cublas-0002 status");
		TAP_EQ_I64(o.end, strlen(t), "cublas-0002 through 'when calling'");
		kg_oom_free(&o);
	}
	t = "failed to create cublas handle: the resource allocation failed";
	if (must_parse(t, &o, "cublas-0010")) {
		head(&o, "cublas-0010", "cublas", "tensorflow", "cuda", NONE);
		TAP_OK(o.status == NULL, "cublas-0010: no status word printed, none invented");
		kg_oom_free(&o);
	}
	t = "E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: "
	    "CUBLAS_STATUS_NOT_INITIALIZED";
	if (must_parse(t, &o, "tf cublas word")) {
		TAP_EQ_STR(o.status, "CUBLAS_STATUS_NOT_INITIALIZED", "tf cublas status word");
		TAP_EQ_STR(o.framework, "tensorflow", "tf cublas framework");
		kg_oom_free(&o);
	}
	t = "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
	    "passed in a non-contiguous input";
	if (must_parse(t, &o, "cudnn-0007")) {
		head(&o, "cudnn-0007", "cudnn", "pytorch", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUDNN_STATUS_NOT_SUPPORTED", "cudnn-0007 status");
		kg_oom_free(&o);
	}
	t = "/home/user/torch/install/share/lua/5.1/cudnn/init.lua:58: Error in CuDNN: "
	    "CUDNN_STATUS_ALLOC_FAILED (cudnnFindConvolutionForwardAlgorithm)";
	if (must_parse(t, &o, "cudnn-0003")) {
		head(&o, "cudnn-0003", "cudnn", "torch7", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUDNN_STATUS_ALLOC_FAILED", "cudnn-0003 status");
		kg_oom_free(&o);
	}
	t = "cudnn_conv_layer.cu:65] Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0) "
	    "CUDNN_STATUS_EXECUTION_FAILED";
	if (must_parse(t, &o, "cudnn-0008")) {
		head(&o, "cudnn-0008", "cudnn", "caffe", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUDNN_STATUS_EXECUTION_FAILED", "cudnn-0008 status is the failure word");
		kg_oom_free(&o);
	}
	t = "cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)";
	if (must_parse(t, &o, "caffe number only")) {
		TAP_EQ_STR(o.status, "CUDNN_STATUS_INTERNAL_ERROR", "cudnnStatus_t 4 by name");
		kg_oom_free(&o);
	}
	t = "math_functions.cu:26] Check failed: status == CUBLAS_STATUS_SUCCESS (3 vs. 0)  "
	    "CUBLAS_STATUS_ALLOC_FAILED";
	if (must_parse(t, &o, "caffe cublas")) {
		head(&o, "caffe cublas", "cublas", "caffe", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUBLAS_STATUS_ALLOC_FAILED", "caffe cublas status");
		kg_oom_free(&o);
	}
	t = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
	    "CUDNN_STATUS_INTERNAL_ERROR";
	if (must_parse(t, &o, "tf cudnn handle")) {
		head(&o, "tf cudnn handle", "cudnn", "tensorflow", "cuda", NONE);
		kg_oom_free(&o);
	}
	not_oom("cudnn status: CUDNN_STATUS_SUCCESS", "a SUCCESS status word");
}

static void test_nccl(void)
{
	kg_oom o;
	const char *t = "node1:1234:1300 [0] include/alloc.h:48 NCCL WARN Cuda failure 'out of memory'";
	if (must_parse(t, &o, "nccl warn")) {
		/* the device is NCCL's "[N]" (issue 13) */
		head(&o, "nccl warn", "nccl", NULL, "cuda", 0);
		kg_oom_free(&o);
	}
	t = "node7:4242:4301 [3] NCCL WARN Cuda failure 'out of memory'";
	if (must_parse(t, &o, "nccl warn [3]")) {
		head(&o, "nccl warn [3]", "nccl", NULL, "cuda", 3);
		kg_oom_free(&o);
	}
	t = "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
	    "Cuda failure 'out of memory'\nnext";
	if (must_parse(t, &o, "nccl unhandled")) {
		TAP_EQ_STR(o.family, "nccl", "nccl unhandled family");
		TAP_EQ_I64(o.end, strstr(t, "\nnext") - t, "nccl unhandled: three lines");
		kg_oom_free(&o);
	}
	not_oom("ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
	        "Cuda failure 'invalid device ordinal'", "NCCL CUDA failure other than OOM");
}

/* Messages found missing on real logs (issue 13). */
static void test_issue13(void)
{
	kg_oom o;
	const char *t = "RuntimeError: cublas runtime error : resource allocation failed at "
			"/pytorch/aten/src/THC/THCGeneral.cpp:250";
	if (must_parse(t, &o, "THC cublas")) {
		head(&o, "THC cublas", "cublas", "pytorch", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUBLAS_STATUS_ALLOC_FAILED", "THC cublas status");
		TAP_EQ_I64(o.end, strlen(t), "THC cublas: the whole message");
		kg_oom_free(&o);
	}
	t = "RuntimeError: cuDNN error: Resource allocation failed inside the cuDNN library.";
	if (must_parse(t, &o, "cuDNN alloc text")) {
		head(&o, "cuDNN alloc text", "cudnn", "pytorch", "cuda", NONE);
		TAP_EQ_STR(o.status, "CUDNN_STATUS_ALLOC_FAILED", "cuDNN alloc text status");
		kg_oom_free(&o);
	}
	t = "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution";
	if (must_parse(t, &o, "no cuDNN algorithm")) {
		head(&o, "no cuDNN algorithm", "cudnn", "pytorch", "cuda", NONE);
		TAP_EQ_STR(o.kind, "oom-suspected", "no cuDNN algorithm: its own kind");
		kg_oom_free(&o);
	}
	t = "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
	    "CUBLAS failure 3: the resource allocation failed ; GPU=2 ; hostname=n1 ; "
	    "expr=cublasCreate(&cublas_handle_);";
	if (must_parse(t, &o, "CUBLAS failure 3")) {
		head(&o, "CUBLAS failure 3", "cublas", "onnxruntime", "cuda", 2);
		TAP_EQ_STR(o.status, "CUBLAS_STATUS_ALLOC_FAILED", "CUBLAS failure 3 status");
		kg_oom_free(&o);
	}
	not_oom("CUBLAS failure 13: the resource allocation failed", "CUBLAS failure other than 3");
	t = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of "
	    "memory in memory space hbm. Used 35.83G of 31.25G hbm. Exceeded hbm capacity by 4.59G.";
	if (must_parse(t, &o, "XLA:TPU hbm")) {
		head(&o, "XLA:TPU hbm", "jax", "jax", "tpu", NONE);
		TAP_OK(kg_size_known(o.mem.total_capacity) &&
		       kg_size_near(o.mem.total_capacity, kg_size_exact(33554432000LL)), "XLA:TPU hbm capacity 31.25G");
		TAP_EQ_I64(o.end, strlen(t), "XLA:TPU hbm: the whole message");
		kg_oom_free(&o);
	}
	t = "torch_xla: RuntimeError: Ran out of memory in memory space vmem. It should not be possible";
	if (must_parse(t, &o, "XLA vmem")) {
		head(&o, "XLA vmem", "jax", "torch_xla", "tpu", NONE);
		kg_oom_free(&o);
	}
	t = "W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of "
	    "memory trying to allocate 3.39GiB (rounded to 3640655872)requested by op";
	if (must_parse(t, &o, "XLA BFC under external/xla")) {
		head(&o, "XLA BFC under external/xla", "jax", "jax", "cuda", 0);
		kg_oom_free(&o);
	}
	t = "RuntimeError: No executable batch size found, reached zero.";
	if (must_parse(t, &o, "accelerate batch finder")) {
		head(&o, "accelerate batch finder", "other", "pytorch", NULL, NONE);
		TAP_EQ_STR(o.kind, "oom", "accelerate batch finder kind");
		kg_oom_free(&o);
	}
}

static void test_tensorflow(void)
{
	kg_oom o;
	const char *t = "(0) Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] "
		"and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
		"[[{{node resnet_v1_50/conv1/ExtractImagePatches}}]]\n"
		"Hint: If you want to see a list of allocated tensors when OOM happens, add "
		"report_tensor_allocations_upon_oom to RunOptions for current allocation info.\n"
		"\n[[Mean_1/_1047]]";
	if (must_parse(t, &o, "tf-0004")) {
		head(&o, "tf-0004", "tensorflow", "tensorflow", "cuda", 0);
		TAP_OK(o.tensor && o.tensor->ndim == 4 && o.tensor->shape[3] == 147, "tf-0004 shape");
		TAP_EQ_STR(o.tensor ? o.tensor->dtype : NULL, "float32", "tf-0004 float → float32");
		TAP_EQ_I64(o.tensor ? o.tensor->bytes : 0, 118013952, "tf-0004 bytes = 16·112·112·147·4");
		none(o.mem.requested, "tf-0004", "requested");
		TAP_OK(o.end > (size_t)(strstr(t, "RunOptions") - t), "tf-0004 node and Hint consumed");
		kg_oom_free(&o);
	}
	t = "ResourceExhaustedError: {{function_node __wrapped__MatMul_device_/job:localhost/replica:0/"
	    "task:0/device:GPU:0}} OOM when allocating tensor with shape[150,2457600] and type double "
	    "on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:MatMul] name: ";
	if (must_parse(t, &o, "tf-0018")) {
		TAP_EQ_STR(o.tensor ? o.tensor->dtype : NULL, "float64", "tf-0018 double → float64");
		TAP_EQ_I64(o.tensor ? o.tensor->bytes : 0, 2949120000, "tf-0018 bytes");
		kg_oom_free(&o);
	}
	t = "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[1,5095,3729,3]";
	if (must_parse(t, &o, "tf-0003")) {
		head(&o, "tf-0003", "tensorflow", "tensorflow", NULL, NONE);
		TAP_OK(o.tensor && o.tensor->ndim == 4 && o.tensor->dtype[0] == 0 &&
		       o.tensor->bytes == KG_NONE, "tf-0003 shape without type: no dtype, no bytes");
		kg_oom_free(&o);
	}
	t = "OOM when allocating tensor with shape[] and type bfloat16 on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc";
	if (must_parse(t, &o, "scalar")) {
		TAP_OK(o.tensor && o.tensor->ndim == 0 && o.tensor->bytes == 2, "scalar bfloat16 is 2 bytes");
		TAP_EQ_I64(o.device_index, 1, "scalar device index");
		kg_oom_free(&o);
	}

	t = "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.97GiB (rounded to "
	    "2110783744)requested by op conv2d/Conv2D\nIf the cause is memory fragmentation maybe the "
	    "environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. \n"
	    "Current allocation summary follows.\nBFCAllocator dump for GPU_0_bfc";
	if (must_parse(t, &o, "bfc")) {
		head(&o, "bfc", "tensorflow", "tensorflow", "cuda", 0);
		TAP_EQ_STR(o.kind, "oom", "bfc kind");
		size_is(o.mem.requested, 2110783744, "bfc", "requested = the rounded byte count");
		TAP_EQ_I64(o.end, strstr(t, "\nBFCAllocator") - t, "bfc: through 'summary follows.'");
		kg_oom_free(&o);
	}
	t = "Allocator (GPU_0_bfc) ran out of memory trying to allocate 45.53MiB with "
	    "freed_by_count=0. The caller indicates that this is not a failure, but may mean that "
	    "there could be performance gains if more memory were available.";
	if (must_parse(t, &o, "tf-0026")) {
		TAP_EQ_STR(o.kind, "oom-warning", "tf-0026 retry warning");
		size_is(o.mem.requested, 47741665, "tf-0026", "requested");
		TAP_EQ_I64(o.end, strlen(t), "tf-0026 whole warning");
		kg_oom_free(&o);
	}
	t = "Allocator (GPU_0_bfc) ran out of memory trying to allocate 8.49GiB.  Current allocation summary follows.";
	if (must_parse(t, &o, "bfc tf1")) {
		size_is(o.mem.requested, 9116068086, "bfc tf1", "requested");
		TAP_EQ_STR(o.kind, "oom", "bfc tf1 kind");
		kg_oom_free(&o);
	}
	t = ": F tensorflow/core/common_runtime/gpu/gpu_device.cc:103] EigenAllocator for GPU ran out "
	    "of memory when allocating 0. See error logs for more detailed info.";
	if (must_parse(t, &o, "tf-0027")) {
		head(&o, "tf-0027", "tensorflow", "tensorflow", "cuda", NONE);
		size_is(o.mem.requested, 0, "tf-0027", "requested 0 is stated");
		kg_oom_free(&o);
	}
	t = "Profiling failure on CUDNN engine 1#TC: RESOURCE_EXHAUSTED: Allocating 4718624784 bytes "
	    "exceeds the memory limit of 4294967296 bytes.";
	if (must_parse(t, &o, "tf-0015")) {
		TAP_EQ_STR(o.family, "tensorflow", "tf-0015 family");
		size_is(o.mem.requested, 4718624784, "tf-0015", "requested");
		size_is(o.mem.allowed, 4294967296, "tf-0015", "limit → allowed");
		kg_oom_free(&o);
	}
}

static void test_jax(void)
{
	kg_oom o;
	const char *t = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
		"trying to allocate 7406166528 bytes.";
	if (must_parse(t, &o, "jax-0001")) {
		head(&o, "jax-0001", "jax", "jax", NULL, NONE);
		size_is(o.mem.requested, 7406166528, "jax-0001", "requested");
		kg_oom_free(&o);
	}
	t = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 20029400304 bytes.";
	if (must_parse(t, &o, "jax-0004")) {
		size_is(o.mem.requested, 20029400304, "jax-0004", "requested");
		kg_oom_free(&o);
	}
	t = "RESOURCE_EXHAUSTED: Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0";
	if (must_parse(t, &o, "pjrt")) {
		head(&o, "pjrt", "jax", "jax", NULL, 0);
		size_is(o.mem.requested, 165425291480, "pjrt", "requested = the exact (…B)");
		kg_oom_free(&o);
	}
	/* stream-executor text, hard-wrapped mid-word, then XLA's own report of
	 * the same allocation with its device (jax-0009) */
	t = "E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to "
	    "allocate 3.39G (3640655872 bytes) from devic\ne: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
	    "E external/org_tensorflow/tensorflow/compiler/xla/service/gpu/cudnn_conv_algorithm_picker"
	    ".cc:555] Resource exhausted: Failed to allo\ncate request for 3.39GiB (3640655872B) on "
	    "device ordinal 0\nnext";
	if (must_parse(t, &o, "jax-0009")) {
		head(&o, "jax-0009", "jax", "jax", "cuda", 0);
		size_is(o.mem.requested, 3640655872, "jax-0009", "requested = the exact count");
		TAP_EQ_I64(o.end, strstr(t, "\nnext") - t, "jax-0009 both reports are one message");
		kg_oom_free(&o);
	}
	t = "E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.39G "
	    "(3640655872 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY";
	if (must_parse(t, &o, "tf stream executor")) {
		TAP_EQ_STR(o.family, "tensorflow", "tensorflow's own stream executor");
		kg_oom_free(&o);
	}
	t = "XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
	    "allocate 15.65G. That was not possible. There are 11.08G free.; (0x0x0_HBM0)";
	if (must_parse(t, &o, "tpu")) {
		head(&o, "tpu", "jax", "jax", "tpu", NONE);
		size_is(o.mem.requested, 16804059546, "tpu", "requested");
		size_is(o.mem.free, 11897059410, "tpu", "free");
		kg_oom_free(&o);
	}
}

static void test_mps(void)
{
	kg_oom o;
	const char *t = "RuntimeError: MPS backend out of memory (MPS allocated: 5.56 GB, other "
		"allocations: 1.10 GB, max allowed: 6.80 GB). Tried to allocate 768.00 MB on private "
		"pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
		"allocations (may cause system failure).";
	if (must_parse(t, &o, "mps-0001")) {
		head(&o, "mps-0001", "mps", "pytorch", "mps", NONE);
		size_is(o.mem.allocated, 5970004541, "mps-0001", "MPS allocated (GB binary)");
		size_is(o.mem.other_allocations, 1181116006, "mps-0001", "other allocations");
		size_is(o.mem.allowed, 7301444403, "mps-0001", "max allowed");
		size_is(o.mem.requested, 805306368, "mps-0001", "requested");
		TAP_EQ_I64(o.end, strlen(t), "mps-0001 watermark hint consumed");
		kg_oom_free(&o);
	}
	t = "RuntimeError: MPS backend out of memory (MPS allocated: 7.80 GiB, other allocations: "
	    "1.10 GiB). Tried to allocate 2.00 MiB on shared pool.";
	if (must_parse(t, &o, "mps no limit")) {
		none(o.mem.allowed, "mps no limit", "allowed");
		size_is(o.mem.requested, 2097152, "mps no limit", "requested");
		kg_oom_free(&o);
	}
	t = "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: 172.98 MB, max all";
	if (must_parse(t, &o, "mps cut")) {
		size_is(o.mem.other_allocations, 181382676, "mps cut", "other allocations");
		none(o.mem.requested, "mps cut", "requested");
		kg_oom_free(&o);
	}
}

static void test_ggml(void)
{
	kg_oom o;
	const char *t = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on device 1: "
		"cudaMalloc failed: out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA1 buffer "
		"of size 10345253120\nllama_kv_cache_update_impl: failed to allocate compute buffers";
	if (must_parse(t, &o, "oth-0009")) {
		head(&o, "oth-0009", "ggml", "ggml", "cuda", 1);
		size_is(o.mem.requested, 10345253120, "oth-0009", "requested = exact buffer size");
		TAP_EQ_I64(o.end, strstr(t, "\nllama") - t, "oth-0009 two lines");
		kg_oom_free(&o);
	}
	t = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on device 1: "
	    "cudaMalloc failed: out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA0 buffer "
	    "of size 10345253120";
	if (must_parse(t, &o, "ggml other device")) {
		size_is(o.mem.requested, 10345250816, "ggml other device", "a buffer on another device is not merged");
		kg_oom_free(&o);
	}
	t = "ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 10345253120";
	if (must_parse(t, &o, "ggml buffer")) {
		head(&o, "ggml buffer", "ggml", "ggml", "cuda", 1);
		size_is(o.mem.requested, 10345253120, "ggml buffer", "requested");
		kg_oom_free(&o);
	}
	not_oom("llama_kv_cache_update_impl: failed to allocate compute buffers", "ggml follow-on line");
}

static void test_negative_and_window(void)
{
	static const char *const clean[] = {
		"DataLoader(dataset, batch_size=32, num_workers=8, pin_memory=True)",
		"step 1200 | loss 2.31 | num_ooms: 0 | memory allocated: 12.30 GiB",
		("[2022-07-13 21:09:13,651] [WARNING] [stage3.py:2391:step] 2 pytorch allocator cache "
		 "flushes since last step. this happens when there is high memory pressure"),
		"torch.cuda.max_memory_allocated() = 17.2 GB; memory reserved 18.0 GB",
	};
	for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++)
		TAP_OK(!kg_oom_candidate(clean[i], strlen(clean[i])), "no trigger in '%.40s…'", clean[i]);

	static const char *const mentions[] = {
		"out of memory retries: 0",
		"To avoid running out of memory we use gradient checkpointing.",
		"CUDA out of memory errors are common with batch size 64, so we use 32",
		"if 'out of memory' in str(e):",
		"WARNING: ran out of memory, skipping batch",
		"Tried to allocate",
	};
	for (size_t i = 0; i < sizeof mentions / sizeof mentions[0]; i++) {
		TAP_OK(kg_oom_candidate(mentions[i], strlen(mentions[i])),
		       "prefilter lets '%s' through", mentions[i]);
		not_oom(mentions[i], mentions[i]);
	}

	/* the message must start on the first line of the window */
	kg_oom o;
	const char *t = "Epoch 3\nCUDA error: out of memory";
	not_oom(t, "an OOM on the second line of the window belongs to that line");
	/* two messages on one line: the first one wins */
	t = "failed to allocate 3.39G (3640655872 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY";
	if (must_parse(t, &o, "first of two")) {
		TAP_EQ_STR(o.family, "jax", "stream executor text, not its CUDA_ERROR word");
		TAP_EQ_I64(o.start, 0, "first of two starts at 0");
		kg_oom_free(&o);
	}
	t = "CUDA_ERROR_OUT_OF_MEMORY: out of memory";
	if (must_parse(t, &o, "driver word")) {
		head(&o, "driver word", "cuda_runtime", NULL, "cuda", NONE);
		kg_oom_free(&o);
	}
	/* first_len bounds the start; n bounds every read */
	t = "CUDA error: out of memory";
	TAP_EQ_I64(kg_oom_parse(t, 10, 10, &o), 0, "a window cut inside the head does not parse");
	TAP_EQ_I64(kg_oom_parse(t, strlen(t), 0, &o), 0, "first_len 0: nothing starts in the first line");
	TAP_EQ_I64(kg_oom_parse(t, 0, 0, &o), 0, "empty window");
}

int main(void)
{
	kg_error err = {0};
	TAP_OK(kg_oom_init(&err) == 0, "grammars compile %s", err.msg);
	TAP_OK(kg_oom_init(&err) == 0, "init is idempotent");
	test_pytorch1();
	test_pytorch2();
	test_async_cpu();
	test_cuda_runtime();
	test_status();
	test_nccl();
	test_tensorflow();
	test_jax();
	test_mps();
	test_ggml();
	test_issue13();
	test_negative_and_window();
	kg_oom_fini();
	kg_oom o;
	const char *t = "CUDA error: out of memory";
	TAP_EQ_I64(kg_oom_parse(t, strlen(t), strlen(t), &o), 1, "parse after fini compiles again");
	kg_oom_free(&o);
	kg_oom_fini();
	/* fuzz regression: a form feed inside a TensorFlow shape made the shape
	 * reader loop forever */
	{
		const char *ff = "OOM when allocating tensor with shape[16\f112,112,147] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc";
		kg_oom o;
		memset(&o, 0, sizeof o);
		int r = kg_oom_parse(ff, strlen(ff), strlen(ff), &o);
		TAP_OK(r == 1 && o.tensor && o.tensor->ndim >= 3, "shape with a form feed parses (and ends)");
		if (r)
			kg_oom_free(&o);
	}
	return tap_done();
}
