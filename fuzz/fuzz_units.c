/* fuzz_units.c - unit suffix parsing and report number formatting. */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "units.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	char out[64];
	double v;

	if (units_parse(s, UNITS_SIZE, &v) == 0)
		units_format(out, sizeof(out), v, size > 0 ? (char)data[0] : 'a');
	if (units_parse(s, UNITS_RATE, &v) == 0)
		units_format(out, sizeof(out), v, 'A');
	free(s);
	return 0;
}
