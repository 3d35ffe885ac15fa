/* machine.c — releasing a GPU state (include/model/machine.h). */
#include "model/machine.h"

#include <stdlib.h>

void kg_gpu_state_free(kg_gpu_state *s)
{
	free(s->devices);
	free(s->procs);
	*s = (kg_gpu_state){0};
}
