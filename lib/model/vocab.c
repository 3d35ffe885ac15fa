/* vocab.c — the tables of include/model/vocab.h, expanded from the .def lists. */
#include "model/vocab.h"

#include "model/util.h"

#include <stdbool.h>
#include <string.h>

static const char *const family_words[] = {
#define KG_FAMILY(id, word, headline) word,
#include "model/vocab/family.def"
#undef KG_FAMILY
};
static const char *const family_headlines[] = {
#define KG_FAMILY(id, word, headline) headline,
#include "model/vocab/family.def"
#undef KG_FAMILY
};
static const char *const framework_words[] = {
#define KG_FRAMEWORK(id, word) word,
#include "model/vocab/framework.def"
#undef KG_FRAMEWORK
};
static const char *const device_words[] = {
#define KG_DEVICE(id, word) word,
#include "model/vocab/device.def"
#undef KG_DEVICE
};
static const char *const severity_words[] = {
#define KG_SEVERITY(id, word) word,
#include "model/vocab/severity.def"
#undef KG_SEVERITY
};
static const char *const category_words[] = {
#define KG_CATEGORY(id, word) word,
#include "model/vocab/category.def"
#undef KG_CATEGORY
};
static const char *const phase_words[] = {
#define KG_PHASE(id, word) word,
#include "model/vocab/phase.def"
#undef KG_PHASE
};

static const char *const strength_words[] = {
#define KG_STRENGTH(id, word) word,
#include "model/vocab/strength.def"
#undef KG_STRENGTH
};
static const char *const mode_words[] = {
#define KG_MODE(id, word) word,
#include "model/vocab/mode.def"
#undef KG_MODE
};
static const char *const remedy_words[] = {
#define KG_REMEDY(id, word, train_only) word,
#include "model/vocab/remedy.def"
#undef KG_REMEDY
};
static const char *const confidence_words[] = {
#define KG_CONFIDENCE(id, word) word,
#include "model/vocab/confidence.def"
#undef KG_CONFIDENCE
};

const kg_vocab kg_families = {"family", family_words, KG_NFAMILIES};
const kg_vocab kg_frameworks = {"framework", framework_words, KG_NFRAMEWORKS};
const kg_vocab kg_device_types = {"device.type", device_words, KG_NDEVICE_TYPES};
const kg_vocab kg_severities = {"severity", severity_words, KG_NSEVERITIES};
const kg_vocab kg_categories = {"category", category_words, KG_NCATEGORIES};
const kg_vocab kg_phases = {"phase", phase_words, KG_NPHASES};
const kg_vocab kg_strengths = {"strength", strength_words, KG_NSTRENGTHS};
const kg_vocab kg_confidences = {"confidence", confidence_words, KG_NCONFIDENCES};
const kg_vocab kg_modes = {"job.mode", mode_words, KG_NMODES};
const kg_vocab kg_remedy_kinds = {"kind", remedy_words, KG_NREMEDY_KINDS};

unsigned kg_remedy_kinds_training_only(void)
{
	static const bool train_only[] = {
#define KG_REMEDY(id, word, t) t,
#include "model/vocab/remedy.def"
#undef KG_REMEDY
	};
	unsigned m = 0;
	for (unsigned i = 0; i < KG_NREMEDY_KINDS; i++)
		if (train_only[i])
			m |= 1u << i;
	return m;
}

const kg_vocab *kg_vocab_named(const char *name)
{
	static const kg_vocab *const all[] = {
		&kg_families, &kg_frameworks, &kg_device_types, &kg_severities, &kg_categories, &kg_phases,
		&kg_modes,
	};
	for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

const char *kg_vocab_word(const kg_vocab *v, int i)
{
	return i >= 0 && (size_t)i < v->n ? v->words[i] : NULL;
}

int kg_vocab_index(const kg_vocab *v, const char *s)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < v->n; i++)
		if (v->words[i] == s || strcmp(v->words[i], s) == 0)
			return (int)i;
	return -1;
}

char *kg_vocab_join(const kg_vocab *v, size_t from, const char *sep)
{
	kg_buf b = {0};
	for (size_t i = from; i < v->n; i++)
		kg_buf_printf(&b, "%s%s", i > from ? sep : "", v->words[i]);
	return kg_buf_steal(&b);
}

const char *kg_severity_name(enum kg_severity s)
{
	const char *w = kg_vocab_word(&kg_severities, (int)s);
	return w ? w : severity_words[KG_SEV_NONE];
}

const char *kg_family_headline(const char *family)
{
	int i = kg_vocab_index(&kg_families, family);
	return family_headlines[i < 0 ? KG_FAMILY_OTHER : i];
}
