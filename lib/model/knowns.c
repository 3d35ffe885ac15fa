/* knowns.c — the numbers explain may use (include/model/knowns.h). */
#include "model/knowns.h"
#include "model/units.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

void kg_knowns_add(kg_knowns *k, int64_t value, const char *label, kg_known_kind kind)
{
	k->v = kg_realloc(k->v, (k->n + 1) * sizeof *k->v);
	k->v[k->n] = (kg_known){value, kg_strdup(label ? label : ""), kind, false};
	k->n++;
}

void kg_knowns_add_defaults(kg_knowns *k, const char *preferred_dtype)
{
	kg_knowns_add(k, 2, "2", KG_KNOWN_CONSTANT);
	kg_knowns_add(k, 3, "3", KG_KNOWN_CONSTANT);
	kg_knowns_add(k, 4, "4", KG_KNOWN_CONSTANT);
	const char *canon = NULL;
	int pw = preferred_dtype ? kg_dtype_bytes(preferred_dtype, &canon) : -1;
	if (pw < 0 && preferred_dtype && (pw = kg_precision_bytes(preferred_dtype)) > 0)
		canon = pw == 2 ? (strstr(preferred_dtype, "bf") ? "bfloat16" : "float16") :
			pw == 4 ? "float32" : "float64";
	static const struct { int w; const char *name; } widths[] = {
		{4, "float32"}, {2, "float16/bfloat16"}, {8, "float64/int64"}, {1, "int8/uint8/bool"},
	};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		bool pref = pw == widths[i].w;
		kg_knowns_add(k, widths[i].w, pref ? canon : widths[i].name, KG_KNOWN_DTYPE);
		k->v[k->n - 1].preferred = pref || (pw < 0 && widths[i].w == 4);
	}
}

void kg_knowns_free(kg_knowns *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].label);
	free(k->v);
	k->v = NULL;
	k->n = 0;
}
