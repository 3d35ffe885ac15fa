/* traceback.h — Python traceback frames (CPython, IPython and VS Code
 * layouts) and the phase they imply (DESIGN §2a). */
#ifndef KG_TRACEBACK_H
#define KG_TRACEBACK_H

#include <stdbool.h>
#include <stddef.h>
#include "model/incident.h"

/* Parses a frame header from a noise-stripped line:
 *   CPython:  `File "path", line N, in func`
 *   IPython:  `path.py in func(args)`, `<ipython-input-…> in func()`,
 *             `File path.py:N, in func(args)`
 * Returns 1 and fills f (malloc'd strings, code NULL), or 0. */
int kg_tb_parse_frame(const char *line, size_t n, kg_frame *f);

/* IPython marks the failing line as `----> 269     code`; returns the line
 * number and sets *code and *codelen to the code, or returns 0. */
long kg_tb_parse_arrow(const char *line, size_t n, const char **code, size_t *codelen);

/* Phase implied by the frames (outermost first), or NULL. Precedence:
 * checkpoint > eval > optimizer > backward > data > model-load > forward. */
const char *kg_tb_phase(const kg_frame *frames, size_t n);

#endif
