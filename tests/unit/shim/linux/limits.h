#include_next <linux/limits.h>
#include "../shim.h"
