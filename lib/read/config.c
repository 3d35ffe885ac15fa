/* config.c — see include/read/config.h. YAML through libyaml's document API
 * (yaml_parser_load), whose node marks give line and column; byte offsets
 * are recomputed from them because libyaml's mark.index counts characters,
 * not bytes. */
#include "read/config.h"
#include "read/rulesimage.h"
#include "model/paths.h"
#include "kg_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#define KG_CONFIG_MAX (16u << 20)

/* Reads a whole file (≤ KG_CONFIG_MAX) into a NUL-terminated buffer. */
static char *slurp(const char *path, size_t *len, struct stat *st, kg_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		kg_fail(err, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (st && fstat(fileno(f), st) != 0)
		memset(st, 0, sizeof *st);
	kg_buf b = {0};
	char chunk[65536];
	size_t r;
	while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + r > KG_CONFIG_MAX) {
			fclose(f);
			kg_buf_free(&b);
			kg_fail(err, "larger than %u MiB; not a config", KG_CONFIG_MAX >> 20);
			return NULL;
		}
		kg_buf_append(&b, chunk, r);
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		kg_buf_free(&b);
		kg_fail(err, "read error");
		return NULL;
	}
	*len = b.len;
	return kg_buf_steal(&b);
}

/* A parsed YAML document plus line starts to map marks to byte offsets. */
typedef struct ydoc {
	yaml_document_t doc;
	const char *text;
	size_t len;
	size_t *line_start;
	size_t nlines;
	bool imaged;          /* doc came from the build's image (rulesimage.h) */
} ydoc;

/* Length of the line break at text[i] as libyaml counts lines (YAML 1.1,
 * scanner.c SKIP_LINE and IS_BREAK): CR LF as one, else CR, LF, NEL
 * (U+0085), LS (U+2028) or PS (U+2029); 0 when text[i] starts none. A bare
 * CR is a line break to libyaml: counting '\n' alone put a mark's line one
 * off and a patch on the wrong line (issue 26). */
static size_t break_len(const char *text, size_t len, size_t i)
{
	const unsigned char *t = (const unsigned char *)text;
	if (t[i] == '\n')
		return 1;
	if (t[i] == '\r')
		return i + 1 < len && t[i + 1] == '\n' ? 2 : 1;
	if (t[i] == 0xC2 && i + 1 < len && t[i + 1] == 0x85)
		return 2;
	if (t[i] == 0xE2 && i + 2 < len && t[i + 1] == 0x80 && (t[i + 2] == 0xA8 || t[i + 2] == 0xA9))
		return 3;
	return 0;
}

/* libyaml's scanner is quadratic in flow nesting ("[[[[…"): a config
 * nested deeper than any real one is refused before it is parsed, in one
 * linear pass (brackets inside quotes and comments do not count). */
#define KG_CONFIG_MAX_FLOW_DEPTH 64

static int flow_depth_check(const char *text, size_t len, kg_error *err)
{
	int depth = 0;
	long line = 1;
	char quote = 0;
	bool comment = false;
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		size_t br = break_len(text, len, i);
		if (br) {
			line++;
			comment = false;
			i += br - 1;
			continue;
		}
		if (comment)
			continue;
		if (quote) {
			if (ch == quote)
				quote = 0;
			continue;
		}
		if (ch == '"' || ch == '\'')
			quote = ch;
		else if (ch == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t'))
			comment = true;
		else if (ch == '[' || ch == '{') {
			if (++depth > KG_CONFIG_MAX_FLOW_DEPTH)
				return kg_fail_line(err, line, "invalid YAML: flow collections nested deeper than %d levels",
						    KG_CONFIG_MAX_FLOW_DEPTH);
		} else if ((ch == ']' || ch == '}') && depth > 0)
			depth--;
	}
	return 0;
}

/* ydoc_load for a registry file at `path`: a shipped one as shipped comes
 * from the build's image (rulesimage.h), any other is parsed. */
static int ydoc_load(ydoc *d, const char *text, size_t len, kg_error *err);
static int ydoc_load_file(ydoc *d, const char *path, const char *text, size_t len, kg_error *err);

static int ydoc_load(ydoc *d, const char *text, size_t len, kg_error *err)
{
	return ydoc_load_file(d, NULL, text, len, err);
}

static int ydoc_load_file(ydoc *d, const char *path, const char *text, size_t len, kg_error *err)
{
	memset(d, 0, sizeof *d);
	d->text = text;
	d->len = len;
	if (path && kg_rules_image_doc(path, text, len, &d->doc))
		d->imaged = true;
	else if (flow_depth_check(text, len, err) < 0)
		return -1;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!d->imaged && !yaml_parser_load(&p, &d->doc)) {
		if (p.error == YAML_MEMORY_ERROR)
			kg_out_of_memory(0);
		long line = (long)p.problem_mark.line + 1;
		kg_fail_line(err, line, "invalid YAML: %s%s%s", p.problem ? p.problem : "parse error",
			     p.context ? " " : "", p.context ? p.context : "");
		yaml_parser_delete(&p);
		return -1;
	}
	yaml_parser_delete(&p);
	/* line starts where libyaml's marks count lines (break_len) */
	size_t nl = 1;
	for (size_t i = 0; i < len; i++) {
		size_t br = break_len(text, len, i);
		nl += br > 0;
		i += br ? br - 1 : 0;
	}
	d->line_start = kg_malloc(nl * sizeof(size_t));
	d->line_start[0] = 0;
	d->nlines = 1;
	for (size_t i = 0; i < len; i++) {
		size_t br = break_len(text, len, i);
		if (br) {
			i += br - 1;
			d->line_start[d->nlines++] = i + 1;
		}
	}
	return 0;
}

static void ydoc_free(ydoc *d)
{
	if (d->imaged)
		kg_rules_image_free(&d->doc);
	else
		yaml_document_delete(&d->doc);
	free(d->line_start);
}

/* Byte offset of a libyaml mark (0-based line, column in characters). */
static size_t mark_offset(const ydoc *d, yaml_mark_t m)
{
	if (m.line >= d->nlines)
		return d->len;
	size_t o = d->line_start[m.line];
	for (size_t col = 0; col < m.column && o < d->len && !break_len(d->text, d->len, o); col++) {
		o++;
		while (o < d->len && ((unsigned char)d->text[o] & 0xC0) == 0x80)
			o++;
	}
	return o;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- registries ---- */

static char **string_list(yaml_document_t *doc, yaml_node_t *n, size_t *count)
{
	char **v = NULL;
	*count = 0;
	if (!n)
		return NULL;
	if (n->type == YAML_SCALAR_NODE) {
		v = kg_malloc(sizeof *v);
		v[0] = kg_strdup(scalar(n));
		*count = 1;
		return v;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		const char *s = scalar(yaml_document_get_node(doc, *it));
		if (!s)
			continue;
		v = kg_realloc(v, (*count + 1) * sizeof *v);
		v[(*count)++] = kg_strdup(s);
	}
	return v;
}

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		if (k && strcmp(k, key) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static int load_registry(const char *dir, const char *file, ydoc *d, char **text, kg_error *err)
{
	char *path = kg_asprintf("%s/%s", dir, file);
	size_t len;
	*text = slurp(path, &len, NULL, err);
	if (!*text || ydoc_load_file(d, path, *text, len, err) < 0) {
		if (err) {
			char *m = kg_asprintf("%s: %s", path, err->msg);
			snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, m);
			free(m);
		}
		free(*text);
		*text = NULL;
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int kg_roles_load(const char *dir, kg_role **roles, size_t *n, kg_error *err)
{
	ydoc d;
	char *text;
	*roles = NULL;
	*n = 0;
	if (!dir)
		dir = kg_rules_data_dir("keys.yaml");
	if (load_registry(dir, "keys.yaml", &d, &text, err) < 0)
		return -1;
	yaml_node_t *root = yaml_document_get_root_node(&d.doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		ydoc_free(&d);
		free(text);
		return kg_fail(err, "%s/keys.yaml: not a mapping of roles", dir);
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *name = scalar(yaml_document_get_node(&d.doc, p->key));
		yaml_node_t *v = yaml_document_get_node(&d.doc, p->value);
		if (!name)
			continue;
		*roles = kg_realloc(*roles, (*n + 1) * sizeof **roles);
		kg_role *r = &(*roles)[(*n)++];
		memset(r, 0, sizeof *r);
		r->name = kg_strdup(name);
		r->keys = string_list(&d.doc, map_get(&d.doc, v, "keys"), &r->nkeys);
		const char *ins = scalar(map_get(&d.doc, v, "insert"));
		const char *near = scalar(map_get(&d.doc, v, "near"));
		const char *log = scalar(map_get(&d.doc, v, "log"));
		r->insert = kg_strdup(ins ? ins : name);
		r->near = near ? kg_strdup(near) : NULL;
		r->log = log ? kg_strdup(log) : NULL;
	}
	ydoc_free(&d);
	free(text);
	return 0;
}

void kg_roles_free(kg_role *roles, size_t n)
{
	for (size_t r = 0; r < n; r++) {
		free(roles[r].name);
		for (size_t k = 0; k < roles[r].nkeys; k++)
			free(roles[r].keys[k]);
		free(roles[r].keys);
		free(roles[r].insert);
		free(roles[r].near);
		free(roles[r].log);
	}
	free(roles);
}

static int load_roles(kg_config *c, const char *dir, kg_error *err)
{
	return kg_roles_load(dir, &c->roles, &c->nroles, err);
}

static int load_datasets(kg_config *c, const char *dir, kg_error *err)
{
	ydoc d;
	char *text;
	if (load_registry(dir, "datasets.yaml", &d, &text, err) < 0)
		return -1;
	yaml_node_t *root = yaml_document_get_root_node(&d.doc);
	if (root && root->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = root->data.sequence.items.start; it < root->data.sequence.items.top; it++) {
			yaml_node_t *m = yaml_document_get_node(&d.doc, *it);
			const char *name = scalar(map_get(&d.doc, m, "name"));
			const char *ent = scalar(map_get(&d.doc, m, "entities"));
			const char *rel = scalar(map_get(&d.doc, m, "relations"));
			const char *src = scalar(map_get(&d.doc, m, "source"));
			if (!name || !ent)
				continue;
			c->datasets = kg_realloc(c->datasets, (c->ndatasets + 1) * sizeof *c->datasets);
			kg_dataset *x = &c->datasets[c->ndatasets++];
			x->name = kg_strdup(name);
			x->aliases = string_list(&d.doc, map_get(&d.doc, m, "aliases"), &x->naliases);
			x->entities = strtoll(ent, NULL, 10);
			x->relations = rel ? strtoll(rel, NULL, 10) : KG_NONE;
			x->source = kg_strdup(src ? src : "");
		}
	}
	ydoc_free(&d);
	free(text);
	return 0;
}

int kg_registry_load(const char *dir, const char *file, kg_registry *out, kg_error *err)
{
	memset(out, 0, sizeof *out);
	ydoc d;
	char *text;
	if (load_registry(dir, file, &d, &text, err) < 0)
		return -1;
	yaml_node_t *root = yaml_document_get_root_node(&d.doc);
	if (root && root->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = root->data.sequence.items.start; it < root->data.sequence.items.top; it++) {
			yaml_node_t *m = yaml_document_get_node(&d.doc, *it);
			if (!m || m->type != YAML_MAPPING_NODE)
				continue;
			out->v = kg_realloc(out->v, (out->n + 1) * sizeof *out->v);
			kg_registry_entry *e = &out->v[out->n++];
			memset(e, 0, sizeof *e);
			e->line = (long)m->start_mark.line + 1;
			for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
				const char *k = scalar(yaml_document_get_node(&d.doc, p->key));
				size_t nv;
				char **vals = k ? string_list(&d.doc, yaml_document_get_node(&d.doc, p->value), &nv) : NULL;
				for (size_t j = 0; vals && j < nv; j++) {
					e->keys = kg_realloc(e->keys, (e->n + 1) * sizeof *e->keys);
					e->values = kg_realloc(e->values, (e->n + 1) * sizeof *e->values);
					e->keys[e->n] = kg_strdup(k);
					e->values[e->n++] = vals[j];
				}
				free(vals);
			}
		}
	}
	ydoc_free(&d);
	free(text);
	return 0;
}

const char *kg_registry_get(const kg_registry_entry *e, const char *key)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->keys[i], key))
			return e->values[i];
	return NULL;
}

void kg_registry_free(kg_registry *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (size_t j = 0; j < r->v[i].n; j++) {
			free(r->v[i].keys[j]);
			free(r->v[i].values[j]);
		}
		free(r->v[i].keys);
		free(r->v[i].values);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}

static void squash(const char *s, char *out, size_t n)
{
	size_t o = 0;
	for (; *s && o + 1 < n; s++)
		if (*s != '-' && *s != '_' && *s != '.' && *s != ' ')
			out[o++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
	out[o] = 0;
}

const kg_dataset *kg_dataset_find(const kg_config *c, const char *name)
{
	char want[128], have[128];
	/* "data/WN18RR" or "./datasets/wn18rr/" name the dataset by their last part */
	const char *base = name;
	size_t L = strlen(name);
	while (L && name[L - 1] == '/')
		L--;
	for (size_t i = 0; i < L; i++)
		if (name[i] == '/')
			base = name + i + 1;
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%.*s", (int)(L - (size_t)(base - name)), base);
	squash(tmp, want, sizeof want);
	for (size_t i = 0; i < c->ndatasets; i++) {
		squash(c->datasets[i].name, have, sizeof have);
		if (!strcmp(want, have))
			return &c->datasets[i];
		for (size_t j = 0; j < c->datasets[i].naliases; j++) {
			squash(c->datasets[i].aliases[j], have, sizeof have);
			if (!strcmp(want, have))
				return &c->datasets[i];
		}
	}
	return NULL;
}

/* ---- the config document ---- */

static void add_entry(kg_config *c, const ydoc *d, const char *path, yaml_node_t *key,
		      yaml_node_t *val, long parent)
{
	if (c->n == c->cap) { /* geometric growth: no quadratic copying */
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = kg_realloc(c->v, c->cap * sizeof *c->v);
	}
	kg_config_entry *e = &c->v[c->n++];
	memset(e, 0, sizeof *e);
	e->path = kg_strdup(path);
	e->kind = val->type == YAML_MAPPING_NODE ? KG_CFG_MAPPING :
		  val->type == YAML_SEQUENCE_NODE ? KG_CFG_SEQUENCE : KG_CFG_SCALAR;
	if (e->kind == KG_CFG_SCALAR) {
		e->value = kg_strdup(scalar(val));
		e->style = val->data.scalar.style;
	} else if (e->kind == KG_CFG_MAPPING) {
		e->flow = val->data.mapping.style == YAML_FLOW_MAPPING_STYLE;
	} else {
		e->flow = val->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE;
	}
	e->line = (long)val->start_mark.line + 1;
	e->key_line = (long)key->start_mark.line + 1;
	e->key_column = (long)key->start_mark.column;
	e->start = mark_offset(d, val->start_mark);
	e->end = mark_offset(d, val->end_mark);
	e->end_line = (long)val->end_mark.line + 1;
	e->parent = parent;
	e->role = -1;
}

/* Bounds on what aliases may make of a document: a mapping reached through
 * an alias is walked again under its new key, so "m1: {x: *m0, y: *m0}"
 * chains double at every level (a 931-byte file would expand past 2.8 GB).
 * Keys reached through aliases are counted and refused past the limit;
 * mappings nested (aliases included) deeper than the limit are refused. */
#define KG_CONFIG_MAX_ALIAS_KEYS 10000
#define KG_CONFIG_MAX_DEPTH 64

typedef struct walker {
	kg_config *c;
	const ydoc *d;
	unsigned char *seen;   /* per node: reached as a value already */
	size_t alias_keys;     /* keys added below an aliased mapping */
	kg_error *err;
} walker;

static long node_id(const ydoc *d, const yaml_node_t *n)
{
	return (long)(n - d->doc.nodes.start);
}

static int walk(walker *W, yaml_node_t *map, const char *prefix, long parent, int depth,
		bool aliased)
{
	kg_config *c = W->c;
	const ydoc *d = W->d;
	if (depth > KG_CONFIG_MAX_DEPTH)
		return kg_fail_line(W->err, (long)map->start_mark.line + 1,
				    "mappings nested deeper than %d levels (aliases included); refused",
				    KG_CONFIG_MAX_DEPTH);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node((yaml_document_t *)&d->doc, p->key);
		yaml_node_t *v = yaml_document_get_node((yaml_document_t *)&d->doc, p->value);
		const char *ks = scalar(k);
		if (!ks || !v)
			continue;
		long id = node_id(d, v);
		bool again = aliased || W->seen[id];
		W->seen[id] = 1;
		if (again && ++W->alias_keys > KG_CONFIG_MAX_ALIAS_KEYS)
			return kg_fail_line(W->err, (long)k->start_mark.line + 1,
					    "YAML aliases expand to more than %d keys; refused",
					    KG_CONFIG_MAX_ALIAS_KEYS);
		char *path = prefix ? kg_asprintf("%s.%s", prefix, ks) : kg_strdup(ks);
		add_entry(c, d, path, k, v, parent);
		long me = (long)c->n - 1;
		c->v[me].node = id;
		int rc = 0;
		if (v->type == YAML_MAPPING_NODE)
			rc = walk(W, v, path, me, depth + 1, again);
		free(path);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Duplicate keys: YAML loaders keep the last, an edit would change the
 * first, so a mapping that repeats a key is refused (both lines named; of
 * a mapping's repeats, the earliest in the file). */
static int duplicate_keys(const ydoc *d, kg_error *err)
{
	for (yaml_node_t *m = d->doc.nodes.start; m < d->doc.nodes.top; m++) {
		if (m->type != YAML_MAPPING_NODE)
			continue;
		size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
		if (n < 2)
			continue;
		const char **keys = kg_malloc(n * sizeof *keys);
		long *lines = kg_malloc(n * sizeof *lines);
		size_t *first = kg_malloc(n * sizeof *first);
		for (size_t i = 0; i < n; i++) {
			yaml_node_t *kn = yaml_document_get_node((yaml_document_t *)&d->doc,
								 m->data.mapping.pairs.start[i].key);
			keys[i] = scalar(kn);
			lines[i] = kn ? (long)kn->start_mark.line + 1 : 0;
		}
		int rc = 0;
		if (kg_first_equal(keys, n, first)) {
			size_t best = n;
			for (size_t i = 0; i < n; i++)
				if (first[i] != i && (best == n || lines[i] < lines[best]))
					best = i;
			char key[128];
			snprintf(key, sizeof key, "%s", keys[best]);
			kg_fail_line(err, lines[best], "duplicate key '%s' (first at line %ld): YAML loaders "
				     "keep the last one; remove one of them", key, lines[first[best]]);
			rc = -1;
		}
		free(keys);
		free(lines);
		free(first);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Number of trailing dotted components of path matched by pattern, or 0. */
static int suffix_match(const char *path, const char *pattern)
{
	size_t pl = strlen(path), ql = strlen(pattern);
	if (ql > pl || strcmp(path + pl - ql, pattern) != 0)
		return 0;
	if (ql < pl && path[pl - ql - 1] != '.')
		return 0;
	int comps = 1;
	for (const char *s = pattern; *s; s++)
		comps += *s == '.';
	return comps;
}

bool kg_role_numeric(const char *role)
{
	return strcmp(role, "dataset") && strcmp(role, "precision") && strcmp(role, "model");
}

static bool is_integer(const char *s, int64_t *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno)
		return false;
	if (out)
		*out = v;
	return true;
}

static bool is_number(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	char *end;
	double v = strtod(s, &end);
	if (*end)
		return false;
	if (out)
		*out = v;
	return true;
}

static bool is_false(const char *s)
{
	return !strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0");
}

static void warn(kg_config *c, long line, const char *what, const char *path, const char *detail)
{
	c->warnings = kg_realloc(c->warnings, (c->nwarnings + 1) * sizeof *c->warnings);
	c->warnings[c->nwarnings++] = kg_asprintf("%s:%ld: %s %s; ignored (%s)", c->path, line, path,
						  detail, what);
}

static void resolve_roles(kg_config *c)
{
	c->role_entry = kg_malloc((c->nroles ? c->nroles : 1) * sizeof *c->role_entry);
	for (size_t r = 0; r < c->nroles; r++)
		c->role_entry[r] = -1;
	for (size_t i = 0; i < c->n; i++) {
		int best = 0;
		for (size_t r = 0; r < c->nroles; r++)
			for (size_t k = 0; k < c->roles[r].nkeys; k++) {
				int m = suffix_match(c->v[i].path, c->roles[r].keys[k]);
				if (m > best) {
					best = m;
					c->v[i].role = (int)r;
				}
			}
	}
	for (size_t r = 0; r < c->nroles; r++) {
		const char *name = c->roles[r].name;
		bool numeric = kg_role_numeric(name);
		for (size_t i = 0; i < c->n; i++) {
			kg_config_entry *e = &c->v[i];
			if (e->role != (int)r)
				continue;
			if (e->kind != KG_CFG_SCALAR) {
				if (numeric)
					warn(c, e->key_line, name, e->path, e->kind == KG_CFG_MAPPING ?
					     "is a mapping where a number is expected" :
					     "is a sequence where a number is expected");
				continue;
			}
			if (!strcmp(name, "precision") && is_false(e->value))
				continue;
			if (numeric && !is_number(e->value, NULL)) {
				if (!strcasecmp(e->value, "null") || !strcmp(e->value, "~") || !*e->value)
					continue;
				warn(c, e->key_line, name, e->path, "is not a number");
				continue;
			}
			c->role_entry[r] = (long)i;
			break;
		}
	}
	c->dataset = -1;
	const kg_config_entry *ds = kg_config_role(c, "dataset");
	if (ds) {
		const kg_dataset *x = kg_dataset_find(c, ds->value);
		if (x)
			c->dataset = x - c->datasets;
	}
}

/* Two roles on one YAML node ("batch_size: &n 8" and
 * "gradient_accumulation_steps: *n"): an edit of one would change the
 * other, so the config is refused, naming both keys' lines. */
static int shared_roles(const kg_config *c, kg_error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		const kg_config_entry *a = &c->v[i];
		if (a->role < 0)
			continue;
		for (size_t j = i + 1; j < c->n; j++) {
			const kg_config_entry *b = &c->v[j];
			if (b->role < 0 || b->role == a->role || b->node != a->node)
				continue;
			return kg_fail_line(err, b->key_line, "%s (%s) and %s (%s, line %ld) are one YAML "
					    "node through an alias; give each its own value",
					    b->path, c->roles[b->role].name, a->path,
					    c->roles[a->role].name, a->key_line);
		}
	}
	return 0;
}

kg_config *kg_config_parse(const char *name, const char *text, size_t len,
			   const char *rules_dir, kg_error *err)
{
	kg_config *c = kg_calloc(1, sizeof *c);
	c->path = kg_strdup(name);
	c->text = kg_strndup(text, len);
	c->len = len;
	if (load_roles(c, rules_dir ? rules_dir : kg_rules_data_dir("keys.yaml"), err) < 0 ||
	    load_datasets(c, rules_dir ? rules_dir : kg_rules_data_dir("datasets.yaml"), err) < 0) {
		kg_config_free(c);
		return NULL;
	}
	ydoc d;
	if (ydoc_load(&d, c->text, len, err) < 0) {
		kg_config_free(c);
		return NULL;
	}
	yaml_node_t *root = yaml_document_get_root_node(&d.doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		long line = root ? (long)root->start_mark.line + 1 : 1;
		ydoc_free(&d);
		kg_config_free(c);
		kg_fail_line(err, line, "not a YAML mapping of settings");
		return NULL;
	}
	c->root_mapping = root->data.mapping.style != YAML_FLOW_MAPPING_STYLE;
	c->root_column = (long)root->start_mark.column;
	walker W = {.c = c, .d = &d, .err = err};
	W.seen = kg_calloc((size_t)(d.doc.nodes.top - d.doc.nodes.start) + 1, 1);
	int rc = duplicate_keys(&d, err);
	if (rc == 0)
		rc = walk(&W, root, NULL, -1, 0, false);
	free(W.seen);
	ydoc_free(&d);
	if (rc < 0) {
		kg_config_free(c);
		return NULL;
	}
	resolve_roles(c);
	if (shared_roles(c, err) < 0) {
		kg_config_free(c);
		return NULL;
	}
	return c;
}

kg_config *kg_config_load_rules(const char *path, const char *rules_dir, kg_error *err)
{
	size_t len;
	struct stat st;
	char *text = slurp(path, &len, &st, err);
	if (!text)
		return NULL;
	const char *nul = memchr(text, 0, len);
	if (nul) {
		kg_fail_at(err, (int64_t)(nul - text), "NUL byte; not a YAML config");
		free(text);
		return NULL;
	}
	kg_config *c = kg_config_parse(path, text, len, rules_dir, err);
	free(text);
	if (c)
		c->st = st;
	return c;
}

kg_config *kg_config_load(const char *path, kg_error *err)
{
	return kg_config_load_rules(path, NULL, err);
}

void kg_config_free(kg_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].value);
	}
	free(c->v);
	kg_roles_free(c->roles, c->nroles);
	free(c->role_entry);
	for (size_t i = 0; i < c->ndatasets; i++) {
		free(c->datasets[i].name);
		for (size_t j = 0; j < c->datasets[i].naliases; j++)
			free(c->datasets[i].aliases[j]);
		free(c->datasets[i].aliases);
		free(c->datasets[i].source);
	}
	free(c->datasets);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->path);
	free(c->text);
	free(c);
}

const kg_config_entry *kg_config_role(const kg_config *c, const char *role)
{
	for (size_t r = 0; r < c->nroles; r++)
		if (!strcmp(c->roles[r].name, role))
			return c->role_entry && c->role_entry[r] >= 0 ? &c->v[c->role_entry[r]] : NULL;
	return NULL;
}

bool kg_config_role_int(const kg_config *c, const char *role, int64_t *out)
{
	const kg_config_entry *e = kg_config_role(c, role);
	return e && is_integer(e->value, out);
}

/* "fp16: true" names the precision by its key */
static const char *role_value(const kg_config_entry *e, const char *role)
{
	if (!strcmp(role, "precision")) {
		const char *leaf = strrchr(e->path, '.');
		leaf = leaf ? leaf + 1 : e->path;
		if (!strcasecmp(e->value, "true") || !strcasecmp(e->value, "yes"))
			return !strcmp(leaf, "amp") || !strcmp(leaf, "mixed_precision") ? "amp" : leaf;
	}
	return e->value;
}

void kg_config_facts(const kg_config *c, kg_facts *facts)
{
	for (size_t r = 0; r < c->nroles; r++) {
		if (c->role_entry[r] < 0)
			continue;
		const kg_config_entry *e = &c->v[c->role_entry[r]];
		const char *role = c->roles[r].name;
		char *name = kg_asprintf("config.%s", role);
		char *prov = kg_asprintf("%s:%ld", c->path, e->line);
		int64_t iv;
		double dv;
		if (kg_role_numeric(role) && is_integer(e->value, &iv))
			kg_facts_set_num(facts, name, KG_FACT_COUNT, (double)iv, prov);
		else if (kg_role_numeric(role) && is_number(e->value, &dv))
			kg_facts_set_num(facts, name, KG_FACT_RATIO, dv, prov);
		else
			kg_facts_set_str(facts, name, role_value(e, role), prov);
		char *kname = kg_asprintf("config.%s.key", role);
		kg_facts_set_str(facts, kname, e->path, prov);
		free(kname);
		free(name);
		free(prov);
	}
	if (c->dataset >= 0) {
		const kg_dataset *x = &c->datasets[c->dataset];
		const kg_config_entry *e = kg_config_role(c, "dataset");
		char *prov = kg_asprintf("%s:%ld (rules/datasets.yaml)", c->path, e ? e->line : 0);
		kg_facts_set_str(facts, "dataset.name", x->name, prov);
		kg_facts_set_num(facts, "dataset.entities", KG_FACT_COUNT, (double)x->entities, prov);
		if (x->relations != KG_NONE)
			kg_facts_set_num(facts, "dataset.relations", KG_FACT_COUNT, (double)x->relations, prov);
		free(prov);
	}
}

/* Roles whose values size tensors, and how explain ranks them; other keys
 * (epochs, seeds, workers, steps) never multiply into a tensor size. */
static int role_kind(const char *role)
{
	if (!strcmp(role, "eval_batch_size") || !strcmp(role, "train_batch_size"))
		return KG_KNOWN_BATCH;
	if (!strcmp(role, "embedding_dim"))
		return KG_KNOWN_DIM;
	if (!strcmp(role, "negatives") || !strcmp(role, "seq_len"))
		return KG_KNOWN_COUNT;
	return -1;
}

void kg_config_knowns(const kg_config *c, kg_knowns *k)
{
	for (size_t i = 0; i < c->n; i++) {
		const kg_config_entry *e = &c->v[i];
		int64_t v;
		if (e->kind != KG_CFG_SCALAR || !is_integer(e->value, &v) || v < 2)
			continue;
		if (e->role < 0 || c->role_entry[e->role] != (long)i)
			continue;
		int kind = role_kind(c->roles[e->role].name);
		if (kind >= 0)
			kg_knowns_add(k, v, e->path, (kg_known_kind)kind);
	}
	if (c->dataset >= 0) {
		const kg_dataset *x = &c->datasets[c->dataset];
		char *l = kg_asprintf("%s entities", x->name);
		kg_knowns_add(k, x->entities, l, KG_KNOWN_DATASET);
		free(l);
		if (x->relations != KG_NONE) {
			l = kg_asprintf("%s relations", x->name);
			kg_knowns_add(k, x->relations, l, KG_KNOWN_DATASET);
			free(l);
		}
	}
	const kg_config_entry *p = kg_config_role(c, "precision");
	kg_knowns_add_defaults(k, p ? role_value(p, "precision") : NULL);
}
