/*
 * client_caps.h - the client's side of "clamp" (ext.h): our server sent
 * EXT_STATE_CAPS and the caps document; the test runs with its applied
 * settings (session/caps_doc.h), and the output says so.
 */
#ifndef IPERF_CLIENT_CAPS_H
#define IPERF_CLIENT_CAPS_H

#include <stddef.h>

struct iperf_test;

/* EXT_STATE_CAPS: the document comes next.  0, or -1 (IEMESSAGE) when
 * this client did not ask for clamp or has its document already. */
int client_caps_state(struct iperf_test *test);
/* The document: applied to test->settings (run.cli.caps), printed.  0,
 * or -1 (IEMESSAGE) for a document that is not a clamp of the request. */
int client_caps_on_doc(struct iperf_test *test, const char *json,
    size_t len);

#endif /* IPERF_CLIENT_CAPS_H */
