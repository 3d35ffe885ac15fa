#include "read/summary.h"
#include "read/snapshot.h"
