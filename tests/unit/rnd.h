/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The unit tests' pseudo-random numbers: xorshift32, so a failure repeats
 * exactly. Each test file sets rnd_state, its seed, before it includes this.
 */
#ifndef IWTCP_TEST_RND_H
#define IWTCP_TEST_RND_H

#include "shim.h"

static u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

#endif /* IWTCP_TEST_RND_H */
