#include "model/b.h"
