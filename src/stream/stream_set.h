/* stream_set.h - the test's streams as a whole: the client's end
 * condition under -n/-k, closing and freeing them all. */
#ifndef IPERF_STREAM_SET_H
#define IPERF_STREAM_SET_H

struct iperf_test;

/* Client end condition: the -n/-k count is reached, by what this end sent
 * or by what the peer sent it: bytes or blocks received, for datagrams
 * the highest sequence number seen (lost datagrams were sent too), or a
 * datagram flow silent for long enough (its tail was lost). */
int test_end_condition_met(struct iperf_test *test);

/* Close the data sockets but keep the streams' figures. */
void test_close_stream_sockets(struct iperf_test *test);
/* Close and free all streams. */
void test_free_streams(struct iperf_test *test);

#endif /* IPERF_STREAM_SET_H */
