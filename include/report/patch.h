/* patch.h — config changes as minimal edits of the user's YAML: a remedy's
 * (role, value) pairs become in-place scalar replacements (libyaml marks;
 * comments, order, quoting style and indentation survive) or, for a role
 * the file lacks, one inserted `key: value` line in the right mapping at
 * its indentation. The edited text is re-parsed and must yield the new
 * values before it is shown (unified diff) or written (see kg_patch_apply:
 * symlinks followed, links, owner and mode kept, numbered backups). */
#ifndef KG_PATCH_H
#define KG_PATCH_H

#include <stddef.h>
#include "read/config.h"
#include "model/util.h"

typedef struct kg_patch {
	char *path;
	char *old_text, *new_text;
	size_t old_len, new_len;
	struct stat st;          /* the file as read (kg_config.st) */
	/* the edits, as byte spans of old_text, sorted and disjoint */
	struct kg_patch_edit {
		size_t start, end;   /* replaced span (start == end: insertion) */
		char *text;
	} *edits;
	size_t nedits;
} kg_patch;

/* Plans the edits setting each roles[i] to values[i] (a remedy's `set:`)
 * in config c. Errors (NULL and err, line set where it applies): a role
 * that keys.yaml does not know; the role's key holds a mapping, sequence
 * or block scalar; a missing key whose mapping is a flow mapping; the
 * re-parsed result not yielding the new values. */
kg_patch *kg_patch_make(const kg_config *c, const char *const *roles,
			const char *const *values, size_t n, kg_error *err);
void kg_patch_free(kg_patch *p);

/* The change as a unified diff: "--- a/PATH", "+++ b/PATH", hunks with 3
 * lines of context and exact "@@ -l,s +l,s @@" headers (GNU diff -u
 * conventions, "\ No newline at end of file" included). Returns a malloc'd
 * string; "" when nothing changes. */
char *kg_patch_diff(const kg_patch *p);

/* Writes the change to p->path, which the caller must have been named by
 * the user. A symlink is followed: its target is edited and the link
 * stays. The file is opened, locked with flock(2) (an apply running beside
 * this one waits, then finds the file changed and refuses) and read again;
 * refused (-1, err) when it is not a regular file, not writable, or changed
 * since it was read. The old text goes to a new backup beside the target:
 * TARGET.orig, or the first free TARGET.orig.1 … .orig.999 (an existing
 * backup is never overwritten; refused when all exist); its name is
 * returned in *backup_out (malloc'd; may be NULL). A file with one link is
 * replaced atomically by a new file (util.c kg_write_temp) with the old
 * one's mode, owner and group; a file with several hard links, or whose
 * owner this user cannot give a new file, is rewritten in place under the
 * lock, so every link sees the edit. SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * are held while it writes, so no temporary file is left behind. On
 * failure the file is unchanged and no backup is left. Returns 0. */
int kg_patch_apply(const kg_patch *p, char **backup_out, kg_error *err);

/* Whether path has the first backup kg_patch_apply would leave beside it
 * (TARGET.orig, TARGET the path or, for a symlink, its target): an
 * earlier --apply changed it, or the user keeps a copy under that name. */
bool kg_patch_has_backup(const char *path);

/* Convenience for the main flow: loads config_path, plans, returns the diff
 * text (malloc'd), or NULL and err. */
char *kg_patch_plan(const char *config_path, const char **roles, const char **values,
		    size_t n, kg_error *err);

#endif
