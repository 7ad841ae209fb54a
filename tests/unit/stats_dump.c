/* stats_dump.c - a server's registry (server_stats.c) with a sample of
 * everything counted, for tests/scripts/server_stats.py:
 *
 *   stats_dump            its text on stdout
 *   stats_dump SPEC       served on SPEC ([ADDR:]PORT) by
 *                         server_metrics_listen(): prints "port N" once
 *                         listening, stops at the end of stdin; exit 2
 *                         with the reason on stderr if it cannot start,
 *                         3 when built without libmicrohttpd
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "http.h"
#include "server_metrics_http.h"
#include "server_stats.h"

static void
sample(struct server_stats *st)
{
	server_stats_test_started(st, "TCP");
	server_stats_test_started(st, "TCP");
	server_stats_test_started(st, "UDP");
	server_stats_test_started(st, "SCTP");
	server_stats_test_ended(st, "TCP", "ok", 10.02, 1234, 1250000000);
	server_stats_test_ended(st, "UDP", "error", 0.25, 0, 0);
	server_stats_test_ended(st, "SCTP", "ok", 400, 5, 6);
	server_stats_refused(st, "busy");
	server_stats_refused(st, "per_ip");
	server_stats_refused(st, "per_ip");
	server_stats_refused(st, "Not A Label");
	server_stats_limit_hit(st, "duration");
	server_stats_limit_hit(st, "bitrate");
}

static int
serve(struct server_stats *st, const char *spec)
{
	char err[256];
	struct http_server *h = server_metrics_listen(st, spec, err, sizeof(err));

	if (h == NULL) {
		fprintf(stderr, "stats_dump: %s\n", err);
		return http_built() ? 2 : 3;
	}
	printf("port %d\n", http_port(h));
	fflush(stdout);
	while (getchar() != EOF)
		;
	http_stop(h);
	return 0;
}

int
main(int argc, char **argv)
{
	struct server_stats *st = server_stats_new();
	char *text;
	size_t len;
	int rc = 0;

	if (st == NULL)
		return 1;
	sample(st);
	if (argc > 1) {
		rc = serve(st, argv[1]);
	} else if (server_stats_render(st, &text, &len) == 0) {
		fwrite(text, 1, len, stdout);
		free(text);
	} else {
		rc = 1;
	}
	server_stats_free(st);
	return rc;
}
