/*
 * http_listen.c - "[ADDR:]PORT", the listening address of an HTTP
 * endpoint (http.h), wherever the HTTP layer is built (the operator's
 * server, the exporter).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "http.h"
#include "util.h"
#include "banned.h"

/* PORT: 1 to 5 digits, 0 to 65535; -1 otherwise. */
static int
parse_port(const char *s)
{
	int port = 0;
	size_t i;

	if (*s == '\0' || strlen(s) > 5)
		return -1;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		port = port * 10 + (s[i] - '0');
	}
	return port <= 65535 ? port : -1;
}

int
http_parse_listen(const char *spec, const char *default_addr, char *addr,
    size_t addrlen, int *port)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon, *end;
	int p;

	if (spec == NULL)
		return -1;
	if (spec[0] == '[') {
		end = strchr(spec, ']');
		if (end == NULL || end[1] != ':' ||
		    str_numeric_addr(AF_INET6, spec + 1,
		    (size_t)(end - spec - 1), host, sizeof(host)) != 0)
			return -1;
		colon = end + 1;
	} else if ((colon = strchr(spec, ':')) != NULL) {
		if (strchr(colon + 1, ':') != NULL ||
		    str_numeric_addr(AF_INET, spec, (size_t)(colon - spec), host,
		    sizeof(host)) != 0)
			return -1;
	} else {
		if (default_addr == NULL ||
		    str_copy(host, default_addr, sizeof(host)) >= sizeof(host))
			return -1;
		colon = NULL;
	}
	p = parse_port(colon != NULL ? colon + 1 : spec);
	if (p < 0 || strlen(host) >= addrlen)
		return -1;
	(void)str_copy(addr, host, addrlen);
	*port = p;
	return 0;
}
