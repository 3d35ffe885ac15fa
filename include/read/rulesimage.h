/* rulesimage.h — the shipped rule files and registries (rules/NAME.yaml),
 * parsed at build time.
 *
 * Parsing the shipped rule files (rules/NAME.yaml) with libyaml was most of a short log's
 * run time (about 13 of 33 million instructions for a 10-line log, issue
 * 30). The build runs this module's generator (rulesimage.c compiled with
 * KG_RULES_IMAGE_GEN, a native executable) over those files and compiles
 * the YAML documents it got into the library as flat node tables, each
 * with the length and FNV-1a 64-bit hash of the file it came from. A rule
 * file whose bytes are exactly those of a shipped one gets its document
 * from the table; any other file (edited, a user's own through --rules or
 * KGMEM_RULES_PATH) is parsed as before. Same document either way: node
 * ids, values, scalar styles and marks (line, column, byte index) as
 * libyaml 0.2's yaml_parser_load gives them. */
/* (The rules engine, lib/diagnose/rules.c, and the registries' loader,
 * lib/read/config.c, both read through it; it lives in the read stage.) */
#ifndef KG_RULES_IMAGE_H
#define KG_RULES_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Fills *doc (to be released with kg_rules_image_free, never
 * yaml_document_delete: its values are the image's own) with the document
 * of the rule file named `path` (its base name is looked up) whose bytes
 * are raw[0..len), when the build parsed a file with exactly these bytes.
 * Returns false, and leaves *doc untouched, when it did not (the caller
 * parses raw) or when memory for the document ran out. */
bool kg_rules_image_doc(const char *path, const char *raw, size_t len, yaml_document_t *doc);

/* Releases a document kg_rules_image_doc filled. */
void kg_rules_image_free(yaml_document_t *doc);

/* How many files the image holds (the tests check each shipped one). */
size_t kg_rules_image_count(void);

#endif
