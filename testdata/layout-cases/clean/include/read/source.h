#include "model/util.h"
