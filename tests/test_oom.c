/* Unit tests for the oom.c API: compiling the grammars, the bounds of a
 * parse window, and fuzz regressions. The grammar cases themselves (a
 * message in, the expected fields out) are data: the .test files in
 * tests/oom/, run by test_oom_cases.c. */
#include "tap.h"
#include "read/oom.h"
#include "model/util.h"

#include <stdlib.h>

static void test_window_bounds(void)
{
	kg_oom o;
	/* first_len bounds the start; n bounds every read */
	const char *t = "CUDA error: out of memory";
	TAP_EQ_I64(kg_oom_parse(t, 10, 10, &o), 0, "a window cut inside the head does not parse");
	TAP_EQ_I64(kg_oom_parse(t, strlen(t), 0, &o), 0, "first_len 0: nothing starts in the first line");
	TAP_EQ_I64(kg_oom_parse(t, 0, 0, &o), 0, "empty window");
	TAP_EQ_I64(kg_oom_parse(t, strlen(t), strlen(t), &o), 1, "the whole window parses");
	kg_oom_free(&o);
}

int main(void)
{
	kg_error err = {0};
	TAP_OK(kg_oom_init(&err) == 0, "grammars compile %s", err.msg);
	TAP_OK(kg_oom_init(&err) == 0, "init is idempotent");
	test_window_bounds();
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
		memset(&o, 0, sizeof o);
		int r = kg_oom_parse(ff, strlen(ff), strlen(ff), &o);
		TAP_OK(r == 1 && o.tensor && o.tensor->ndim >= 3, "shape with a form feed parses (and ends)");
		if (r)
			kg_oom_free(&o);
	}
	return tap_done();
}
