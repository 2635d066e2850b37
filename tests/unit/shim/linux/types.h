#include_next <linux/types.h>
#include "../shim.h"
