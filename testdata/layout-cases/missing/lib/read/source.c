#include "read/nosuch.h"
