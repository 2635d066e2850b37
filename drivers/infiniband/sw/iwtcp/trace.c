// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* iwtcp's tracepoints (trace.h): defined here, once. */
#define CREATE_TRACE_POINTS
#include "trace.h"
