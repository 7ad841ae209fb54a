/* client_caps.c - our server's caps on our client's test (see the
 * header). */
#include "config.h"

#include <cjson/cJSON.h>

#include "caps_doc.h"
#include "client_caps.h"
#include "ctrl.h"
#include "ext.h"
#include "iperf.h"
#include "iperf_error.h"
#include "report_caps.h"
#include "session.h"
#include "banned.h"

int
client_caps_state(struct iperf_test *test)
{
	if (!(ext_client_wants(test) & EXT_CLAMP) || test->run.cli.caps_received)
		return iperf_fail(test, IEMESSAGE, 0);
	test->run.ses.ctrl_fail_code = IEMESSAGE;
	session_expect_json(test, CTRL_PARAMS_MAX_BYTES);
	return 0;
}

int
client_caps_on_doc(struct iperf_test *test, const char *json, size_t len)
{
	cJSON *doc = cJSON_ParseWithLength(json, len);
	struct server_caps c;

	if (doc == NULL || caps_doc_decode(doc, &c) == -1 ||
	    caps_apply(&c, &test->settings) == -1) {
		cJSON_Delete(doc);
		return iperf_fail(test, IEMESSAGE, 0);
	}
	test->run.cli.caps = c;
	test->run.cli.caps_received = 1;
	report_server_caps(test, &c, doc);
	cJSON_Delete(doc);
	session_expect_state(test);
	return 0;
}
