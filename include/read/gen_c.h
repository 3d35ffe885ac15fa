/* gen_c.h — what the build's native generators (atoms-gen, lib/read/atoms.c
 * under KG_ATOMS_GEN; rules-image-gen, lib/read/rulesimage.c under
 * KG_RULES_IMAGE_GEN) share to write C source: one byte inside a C string
 * literal. */
#ifndef KG_GEN_C_H
#define KG_GEN_C_H

#include <stdio.h>

/* Writes byte c to f as it stands inside a C string literal: printable
 * ASCII as itself (but '?', which could start a trigraph), '"' and '\\'
 * escaped, anything else as a three-digit octal escape. */
static inline void kg_gen_put_char(FILE *f, unsigned char c)
{
	if (c == '"' || c == '\\')
		fprintf(f, "\\%c", c);
	else if (c >= 0x20 && c < 0x7f && c != '?')
		fputc(c, f);
	else
		fprintf(f, "\\%03o", c);
}

#endif
