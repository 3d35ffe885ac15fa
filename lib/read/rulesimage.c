/* rulesimage.c — see include/read/rulesimage.h. One file holds both
 * halves of the image, so its format is written down once:
 *
 *   - compiled with KG_RULES_IMAGE_GEN it is the build's generator:
 *     `rules-image-gen OUT.h FILE.yaml...` parses each file with libyaml
 *     and writes its document as C tables to OUT.h (a file that does not
 *     parse, or holds more than one document, is left out: the run parses
 *     it and reports the error as before);
 *   - in the library it rebuilds a document from those tables
 *     (kg_rules_image_doc), in place.
 *
 * A node is {type, scalar style, a, b, marks}: for a scalar a, b are the
 * offset and length of its value in the string pool; for a sequence the
 * range [a, b) of kids[] holding its items' ids; for a mapping the range
 * [a, b) of kids[] holding key, value, key, value … ids. Ids are those of
 * yaml_parser_load (the root is 1, nodes numbered as they appear). */
#include "read/rulesimage.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kg_rimg_node {
	uint8_t type;          /* yaml_node_type_t */
	uint8_t style;         /* yaml_scalar_style_t, or the collection's style */
	uint32_t a, b;
	uint32_t sline, scol, sidx, eline, ecol, eidx;
} kg_rimg_node;

typedef struct kg_rimg_file {
	const char *name;      /* base name */
	uint64_t len, hash;    /* of the file's bytes */
	uint32_t node0, nnodes; /* its nodes: nodes[node0 .. node0 + nnodes) */
} kg_rimg_file;

/* FNV-1a, 64 bits (Fowler, Noll, Vo): the file's identity, with its length. */
static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3u;
	}
	return h;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

#ifdef KG_RULES_IMAGE_GEN

#include "read/gen_c.h"

/* ---- the generator (build time) --------------------------------------- */

typedef struct out {
	FILE *f;
	char *pool;           /* the string pool */
	size_t npool, cappool;
	uint32_t *kids;
	size_t nkids, capkids;
	kg_rimg_node *nodes;
	size_t nnodes, capnodes;
} out;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? 2 * *cap : 1024;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "rules-image-gen: out of memory\n");
		abort();
	}
	return p;
}

static uint32_t pool_add(out *o, const unsigned char *s, size_t n)
{
	o->pool = grow(o->pool, &o->cappool, o->npool + n + 1, 1);
	memcpy(o->pool + o->npool, s, n);
	uint32_t at = (uint32_t)o->npool;
	o->npool += n;
	o->pool[o->npool++] = 0;
	return at;
}

static void kid_add(out *o, int id)
{
	o->kids = grow(o->kids, &o->capkids, o->nkids + 1, sizeof *o->kids);
	o->kids[o->nkids++] = (uint32_t)id;
}

/* Appends the document's nodes (in id order) to o; returns how many. */
static size_t add_doc(out *o, yaml_document_t *doc)
{
	size_t n = (size_t)(doc->nodes.top - doc->nodes.start);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *y = doc->nodes.start + i;
		kg_rimg_node x = {.type = (uint8_t)y->type,
				  .sline = (uint32_t)y->start_mark.line, .scol = (uint32_t)y->start_mark.column,
				  .sidx = (uint32_t)y->start_mark.index, .eline = (uint32_t)y->end_mark.line,
				  .ecol = (uint32_t)y->end_mark.column, .eidx = (uint32_t)y->end_mark.index};
		if (y->type == YAML_SCALAR_NODE) {
			x.style = (uint8_t)y->data.scalar.style;
			x.a = pool_add(o, y->data.scalar.value, y->data.scalar.length);
			x.b = (uint32_t)y->data.scalar.length;
		} else if (y->type == YAML_SEQUENCE_NODE) {
			x.style = (uint8_t)y->data.sequence.style;
			x.a = (uint32_t)o->nkids;
			for (yaml_node_item_t *it = y->data.sequence.items.start; it < y->data.sequence.items.top; it++)
				kid_add(o, *it);
			x.b = (uint32_t)o->nkids;
		} else {
			x.style = (uint8_t)y->data.mapping.style;
			x.a = (uint32_t)o->nkids;
			for (yaml_node_pair_t *p = y->data.mapping.pairs.start; p < y->data.mapping.pairs.top; p++) {
				kid_add(o, p->key);
				kid_add(o, p->value);
			}
			x.b = (uint32_t)o->nkids;
		}
		o->nodes = grow(o->nodes, &o->capnodes, o->nnodes + 1, sizeof *o->nodes);
		o->nodes[o->nnodes++] = x;
	}
	return n;
}

/* The file's one document into doc; false when it does not parse or holds
 * another document after the first. */
static bool parse_one(const char *raw, size_t len, yaml_document_t *doc)
{
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)raw, len);
	bool ok = yaml_parser_load(&p, doc);
	if (ok) {
		yaml_document_t next;
		if (yaml_parser_load(&p, &next)) {
			if (yaml_document_get_root_node(&next))
				ok = false;
			yaml_document_delete(&next);
		} else {
			ok = false;
		}
		if (!ok || !yaml_document_get_root_node(doc)) {
			yaml_document_delete(doc);
			ok = false;
		}
	}
	yaml_parser_delete(&p);
	return ok;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t cap = 0, n = 0, got;
	do {
		s = grow(s, &cap, n + 65536, 1);
		got = fread(s + n, 1, 65536, f);
		n += got;
	} while (got > 0);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(s);
		return NULL;
	}
	*len = n;
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rules-image-gen OUT.h FILE.yaml...\n");
		return 2;
	}
	out o = {0};
	kg_rimg_file *files = calloc((size_t)argc, sizeof *files);
	size_t nfiles = 0;
	for (int i = 2; i < argc; i++) {
		size_t len = 0;
		char *raw = slurp(argv[i], &len);
		if (!raw) {
			fprintf(stderr, "rules-image-gen: %s: cannot read\n", argv[i]);
			return 1;
		}
		yaml_document_t doc;
		if (parse_one(raw, len, &doc)) {
			kg_rimg_file *f = &files[nfiles++];
			f->name = base_name(argv[i]);
			f->len = len;
			f->hash = fnv1a(raw, len);
			f->node0 = (uint32_t)o.nnodes;
			f->nnodes = (uint32_t)add_doc(&o, &doc);
			yaml_document_delete(&doc);
		}
		free(raw);
	}
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "rules-image-gen: %s: cannot write\n", argv[1]);
		return 1;
	}
	fprintf(f, "/* Generated by rules-image-gen (lib/diagnose/rulesimage.c) from the shipped\n"
		   " * rule files; do not edit. */\n");
	fprintf(f, "static const char rimg_pool[] =\n\"");
	for (size_t i = 0, col = 0; i < o.npool; i++, col++) {
		unsigned char c = (unsigned char)o.pool[i];
		if (col >= 100) {
			fputs("\"\n\"", f);
			col = 0;
		}
		kg_gen_put_char(f, c);
	}
	fprintf(f, "\";\n");
	fprintf(f, "static const uint32_t rimg_kids[] = {");
	for (size_t i = 0; i < o.nkids; i++)
		fprintf(f, "%s%u,", i % 20 ? "" : "\n\t", o.kids[i]);
	fprintf(f, "\n\t0};\n");
	fprintf(f, "static const kg_rimg_node rimg_nodes[] = {\n");
	for (size_t i = 0; i < o.nnodes; i++) {
		kg_rimg_node *x = &o.nodes[i];
		fprintf(f, "\t{%u,%u,%u,%u,%u,%u,%u,%u,%u,%u},\n", x->type, x->style, x->a, x->b, x->sline,
			x->scol, x->sidx, x->eline, x->ecol, x->eidx);
	}
	fprintf(f, "};\nstatic const kg_rimg_file rimg_files[] = {\n");
	for (size_t i = 0; i < nfiles; i++)
		fprintf(f, "\t{\"%s\", %llu, 0x%016llxu, %u, %u},\n", files[i].name, (unsigned long long)files[i].len,
			(unsigned long long)files[i].hash, files[i].node0, files[i].nnodes);
	fprintf(f, "};\n");
	int bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "rules-image-gen: %s: write error\n", argv[1]);
		return 1;
	}
	free(files);
	free(o.pool);
	free(o.kids);
	free(o.nodes);
	return 0;
}

#else

/* ---- the library (run time) -------------------------------------------- */

#include "kg_rules_image.h"

size_t kg_rules_image_count(void)
{
	return sizeof rimg_files / sizeof rimg_files[0];
}

static void set_marks(yaml_node_t *y, const kg_rimg_node *x)
{
	y->start_mark = (yaml_mark_t){.index = x->sidx, .line = x->sline, .column = x->scol};
	y->end_mark = (yaml_mark_t){.index = x->eidx, .line = x->eline, .column = x->ecol};
}

/* The document is built in place, not through libyaml's document API
 * (which copies and checks each value: most of the image's cost): the
 * nodes in one array, the items and pairs in one block (doc->tag_directives
 * .start, otherwise unused, holds it for kg_rules_image_free), values and
 * tags pointing into the constant tables. */
bool kg_rules_image_doc(const char *path, const char *raw, size_t len, yaml_document_t *doc)
{
	const char *name = base_name(path);
	const kg_rimg_file *f = NULL;
	for (size_t i = 0; i < kg_rules_image_count(); i++)
		if (rimg_files[i].len == len && !strcmp(rimg_files[i].name, name)) {
			f = &rimg_files[i];
			break;
		}
	if (!f || f->hash != fnv1a(raw, len))
		return false;
	const kg_rimg_node *nodes = rimg_nodes + f->node0;
	size_t nkids = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (nodes[i].type != YAML_SCALAR_NODE)
			nkids += nodes[i].b - nodes[i].a;
	yaml_node_t *y = calloc(f->nnodes, sizeof *y);
	/* items are ints, pairs two ints: one block of ints serves both */
	int *kids = malloc((nkids + 1) * sizeof *kids);
	if (!y || !kids) {
		free(y);
		free(kids);
		return false;
	}
	memset(doc, 0, sizeof *doc);
	doc->nodes.start = y;
	doc->nodes.top = doc->nodes.end = y + f->nnodes;
	doc->tag_directives.start = (yaml_tag_directive_t *)(void *)kids;
	doc->start_implicit = doc->end_implicit = 1;
	int *k = kids;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const kg_rimg_node *x = &nodes[i];
		y[i].type = (yaml_node_type_t)x->type;
		set_marks(&y[i], x);
		if (x->type == YAML_SCALAR_NODE) {
			y[i].tag = (yaml_char_t *)YAML_DEFAULT_SCALAR_TAG;
			y[i].data.scalar.value = (yaml_char_t *)(uintptr_t)(rimg_pool + x->a);
			y[i].data.scalar.length = x->b;
			y[i].data.scalar.style = (yaml_scalar_style_t)x->style;
			continue;
		}
		for (uint32_t j = x->a; j < x->b; j++)
			k[j - x->a] = (int)rimg_kids[j];
		if (x->type == YAML_SEQUENCE_NODE) {
			y[i].tag = (yaml_char_t *)YAML_DEFAULT_SEQUENCE_TAG;
			y[i].data.sequence.items.start = k;
			y[i].data.sequence.items.top = y[i].data.sequence.items.end = k + (x->b - x->a);
			y[i].data.sequence.style = (yaml_sequence_style_t)x->style;
		} else {
			yaml_node_pair_t *pp = (yaml_node_pair_t *)(void *)k;
			y[i].tag = (yaml_char_t *)YAML_DEFAULT_MAPPING_TAG;
			y[i].data.mapping.pairs.start = pp;
			y[i].data.mapping.pairs.top = y[i].data.mapping.pairs.end = pp + (x->b - x->a) / 2;
			y[i].data.mapping.style = (yaml_mapping_style_t)x->style;
		}
		k += x->b - x->a;
	}
	return true;
}

void kg_rules_image_free(yaml_document_t *doc)
{
	free(doc->nodes.start);
	free(doc->tag_directives.start);
	memset(doc, 0, sizeof *doc);
}

#endif
