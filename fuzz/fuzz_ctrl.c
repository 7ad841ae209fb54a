/*
 * fuzz_ctrl.c - control framing fed in chunks.  The first input byte picks
 * the chunk size; what is expected next follows the protocol loosely:
 * a state byte, and after certain states a document or the error ints.
 */
#include "config.h"

#include <stdlib.h>

#include "ctrl.h"
#include "fuzz.h"

static void
next_expectation(struct ctrl *c, const struct ctrl_msg *m)
{
	if (m->kind != CTRL_MSG_STATE) {
		ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
		return;
	}
	switch (m->state) {
	case -2:
		ctrl_expect(c, CTRL_EXPECT_ERRINTS, CTRL_PARAMS_MAX_BYTES);
		break;
	case 9:
		ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_PARAMS_MAX_BYTES);
		break;
	case 13:
		ctrl_expect(c, CTRL_EXPECT_JSON, CTRL_RESULTS_MAX_BYTES);
		break;
	case 15:
		ctrl_expect(c, CTRL_EXPECT_COOKIE, CTRL_PARAMS_MAX_BYTES);
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctrl *c;
	struct ctrl_msg m;
	size_t chunk, off = 1;

	if (size == 0)
		return 0;
	chunk = (size_t)(data[0] % 64) + 1;
	c = ctrl_new();
	if (c == NULL)
		abort();
	ctrl_expect(c, CTRL_EXPECT_STATE, CTRL_PARAMS_MAX_BYTES);
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		int rc;

		if (ctrl_push(c, data + off, n) == -1)
			break;
		off += n;
		while ((rc = ctrl_next(c, &m)) == 1) {
			free(m.json);
			next_expectation(c, &m);
		}
		if (rc == -1)
			break;
	}
	ctrl_push_eof(c);
	while (ctrl_next(c, &m) == 1)
		free(m.json);
	ctrl_free(c);
	return 0;
}
