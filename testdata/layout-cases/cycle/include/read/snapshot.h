#include "read/summary.h"
