/* fuzz_common.h — helpers shared by the fuzz harnesses. */
#ifndef KG_FUZZ_COMMON_H
#define KG_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "read/source.h"

/* Opens data[0..size) as a kg_source named `name` (a memfd, so gzip and
 * sniffing work as for a file). Returns 0, or -1 with err (the source must
 * still be closed). */
static inline int fuzz_open_mem(kg_source *src, const uint8_t *data, size_t size,
				const char *name, kg_error *err)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	lseek(fd, 0, SEEK_SET);
	return kg_source_open_fd(src, fd, name, err);
}

#endif
