#include "model/c.h"
