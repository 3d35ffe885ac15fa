/* config.h — the user's training config (YAML, read with libyaml), its
 * values by role, and the registries under rules/ (keys.yaml,
 * datasets.yaml).
 *
 * Every mapping key becomes an entry addressed by its dotted path
 * (`data.test_bs`) with the node's marks (line, column, byte span), so the
 * patch planner can edit the scalar in place. Roles (`eval_batch_size`,
 * `embedding_dim`, …) are resolved through rules/keys.yaml; the dataset
 * name selects a rules/datasets.yaml entry. */
#ifndef KG_CONFIG_H
#define KG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "model/facts.h"
#include "model/knowns.h"
#include "model/util.h"

typedef enum kg_cfg_kind {
	KG_CFG_SCALAR,
	KG_CFG_MAPPING,
	KG_CFG_SEQUENCE,
} kg_cfg_kind;

typedef struct kg_config_entry {
	char *path;          /* dotted key path, "data.test_bs" */
	kg_cfg_kind kind;
	char *value;         /* scalar text (NULL for mappings and sequences) */
	int style;           /* libyaml yaml_scalar_style_t of the value */
	bool flow;           /* value is a flow mapping/sequence ({…} / […]) */
	long line;           /* 1-based line of the value */
	long key_line;       /* 1-based line of the key */
	long key_column;     /* 0-based column (characters) of the key */
	size_t start, end;   /* byte span of the value node in the file text */
	long end_line;       /* 1-based line where the value node ends */
	long parent;         /* index of the enclosing mapping entry, -1 = root */
	int role;            /* index into the role table, -1 = none */
	long node;           /* libyaml node id of the value: entries reached
	                        through an alias share it with the anchor's */
} kg_config_entry;

typedef struct kg_role {
	char *name;          /* "eval_batch_size" */
	char **keys;         /* key names, possibly dotted ("eval.batch_size") */
	size_t nkeys;
	char *insert;        /* key to add when the role is missing */
	char *near;          /* role whose mapping receives the inserted key */
	char *log;           /* how a log's text gives it: "count", "fraction",
	                        "size", "bool", or NULL (not read from logs) */
} kg_role;

/* The roles of keys.yaml in dir (NULL: kg_rules_data_dir's), in file
 * order, into *roles / *n (free with kg_roles_free). Returns 0, or -1 with
 * err on an unreadable or malformed keys.yaml. */
int kg_roles_load(const char *dir, kg_role **roles, size_t *n, kg_error *err);
void kg_roles_free(kg_role *roles, size_t n);

typedef struct kg_dataset {
	char *name;
	char **aliases;
	size_t naliases;
	int64_t entities, relations;
	char *source;
} kg_dataset;

typedef struct kg_config {
	char *path;
	char *text;          /* the file exactly as read */
	size_t len;
	struct stat st;      /* at read time: apply refuses when it changed */
	bool root_mapping;   /* the document is a block mapping */
	long root_column;    /* column of the top-level keys */
	kg_config_entry *v;
	size_t n, cap;
	kg_role *roles;
	size_t nroles;
	long *role_entry;    /* per role: entry index, or -1 */
	kg_dataset *datasets;
	size_t ndatasets;
	long dataset;        /* index into datasets, or -1 */
	char **warnings;     /* "cfg.yaml:12: data.test_bs is a mapping, …" */
	size_t nwarnings;
} kg_config;

/* Reads and parses a YAML config (at most 16 MiB), with the registries
 * keys.yaml and datasets.yaml each from kg_rules_data_dir() (the first
 * $KGMEM_RULES_PATH directory that has it, else the installed rules). Returns NULL and err (line set where it applies) on
 * an unreadable file, invalid YAML, a document that is not a mapping, a
 * mapping that repeats a key (the second line, naming the first), two
 * roles on one node through an alias (both keys' lines), aliases that
 * expand to more than 10,000 keys or mappings nested deeper than 64
 * levels, or a broken registry. A role key whose value is a mapping or sequence where a
 * number is expected is not an error: it is skipped with a warning. */
kg_config *kg_config_load(const char *path, kg_error *err);
/* Same, with an explicit rules directory (NULL: as kg_config_load). */
kg_config *kg_config_load_rules(const char *path, const char *rules_dir, kg_error *err);
/* Same on text already in memory; `name` is used in messages and as path. */
kg_config *kg_config_parse(const char *name, const char *text, size_t len,
			   const char *rules_dir, kg_error *err);
void kg_config_free(kg_config *c);

/* The entry holding a role's value, or NULL. */
const kg_config_entry *kg_config_role(const kg_config *c, const char *role);
/* The role's value as an integer; false when absent or not an integer. */
bool kg_config_role_int(const kg_config *c, const char *role, int64_t *out);
/* true when the role's value is a number (not a name or flag). */
bool kg_role_numeric(const char *role);

/* Adds `config.<role>` (COUNT for integers, RATIO for other numbers,
 * STRING otherwise) with provenance "PATH:LINE", `config.<role>.key` (the
 * dotted key, STRING) and, when the dataset is known, `dataset.name`,
 * `dataset.entities`, `dataset.relations` (provenance "PATH:LINE
 * (rules/datasets.yaml)"). */
void kg_config_facts(const kg_config *c, kg_facts *facts);

/* Adds the config's integers (≥ 2) to an explain search: batch-size roles
 * as batches, embedding_dim as a dim, negatives/seq_len as counts, other
 * integer keys as "other", the dataset's entity and relation counts, and
 * the usual constants and dtype widths (the config's precision preferred). */
void kg_config_knowns(const kg_config *c, kg_knowns *k);

/* Looks a dataset name up in a registry (case-insensitive, ignoring '-',
 * '_', '.' and spaces); NULL when unknown. */
const kg_dataset *kg_dataset_find(const kg_config *c, const char *name);

/* A registry under the rules directory other than keys.yaml and
 * datasets.yaml (rules/models.yaml, rules/gpus.yaml): a YAML sequence of
 * mappings, each entry's scalar values by key, a sequence's items each a
 * value of its key (aliases: [a, b] gives (aliases, a), (aliases, b)),
 * read with the loader keys.yaml and datasets.yaml use. */
typedef struct kg_registry_entry {
	char **keys, **values; /* pairs in file order */
	size_t n;
	long line;             /* 1-based line of the entry */
} kg_registry_entry;

typedef struct kg_registry {
	kg_registry_entry *v;
	size_t n;
} kg_registry;

/* Reads DIR/FILE into *out (entries that are not mappings skipped).
 * Returns 0, or -1 with err ("DIR/FILE: …") on an unreadable file or
 * invalid YAML, *out then empty. */
int kg_registry_load(const char *dir, const char *file, kg_registry *out, kg_error *err);
/* The first value of key in e, or NULL. */
const char *kg_registry_get(const kg_registry_entry *e, const char *key);
void kg_registry_free(kg_registry *r);

#endif
