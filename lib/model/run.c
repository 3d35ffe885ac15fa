/* run.c — the record of a wrapped run: signal names, copy and release
 * (include/model/run.h). */
#include "model/run.h"
#include "model/util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

void kg_reading_free(kg_reading *e)
{
	kg_gpu_state_free(&e->gpu);
}

const char *kg_signal_name(int sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGSEGV: return "SIGSEGV";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGXCPU: return "SIGXCPU";
	default: return NULL;
	}
}

static char *dup_or_null(const char *s)
{
	return s ? kg_strdup(s) : NULL;
}

static char **dup_words(char *const *v, size_t n)
{
	char **out = kg_calloc(n ? n : 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = kg_strdup(v[i]);
	return out;
}

kg_run_info *kg_run_copy(const kg_run_info *ri)
{
	kg_run_info *c = kg_malloc(sizeof *c);
	*c = *ri;
	c->argv = dup_words(ri->argv, ri->argc);
	c->labels = dup_words(ri->labels, ri->nlabels);
	c->log = dup_or_null(ri->log);
	c->snapshot_dir = dup_or_null(ri->snapshot_dir);
	c->readings = kg_calloc(ri->nreadings ? ri->nreadings : 1, sizeof *c->readings);
	for (size_t i = 0; i < ri->nreadings; i++) {
		kg_reading *d = &c->readings[i];
		const kg_reading *e = &ri->readings[i];
		*d = *e;
		d->gpu.devices = kg_calloc(e->gpu.ndevices ? e->gpu.ndevices : 1, sizeof *d->gpu.devices);
		if (e->gpu.ndevices)
			memcpy(d->gpu.devices, e->gpu.devices, e->gpu.ndevices * sizeof *d->gpu.devices);
		d->gpu.procs = kg_calloc(e->gpu.nprocs ? e->gpu.nprocs : 1, sizeof *d->gpu.procs);
		if (e->gpu.nprocs)
			memcpy(d->gpu.procs, e->gpu.procs, e->gpu.nprocs * sizeof *d->gpu.procs);
	}
	return c;
}

void kg_run_free(kg_run_info *ri)
{
	if (!ri)
		return;
	for (size_t i = 0; i < ri->argc; i++)
		free(ri->argv[i]);
	free(ri->argv);
	for (size_t i = 0; i < ri->nlabels; i++)
		free(ri->labels[i]);
	free(ri->labels);
	free(ri->log);
	free(ri->snapshot_dir);
	for (size_t i = 0; i < ri->nreadings; i++)
		kg_reading_free(&ri->readings[i]);
	free(ri->readings);
	free(ri);
}
