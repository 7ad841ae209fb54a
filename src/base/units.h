/*
 * units.h - number parsing with K/M/G/T suffixes and the adaptive
 * Transfer/Bitrate formatting used by the reports.  Pure functions.
 */
#ifndef IPERF_UNITS_H
#define IPERF_UNITS_H

#include <stddef.h>

enum units_kind {
	UNITS_SIZE = 0, /* binary: K = 1024 */
	UNITS_RATE = 1, /* decimal: K = 1000 */
};

/*
 * Parse a number followed by at most one significant suffix character
 * (k/K, m/M, g/G, t/T; anything after it is ignored).  Returns 0 and the
 * scaled value, or -1 for a leading non-number or an unknown suffix.
 */
int units_parse(const char *s, enum units_kind kind, double *out);

/*
 * Format `value` (bytes, or bytes/s) the way iperf3's reports do:
 * `fmt` lower case = bits (x8, base 1000), upper case = bytes (base 1024);
 * k/m/g/t (K/M/G/T) force a unit, anything else adapts.  Writes e.g.
 * "1.25 MByte" or " 786 Kbit" (the caller appends "s" or "s/sec").
 */
void units_format(char *buf, size_t len, double value, char fmt);

#endif /* IPERF_UNITS_H */
