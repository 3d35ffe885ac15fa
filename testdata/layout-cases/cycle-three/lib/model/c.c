#include "model/a.h"
