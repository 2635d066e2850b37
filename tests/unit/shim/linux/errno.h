#include_next <linux/errno.h>
#include "../shim.h"
