/* vocab.h — the closed vocabularies of the JSON schema kgmem-diagnose/1
 * (DESIGN §2a, §4): message families, frameworks, device types,
 * severities, cause categories and phases. Each word is defined once, in
 * its X-macro list include/model/vocab/<vocabulary>.def; everything that parses,
 * prints or compares one of these words goes through the tables here
 * (tests/test_vocab.py greps the sources for stray copies).
 *
 * Incident and finding fields hold the words as `const char *` pointing
 * into these tables (static storage, never freed), so a word can be
 * compared by pointer once it came from kg_vocab_word(). */
#ifndef KG_VOCAB_H
#define KG_VOCAB_H

#include <stddef.h>

enum kg_family {
#define KG_FAMILY(id, word, headline) KG_FAMILY_##id,
#include "model/vocab/family.def"
#undef KG_FAMILY
	KG_NFAMILIES
};

enum kg_framework {
#define KG_FRAMEWORK(id, word) KG_FRAMEWORK_##id,
#include "model/vocab/framework.def"
#undef KG_FRAMEWORK
	KG_NFRAMEWORKS
};

enum kg_device_type {
#define KG_DEVICE(id, word) KG_DEVICE_##id,
#include "model/vocab/device.def"
#undef KG_DEVICE
	KG_NDEVICE_TYPES
};

/* Ordered: a larger value is more severe; KG_SEV_NONE (0) is no finding. */
enum kg_severity {
#define KG_SEVERITY(id, word) KG_SEV_##id,
#include "model/vocab/severity.def"
#undef KG_SEVERITY
	KG_NSEVERITIES
};

/* Ordered: most specific cause first (the rule order). */
enum kg_category {
#define KG_CATEGORY(id, word) KG_CATEGORY_##id,
#include "model/vocab/category.def"
#undef KG_CATEGORY
	KG_NCATEGORIES
};

/* Ordered: a larger value weighs more; KG_STRENGTH_NONE (0) is no
 * evidence. */
enum kg_strength {
#define KG_STRENGTH(id, word) KG_STRENGTH_##id,
#include "model/vocab/strength.def"
#undef KG_STRENGTH
	KG_NSTRENGTHS
};

/* Ordered: a larger value is surer. */
enum kg_confidence {
#define KG_CONFIDENCE(id, word) KG_CONFIDENCE_##id,
#include "model/vocab/confidence.def"
#undef KG_CONFIDENCE
	KG_NCONFIDENCES
};

enum kg_phase {
#define KG_PHASE(id, word) KG_PHASE_##id,
#include "model/vocab/phase.def"
#undef KG_PHASE
	KG_NPHASES
};

/* What a remedy changes (bit i of a mask is kind i). */
enum kg_remedy_kind {
#define KG_REMEDY(id, word, train_only) KG_REMEDY_##id,
#include "model/vocab/remedy.def"
#undef KG_REMEDY
	KG_NREMEDY_KINDS
};

/* KG_MODE_UNKNOWN (0) is the mode nothing told. */
enum kg_mode {
#define KG_MODE(id, word) KG_MODE_##id,
#include "model/vocab/mode.def"
#undef KG_MODE
	KG_NMODES
};

/* One vocabulary: its name as the JSON field or fact that carries it, and
 * its words in .def order (index = the enum value). */
typedef struct kg_vocab {
	const char *name;
	const char *const *words;
	size_t n;
} kg_vocab;

extern const kg_vocab kg_families;     /* "family" */
extern const kg_vocab kg_frameworks;   /* "framework" */
extern const kg_vocab kg_device_types; /* "device.type" */
extern const kg_vocab kg_severities;   /* "severity" */
extern const kg_vocab kg_categories;   /* "category" */
extern const kg_vocab kg_phases;       /* "phase" */
extern const kg_vocab kg_strengths;    /* "strength" */
extern const kg_vocab kg_confidences;  /* "confidence" */
extern const kg_vocab kg_modes;        /* "job.mode" */
extern const kg_vocab kg_remedy_kinds; /* remedy key "kind" */
/* The mask of the remedy kinds only training has (remedy.def). */
unsigned kg_remedy_kinds_training_only(void);

/* The vocabulary carried by the JSON field or fact called name ("family",
 * "framework", "device.type", "severity", "category", "phase",
 * "job.mode"), or NULL. */
const kg_vocab *kg_vocab_named(const char *name);

/* The word of entry i (static storage); NULL when i is out of range. */
const char *kg_vocab_word(const kg_vocab *v, int i);

/* The index of word s (exact, case-sensitive), or -1 when s is NULL or not
 * a word of v. */
int kg_vocab_index(const kg_vocab *v, const char *s);

/* Words from..n-1 of v joined by sep ("a, b, c"), for messages that list
 * the accepted words. malloc'd. */
char *kg_vocab_join(const kg_vocab *v, size_t from, const char *sep);

/* The word of each kind by its .def id, e.g. KG_FAMILY_WORD(PYTORCH2) is
 * "pytorch2" (static storage). */
#define KG_FAMILY_WORD(id) (kg_families.words[KG_FAMILY_##id])
#define KG_FRAMEWORK_WORD(id) (kg_frameworks.words[KG_FRAMEWORK_##id])
#define KG_DEVICE_WORD(id) (kg_device_types.words[KG_DEVICE_##id])
#define KG_CATEGORY_WORD(id) (kg_categories.words[KG_CATEGORY_##id])
#define KG_PHASE_WORD(id) (kg_phases.words[KG_PHASE_##id])
#define KG_MODE_WORD(id) (kg_modes.words[KG_MODE_##id])

/* "none", "info", "warning", "error": JSON `severity`, the rule key. */
const char *kg_severity_name(enum kg_severity s);

/* The text headline of a family ("cuBLAS failure", …), or NULL for the
 * families whose headline is "<DEVICE> out of memory" (family.def); an
 * unknown family reads as "other". */
const char *kg_family_headline(const char *family);

#endif
