/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * CHECK() for the selftest programs: count every check, and on failure
 * print where, what was asserted and why, then go on.
 */
#ifndef IWTCP_SELFTEST_CHECK_H
#define IWTCP_SELFTEST_CHECK_H

#include <stdio.h>

static int checks;
static int failures;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: %s: ", __func__, __LINE__,	\
			#cond);						\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

#endif /* IWTCP_SELFTEST_CHECK_H */
