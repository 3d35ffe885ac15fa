/* patch.c — see include/report/patch.h. */
#include "report/patch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

static bool plain_safe(const char *v)
{
	if (!*v || strchr("-?:,[]{}#&*!|>'\"%@`~ ", v[0]))
		return v[0] == '-' && v[1] >= '0' && v[1] <= '9';
	for (const char *s = v; *s; s++)
		if (*s == '#' || *s == ':' || *s == '\n' || (unsigned char)*s < ' ')
			return false;
	return v[strlen(v) - 1] != ' ';
}

/* The value written in the style of the scalar it replaces. */
static char *render(const char *v, int style)
{
	kg_buf b = {0};
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE) {
		kg_buf_putc(&b, '\'');
		for (const char *s = v; *s; s++) {
			if (*s == '\'')
				kg_buf_putc(&b, '\'');
			kg_buf_putc(&b, *s);
		}
		kg_buf_putc(&b, '\'');
	} else if (style == YAML_DOUBLE_QUOTED_SCALAR_STYLE || !plain_safe(v)) {
		kg_buf_putc(&b, '"');
		for (const char *s = v; *s; s++) {
			if (*s == '"' || *s == '\\')
				kg_buf_putc(&b, '\\');
			kg_buf_putc(&b, *s);
		}
		kg_buf_putc(&b, '"');
	} else {
		kg_buf_puts(&b, v);
	}
	return kg_buf_steal(&b);
}

static int find_role(const kg_config *c, const char *role)
{
	for (size_t r = 0; r < c->nroles; r++)
		if (!strcmp(c->roles[r].name, role))
			return (int)r;
	return -1;
}

/* Byte offset just past the last content of an entry's value: for block
 * collections libyaml's end mark sits at the next token, so back up over
 * blank and comment-only lines. */
static size_t content_end(const kg_config *c, const kg_config_entry *e)
{
	if (e->kind == KG_CFG_SCALAR || e->flow)
		return e->end;
	size_t o = e->end;
	for (;;) {
		size_t ls = o;
		while (ls > 0 && c->text[ls - 1] != '\n')
			ls--;
		/* is [ls, o) blank or a comment? */
		size_t k = ls;
		while (k < o && (c->text[k] == ' ' || c->text[k] == '\t'))
			k++;
		if (k < o && c->text[k] != '#' && c->text[k] != '\n')
			return o;
		if (ls == 0)
			return 0;
		o = ls - 1; /* the newline ending the previous line */
	}
}

static void add_edit(kg_patch *p, size_t start, size_t end, char *text)
{
	p->edits = kg_realloc(p->edits, (p->nedits + 1) * sizeof *p->edits);
	size_t i = p->nedits++;
	while (i > 0 && p->edits[i - 1].start > start) {
		p->edits[i] = p->edits[i - 1];
		i--;
	}
	p->edits[i] = (struct kg_patch_edit){start, end, text};
}

static int plan_insert(kg_patch *p, const kg_config *c, const kg_role *r, const char *value,
		       kg_error *err)
{
	long target = -1; /* mapping entry, -1 = root */
	if (r->near) {
		const kg_config_entry *n = kg_config_role(c, r->near);
		if (n)
			target = n->parent;
	}
	if (target >= 0 && c->v[target].flow)
		return kg_fail_line(err, c->v[target].line, "%s is a flow mapping; add %s: %s by hand",
				    c->v[target].path, r->insert, value);
	if (target < 0 && !c->root_mapping)
		return kg_fail_line(err, 1, "the document is a flow mapping; add %s: %s by hand",
				    r->insert, value);
	long last = -1, column = c->root_column;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].parent == target) {
			last = (long)i;
			column = c->v[i].key_column;
		}
	size_t at = c->len;
	if (last >= 0) {
		/* after the last line of the last child (and its descendants) */
		size_t o = content_end(c, &c->v[last]);
		for (size_t i = (size_t)last + 1; i < c->n; i++) {
			long a = c->v[i].parent;
			while (a >= 0 && a != last)
				a = c->v[a].parent;
			if (a == last && content_end(c, &c->v[i]) > o)
				o = content_end(c, &c->v[i]);
		}
		while (o < c->len && c->text[o] != '\n')
			o++;
		at = o < c->len ? o + 1 : c->len;
	}
	kg_buf b = {0};
	if (at == c->len && c->len > 0 && c->text[c->len - 1] != '\n')
		kg_buf_putc(&b, '\n');
	for (long i = 0; i < column; i++)
		kg_buf_putc(&b, ' ');
	char *v = render(value, YAML_PLAIN_SCALAR_STYLE);
	kg_buf_printf(&b, "%s: %s\n", r->insert, v);
	free(v);
	add_edit(p, at, at, kg_buf_steal(&b));
	return 0;
}

void kg_patch_free(kg_patch *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nedits; i++)
		free(p->edits[i].text);
	free(p->edits);
	free(p->path);
	free(p->old_text);
	free(p->new_text);
	free(p);
}

kg_patch *kg_patch_make(const kg_config *c, const char *const *roles,
			const char *const *values, size_t n, kg_error *err)
{
	kg_patch *p = kg_calloc(1, sizeof *p);
	p->path = kg_strdup(c->path);
	p->old_text = kg_strndup(c->text, c->len);
	p->old_len = c->len;
	p->st = c->st;
	for (size_t i = 0; i < n; i++) {
		bool later = false; /* the last setting of a role wins */
		for (size_t j = i + 1; j < n; j++)
			later |= !strcmp(roles[i], roles[j]);
		if (later)
			continue;
		int r = find_role(c, roles[i]);
		if (r < 0) {
			kg_fail(err, "unknown config role '%s' (see rules/keys.yaml)", roles[i]);
			goto fail;
		}
		const kg_config_entry *e = kg_config_role(c, roles[i]);
		if (!e) {
			/* a key of the role that holds something else is not "missing" */
			for (size_t k = 0; k < c->n && !e; k++)
				if (c->v[k].role == r)
					e = &c->v[k];
			if (e && e->kind != KG_CFG_SCALAR) {
				kg_fail_line(err, e->key_line, "%s is a %s, not a value; cannot set %s to %s",
					     e->path, e->kind == KG_CFG_MAPPING ? "mapping" : "sequence",
					     roles[i], values[i]);
				goto fail;
			}
			if (!e) {
				if (plan_insert(p, c, &c->roles[r], values[i], err) < 0)
					goto fail;
				continue;
			}
		}
		/* a value shared through an alias: editing it edits the others */
		for (size_t k = 0; k < c->n; k++) {
			const kg_config_entry *o = &c->v[k];
			if (o != e && o->node == e->node) {
				kg_fail_line(err, e->key_line, "%s shares its value with %s (line %ld) through "
					     "an alias; cannot set %s to %s alone", e->path, o->path,
					     o->key_line, roles[i], values[i]);
				goto fail;
			}
		}
		if (e->style == YAML_LITERAL_SCALAR_STYLE || e->style == YAML_FOLDED_SCALAR_STYLE) {
			kg_fail_line(err, e->line, "%s is a block scalar; cannot edit it in place", e->path);
			goto fail;
		}
		/* keep a trailing comment's column: pad or eat the spaces before '#' */
		char *t = render(values[i], e->style);
		size_t sp = e->end, end = e->end;
		while (sp < c->len && c->text[sp] == ' ')
			sp++;
		if (sp < c->len && c->text[sp] == '#' && sp > e->end) {
			long room = (long)(sp - e->start) - (long)strlen(t);
			kg_buf b = {0};
			kg_buf_puts(&b, t);
			for (long k = 0; k < (room < 1 ? 1 : room); k++)
				kg_buf_putc(&b, ' ');
			free(t);
			t = kg_buf_steal(&b);
			end = sp;
		}
		add_edit(p, e->start, end, t);
	}
	/* the edits must be disjoint: overlapping spans would copy a negative
	 * length (two roles on one node are refused by config.c; this guards
	 * any other way to get there) */
	for (size_t i = 0; i < p->nedits; i++) {
		if (p->edits[i].start > p->edits[i].end || p->edits[i].end > p->old_len ||
		    (i > 0 && p->edits[i].start < p->edits[i - 1].end)) {
			kg_fail(err, "two changes overlap in %s; not changed", c->path);
			goto fail;
		}
	}
	kg_buf b = {0};
	size_t at = 0;
	for (size_t i = 0; i < p->nedits; i++) {
		kg_buf_append(&b, p->old_text + at, p->edits[i].start - at);
		kg_buf_puts(&b, p->edits[i].text);
		at = p->edits[i].end;
	}
	kg_buf_append(&b, p->old_text + at, p->old_len - at);
	p->new_len = b.len;
	p->new_text = kg_buf_steal(&b);

	/* the result must parse and say what we meant */
	kg_error perr = {0};
	kg_config *check = kg_config_parse(c->path, p->new_text, p->new_len, NULL, &perr);
	if (!check) {
		kg_fail_line(err, perr.line, "edited config does not parse (%s); not changed", perr.msg);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		const kg_config_entry *e = kg_config_role(check, roles[i]);
		if (!e || strcmp(e->value, values[i]) != 0) {
			kg_fail(err, "edited config does not set %s to %s (got %s); not changed",
				roles[i], values[i], e ? e->value : "nothing");
			kg_config_free(check);
			goto fail;
		}
	}
	kg_config_free(check);
	return p;
fail:
	kg_patch_free(p);
	return NULL;
}

/* ---- unified diff ---- */

/* The name a diff header gives PATH after its a/ or b/, such that `patch
 * -p1` in the current directory finds the file: a relative path as given
 * (less a leading ./); an absolute one, or one through .., as its real
 * path relative to the current directory when it is under it, else its
 * real path without the leading / (`patch -p1 -d /`). Never "a//tmp/x". */
static char *diff_name(const char *path)
{
	bool dotdot = !strncmp(path, "../", 3) || strstr(path, "/../") != NULL;
	if (path[0] != '/' && !dotdot) {
		while (!strncmp(path, "./", 2))
			path += 2;
		return kg_strdup(path);
	}
	char *real = realpath(path, NULL);
	const char *abs = real ? real : path;
	char *cwd = getcwd(NULL, 0);
	size_t cl = cwd ? strlen(cwd) : 0;
	const char *rel;
	if (cwd && cl > 1 && !strncmp(abs, cwd, cl) && abs[cl] == '/')
		rel = abs + cl + 1;
	else
		rel = abs + strspn(abs, "/");
	char *out = kg_strdup(rel);
	free(real);
	free(cwd);
	return out;
}

typedef struct lines {
	const char *text;
	size_t len;
	size_t *start; /* start[i] = offset of line i; start[n] = len */
	size_t n;
} lines;

static void split(lines *L, const char *text, size_t len)
{
	L->text = text;
	L->len = len;
	L->n = 0;
	L->start = kg_malloc(sizeof(size_t));
	L->start[0] = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n' || i + 1 == len) {
			L->start = kg_realloc(L->start, (L->n + 2) * sizeof(size_t));
			L->start[++L->n] = i + 1;
		}
	}
}

static size_t line_of(const lines *L, size_t off)
{
	size_t lo = 0, hi = L->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (L->start[mid + 1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void emit(kg_buf *b, char tag, const lines *L, size_t i)
{
	size_t s = L->start[i], e = L->start[i + 1];
	kg_buf_putc(b, tag);
	kg_buf_append(b, L->text + s, e - s);
	if (e == 0 || L->text[e - 1] != '\n')
		kg_buf_puts(b, "\n\\ No newline at end of file\n");
}

/* one change: old lines [oa, ob) become new lines [na, nb) */
typedef struct change {
	size_t oa, ob, na, nb;
} change;

char *kg_patch_diff(const kg_patch *p)
{
	lines O, N;
	split(&O, p->old_text, p->old_len);
	split(&N, p->new_text, p->new_len);
	/* map edits to whole-line changes; new offsets shift by the edits so far */
	change *ch = NULL;
	size_t nch = 0;
	long shift = 0;
	for (size_t i = 0; i < p->nedits; i++) {
		const struct kg_patch_edit *e = &p->edits[i];
		size_t tl = strlen(e->text);
		size_t oa, ob;
		if (e->start == e->end && (e->start == 0 || p->old_text[e->start - 1] == '\n')) {
			oa = ob = e->start >= p->old_len ? O.n : line_of(&O, e->start);
		} else {
			oa = line_of(&O, e->start);
			ob = line_of(&O, e->end > e->start ? e->end - 1 : e->start) + 1;
			if (ob > O.n)
				ob = O.n;
		}
		size_t ns = (size_t)((long)(oa < O.n ? O.start[oa] : O.len) + shift);
		long delta = (long)tl - (long)(e->end - e->start);
		size_t ne = (size_t)((long)(ob < O.n ? O.start[ob] : O.len) + shift + delta);
		size_t na = ns >= N.len ? N.n : line_of(&N, ns);
		size_t nb = ne >= N.len ? N.n : line_of(&N, ne);
		if (ne > ns && nb == na && ne <= N.len)
			nb = na + 1;
		shift += delta;
		if (nch && ch[nch - 1].ob >= oa) {
			ch[nch - 1].ob = ob > ch[nch - 1].ob ? ob : ch[nch - 1].ob;
			ch[nch - 1].nb = nb > ch[nch - 1].nb ? nb : ch[nch - 1].nb;
			continue;
		}
		ch = kg_realloc(ch, (nch + 1) * sizeof *ch);
		ch[nch++] = (change){oa, ob, na, nb};
	}
	kg_buf b = {0};
	if (nch) {
		char *name = diff_name(p->path);
		kg_buf_printf(&b, "--- a/%s\n+++ b/%s\n", name, name);
		free(name);
	}
	const size_t C = 3;
	for (size_t i = 0; i < nch;) {
		size_t j = i;
		while (j + 1 < nch && ch[j + 1].oa - ch[j].ob <= 2 * C)
			j++;
		size_t oa = ch[i].oa > C ? ch[i].oa - C : 0;
		size_t ob = ch[j].ob + C < O.n ? ch[j].ob + C : O.n;
		size_t na = ch[i].na - (ch[i].oa - oa);
		size_t nb = ch[j].nb + (ob - ch[j].ob);
		size_t os = ob - oa, nsz = nb - na;
		kg_buf_printf(&b, "@@ -%zu", os ? oa + 1 : oa);
		if (os != 1)
			kg_buf_printf(&b, ",%zu", os);
		kg_buf_printf(&b, " +%zu", nsz ? na + 1 : na);
		if (nsz != 1)
			kg_buf_printf(&b, ",%zu", nsz);
		kg_buf_puts(&b, " @@\n");
		size_t o = oa;
		for (size_t k = i; k <= j; k++) {
			for (; o < ch[k].oa; o++)
				emit(&b, ' ', &O, o);
			for (size_t x = ch[k].oa; x < ch[k].ob; x++)
				emit(&b, '-', &O, x);
			for (size_t x = ch[k].na; x < ch[k].nb; x++)
				emit(&b, '+', &N, x);
			o = ch[k].ob;
		}
		for (; o < ob; o++)
			emit(&b, ' ', &O, o);
		i = j + 1;
	}
	free(ch);
	free(O.start);
	free(N.start);
	return kg_buf_steal(&b);
}

/* ---- writing ---- */

#define KG_BACKUPS_MAX 1000

/* Reads all of fd from offset 0 into b (stops once past limit bytes). */
static bool read_fd(int fd, kg_buf *b, size_t limit)
{
	char chunk[65536];
	off_t off = 0;
	for (;;) {
		ssize_t r = pread(fd, chunk, sizeof chunk, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0 || b->len > limit)
			return true;
		kg_buf_append(b, chunk, (size_t)r);
		off += r;
	}
}

/* The i-th backup name of base: base.orig, base.orig.1, … */
static char *backup_name(const char *base, int i)
{
	return i ? kg_asprintf("%s.orig.%d", base, i) : kg_asprintf("%s.orig", base);
}

bool kg_patch_has_backup(const char *path)
{
	/* the base write_backup names them after: the path as given, its
	 * target when it is a symlink */
	struct stat ls;
	char *real = lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode) ? realpath(path, NULL) : kg_strdup(path);
	if (!real)
		return false;
	char *bak = backup_name(real, 0);
	bool have = lstat(bak, &ls) == 0;
	free(bak);
	free(real);
	return have;
}

/* The old text under the first free name of real.orig, real.orig.1, …
 * (link(2) never replaces a name, so no backup is ever overwritten, even by
 * an apply running beside this one). Returns the name, or NULL with err. */
static char *write_backup(const char *real, const kg_patch *p, const struct stat *st, kg_error *err)
{
	/* named after the path as given unless that is a symlink */
	struct stat ls;
	if (lstat(p->path, &ls) == 0 && !S_ISLNK(ls.st_mode))
		real = p->path;
	char *tmp;
	kg_error e = {0};
	if (kg_write_temp(real, p->old_text, p->old_len, st->st_mode, (long)st->st_uid,
			  (long)st->st_gid, &tmp, &e) < 0 &&
	    (!strstr(e.msg, "owner and group") ||
	     kg_write_temp(real, p->old_text, p->old_len, st->st_mode, -1, -1, &tmp, &e) < 0)) {
		*err = e;
		return NULL;
	}
	char *name = NULL;
	int i;
	for (i = 0; i < KG_BACKUPS_MAX; i++) {
		name = backup_name(real, i);
		if (link(tmp, name) == 0)
			break;
		int en = errno;
		free(name);
		name = NULL;
		if (en != EEXIST) {
			kg_fail(err, "%s.orig: cannot write the backup: %s", real, strerror(en));
			break;
		}
	}
	if (i == KG_BACKUPS_MAX)
		kg_fail(err, "%s.orig … %s.orig.%d all exist; remove old backups first; not written", real,
			real, KG_BACKUPS_MAX - 1);
	unlink(tmp);
	free(tmp);
	return name;
}

int kg_patch_apply(const kg_patch *p, char **backup_out, kg_error *err)
{
	if (backup_out)
		*backup_out = NULL;
	/* a symlinked config: the edit goes to its target, the link stays */
	char *real = realpath(p->path, NULL);
	if (!real)
		return kg_fail(err, "%s: cannot resolve: %s", p->path, strerror(errno));
	int fd = -1, rc = -1;
	char *backup = NULL;
	struct stat st;
	/* lock the file; an apply that held the lock may have replaced it
	 * (rename gives a new inode), so lock again until the name and the
	 * locked file agree */
	for (int tries = 0;; tries++) {
		fd = open(real, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			kg_fail(err, "%s: %s: %s", p->path, errno == EACCES || errno == EROFS ?
				"not writable" : "cannot open", strerror(errno));
			goto out;
		}
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			kg_fail(err, "%s: not a regular file; not written", p->path);
			goto out;
		}
		int fl;
		while ((fl = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
			;
		if (fl != 0) {
			kg_fail(err, "%s: cannot lock: %s", p->path, strerror(errno));
			goto out;
		}
		struct stat now;
		if (fstat(fd, &st) == 0 && stat(real, &now) == 0 && now.st_dev == st.st_dev &&
		    now.st_ino == st.st_ino)
			break;
		close(fd);
		fd = -1;
		if (tries == 100) {
			kg_fail(err, "%s: keeps being replaced; not written", p->path);
			goto out;
		}
	}
	kg_buf now = {0};
	bool readable = read_fd(fd, &now, p->old_len);
	bool same = readable && now.len == p->old_len &&
		    (!now.len || memcmp(now.data, p->old_text, now.len) == 0);
	kg_buf_free(&now);
	if (!same) {
		kg_fail(err, "%s: changed since it was read; not written", p->path);
		goto out;
	}
	sigset_t held;
	kg_signals_hold(&held);
	backup = write_backup(real, p, &st, err);
	if (!backup) {
		kg_signals_release(&held);
		goto out;
	}
	/* one name: a new file renamed over it, with the mode, owner and group
	 * of the old; several hard links (or an owner this user cannot give):
	 * in place, under the lock, so every name sees the new text */
	bool in_place = st.st_nlink > 1;
	if (!in_place) {
		char *tmp = NULL;
		kg_error e = {0};
		if (kg_write_temp(real, p->new_text, p->new_len, st.st_mode, (long)st.st_uid,
				  (long)st.st_gid, &tmp, &e) < 0) {
			if (!strstr(e.msg, "owner and group")) {
				*err = e;
				goto undo;
			}
			in_place = true;
		} else if (rename(tmp, real) != 0) {
			kg_fail(err, "%s: cannot replace: %s", p->path, strerror(errno));
			unlink(tmp);
			free(tmp);
			goto undo;
		} else {
			free(tmp);
		}
	}
	if (in_place) {
		if (pwrite(fd, p->new_text, p->new_len, 0) != (ssize_t)p->new_len ||
		    ftruncate(fd, (off_t)p->new_len) != 0 || fsync(fd) != 0) {
			int en = errno;
			/* put the old text back as far as the disk lets us */
			if (pwrite(fd, p->old_text, p->old_len, 0) == (ssize_t)p->old_len)
				(void)!ftruncate(fd, (off_t)p->old_len);
			kg_fail(err, "%s: cannot write in place: %s (the old text is in %s)", p->path,
				strerror(en), backup);
			kg_signals_release(&held);
			goto out;
		}
	}
	kg_signals_release(&held);
	rc = 0;
	if (backup_out) {
		*backup_out = backup;
		backup = NULL;
	}
	goto out;
undo:
	unlink(backup);
	kg_signals_release(&held);
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	free(backup);
	free(real);
	return rc;
}

char *kg_patch_plan(const char *config_path, const char **roles, const char **values,
		    size_t n, kg_error *err)
{
	kg_config *c = kg_config_load(config_path, err);
	if (!c)
		return NULL;
	kg_patch *p = kg_patch_make(c, roles, values, n, err);
	kg_config_free(c);
	if (!p)
		return NULL;
	char *d = kg_patch_diff(p);
	kg_patch_free(p);
	return d;
}
