# tests/local.mk - Check unit suites and shell tests (interop, CLI).

if HAVE_CHECK
CHECK_SUITES = \
	%reldir%/check_units \
	%reldir%/check_timer \
	%reldir%/check_evloop \
	%reldir%/check_latstat \
	%reldir%/check_csv \
	%reldir%/check_delayvar \
	%reldir%/check_udp \
	%reldir%/check_ctrl \
	%reldir%/check_params \
	%reldir%/check_pacer \
	%reldir%/check_ratewin \
	%reldir%/check_options \
	%reldir%/check_stream_io \
	%reldir%/check_placement \
	%reldir%/check_sctp \
	%reldir%/check_report \
	%reldir%/check_auth \
	%reldir%/check_api \
	%reldir%/check_bounds
# plot.c is left out by configure --disable-plot, and so is its suite.
if HAVE_PLOT
CHECK_SUITES += %reldir%/check_plot
endif
if HAVE_RR
CHECK_SUITES += %reldir%/check_rr
endif
check_PROGRAMS += $(CHECK_SUITES)
TESTS += $(CHECK_SUITES)
SUITE_LDADD = src/libiperf_core.la $(CHECK_LIBS)
# Suites are linked static with --enable-static-bin (to run under qemu).
SUITE_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CJSON_CFLAGS) -Wno-missing-prototypes

%canon_reldir%_check_units_SOURCES = %reldir%/check_units.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_units_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_units_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_units_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_timer_SOURCES = %reldir%/check_timer.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_timer_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_timer_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_timer_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_evloop_SOURCES = %reldir%/check_evloop.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_evloop_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_evloop_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_evloop_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_csv_SOURCES = %reldir%/check_csv.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_csv_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_csv_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_csv_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_latstat_SOURCES = %reldir%/check_latstat.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_latstat_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_latstat_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_latstat_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_plot_SOURCES = %reldir%/check_plot.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_plot_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_plot_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_plot_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_delayvar_SOURCES = %reldir%/check_delayvar.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_delayvar_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_delayvar_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_delayvar_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_rr_SOURCES = %reldir%/check_rr.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_rr_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_rr_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_rr_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_udp_SOURCES = %reldir%/check_udp.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_udp_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_udp_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_udp_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_params_SOURCES = %reldir%/check_params.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_params_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_params_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_params_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_pacer_SOURCES = %reldir%/check_pacer.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_pacer_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_pacer_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_pacer_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_ratewin_SOURCES = %reldir%/check_ratewin.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_ratewin_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_ratewin_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_ratewin_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_ctrl_SOURCES = %reldir%/check_ctrl.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_ctrl_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_ctrl_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_ctrl_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_options_SOURCES = %reldir%/check_options.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_options_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_options_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_options_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_sctp_SOURCES = %reldir%/check_sctp.c %reldir%/check_report_fx.c \
	%reldir%/check_report.h %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_sctp_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_sctp_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_sctp_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_placement_SOURCES = %reldir%/check_placement.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_placement_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_placement_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_placement_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_stream_io_SOURCES = %reldir%/check_stream_io.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_stream_io_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_stream_io_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_stream_io_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_auth_SOURCES = %reldir%/check_auth.c \
	%reldir%/check_auth_rsa.c %reldir%/check_auth.h \
	%reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_auth_CFLAGS = $(SUITE_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_check_auth_LDADD = $(SUITE_LDADD) $(OPENSSL_LIBS)
%canon_reldir%_check_auth_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_api_SOURCES = %reldir%/check_api.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_api_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_api_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_api_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_bounds_SOURCES = %reldir%/check_bounds.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_bounds_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_bounds_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_bounds_LDFLAGS = $(STATIC_BIN_LDFLAGS)
%canon_reldir%_check_report_SOURCES = %reldir%/check_report.c \
	%reldir%/check_report.h %reldir%/check_report_fx.c \
	%reldir%/check_report_scn.c \
	%reldir%/check_report_text.c %reldir%/check_report_text_misc.c \
	%reldir%/check_report_text_multi.c %reldir%/check_report_text_udp.c \
	%reldir%/check_report_json.c %reldir%/check_report_json_end.c \
	%reldir%/check_report_want.c \
	%reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_report_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_report_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_report_LDFLAGS = $(STATIC_BIN_LDFLAGS)
endif

# An LD_PRELOAD library that gives one process other socket limits than
# the machine's (tests/sockfail.py).  Shared builds only: the test skips
# without tests/.libs/libsockshim.so.
check_LTLIBRARIES += %reldir%/libsockshim.la
%canon_reldir%_libsockshim_la_SOURCES = %reldir%/sockshim.c
%canon_reldir%_libsockshim_la_CFLAGS = $(AM_CFLAGS) -Wno-missing-prototypes
%canon_reldir%_libsockshim_la_LDFLAGS = -module -avoid-version -rpath $(abs_builddir)/%reldir%
%canon_reldir%_libsockshim_la_LIBADD = $(DL_LIBS)

# libiperf through its public API only (threads in one process).
check_PROGRAMS += %reldir%/api_threads
TESTS += %reldir%/api_threads
%canon_reldir%_api_threads_SOURCES = %reldir%/api_threads.c
%canon_reldir%_api_threads_CPPFLAGS = -I$(top_srcdir)/src/include
%canon_reldir%_api_threads_LDADD = src/libiperf.la

# Shell tests run with the build tree's programs.  The Python scripts
# import tests/testlib.py from their own directory; no bytecode is written
# into the (possibly read-only) source tree.
AM_TESTS_ENVIRONMENT = top_builddir='$(top_builddir)'; top_srcdir='$(top_srcdir)'; \
	srcdir='$(srcdir)/tests'; MAKE='$(MAKE)'; CC='$(CC)'; \
	PYTHONDONTWRITEBYTECODE=1; \
	export top_builddir top_srcdir srcdir MAKE CC PYTHONDONTWRITEBYTECODE;
TESTS += %reldir%/interop.test %reldir%/udp_loss.test %reldir%/cli_errors.test \
	%reldir%/hostile.test %reldir%/sockopts.test %reldir%/capture_shapes.test \
	%reldir%/wire.test %reldir%/server_ops.test %reldir%/data_opts.test \
	%reldir%/sctp_data.test %reldir%/sctp_errors.test %reldir%/auth.test \
	%reldir%/abi.test %reldir%/api_ctypes.test %reldir%/api_install.test \
	%reldir%/hostile_mass.test %reldir%/fault.test %reldir%/fidelity.test \
	%reldir%/stages.test %reldir%/multi.test %reldir%/udp_offload.test \
	%reldir%/bench_smoke.test %reldir%/latency.test %reldir%/ext_json.test \
	%reldir%/stats.test %reldir%/rr.test %reldir%/csvout.test \
	%reldir%/metrics.test %reldir%/placement.test \
	%reldir%/json_stream_out.test %reldir%/schema.test %reldir%/sockfail.test \
	%reldir%/layers.test
EXTRA_DIST += %reldir%/testlib.py %reldir%/abi.test %reldir%/api_symbols.py \
	%reldir%/layers.test %reldir%/layers.py %reldir%/layers.todo \
	%reldir%/api_ctypes.test %reldir%/api_ctypes.py %reldir%/api_install.test \
	%reldir%/auth.test %reldir%/auth.py \
	%reldir%/interop.test %reldir%/interop.py %reldir%/udp_loss.test \
	%reldir%/cli_errors.test %reldir%/cli_errors.data \
	%reldir%/hostile.test %reldir%/hostile.py \
	%reldir%/hostile_mass.test %reldir%/hostile_mass.py \
	%reldir%/fault.test %reldir%/fault.py \
	%reldir%/fidelity.test %reldir%/fidelity.py \
	%reldir%/stages.test %reldir%/stages.py \
	%reldir%/multi.test %reldir%/multi.py \
	%reldir%/udp_offload.test %reldir%/udp_offload.py \
	%reldir%/bench_smoke.test %reldir%/latency.test %reldir%/latency.py \
	%reldir%/ext_json.test %reldir%/ext_json.py \
	%reldir%/stats.test %reldir%/stats.py \
	%reldir%/rr.test %reldir%/rr.py \
	%reldir%/csvout.test %reldir%/csvout.py \
	%reldir%/metrics.test %reldir%/metrics.py \
	%reldir%/placement.test %reldir%/placement.py \
	%reldir%/json_stream_out.test %reldir%/json_stream_out.py \
	%reldir%/schema.test %reldir%/schema.py \
	%reldir%/sockfail.test %reldir%/sockfail.py \
	%reldir%/sockopts.test %reldir%/sockopts.py \
	%reldir%/capture_shapes.test %reldir%/capture_shapes.py \
	%reldir%/wire.test %reldir%/wire.py \
	%reldir%/server_ops.test %reldir%/server_ops.py %reldir%/cross.sh \
	%reldir%/data_opts.test %reldir%/data_opts.py \
	%reldir%/sctp_data.test %reldir%/sctp_errors.test %reldir%/sctp.py \
	%reldir%/sctp_vm.test %reldir%/sctp_vm.py \
	%reldir%/captures/README $(CAPTURE_FILES)
TESTS += %reldir%/plot.test
EXTRA_DIST += %reldir%/plot.test %reldir%/plot.py
CAPTURE_FILES = \
	%reldir%/captures/server_limit.txt \
	%reldir%/captures/tcp_basic.txt \
	%reldir%/captures/tcp_bidir.txt \
	%reldir%/captures/tcp_bidir_P2.txt \
	%reldir%/captures/tcp_blocks_k.txt \
	%reldir%/captures/tcp_bytes_n.txt \
	%reldir%/captures/tcp_cntl_ka.txt \
	%reldir%/captures/tcp_format_M.txt \
	%reldir%/captures/tcp_format_k.txt \
	%reldir%/captures/tcp_get_server_output.txt \
	%reldir%/captures/tcp_get_server_output_json_both.client.json \
	%reldir%/captures/tcp_get_server_output_json_both.txt \
	%reldir%/captures/tcp_json.client.json \
	%reldir%/captures/tcp_json.server.json \
	%reldir%/captures/tcp_json.txt \
	%reldir%/captures/tcp_json_P2.client.json \
	%reldir%/captures/tcp_json_P2.txt \
	%reldir%/captures/tcp_json_bidir.client.json \
	%reldir%/captures/tcp_json_bidir.txt \
	%reldir%/captures/tcp_json_extra.client.json \
	%reldir%/captures/tcp_json_extra.txt \
	%reldir%/captures/tcp_json_omit.client.json \
	%reldir%/captures/tcp_json_omit.txt \
	%reldir%/captures/tcp_json_reverse.client.json \
	%reldir%/captures/tcp_json_reverse.txt \
	%reldir%/captures/tcp_json_stream.client.jsonl \
	%reldir%/captures/tcp_json_stream.txt \
	%reldir%/captures/tcp_json_stream_server.client.jsonl \
	%reldir%/captures/tcp_json_stream_server.txt \
	%reldir%/captures/tcp_omit.txt \
	%reldir%/captures/tcp_parallel2.txt \
	%reldir%/captures/tcp_reverse.txt \
	%reldir%/captures/tcp_server_max_duration.txt \
	%reldir%/captures/tcp_server_max_duration_exceeded.txt \
	%reldir%/captures/tcp_timestamps.txt \
	%reldir%/captures/tcp_timestamps_fmt.txt \
	%reldir%/captures/tcp_title.txt \
	%reldir%/captures/tcp_verbose.txt \
	%reldir%/captures/tcp_verbose_bidir.txt \
	%reldir%/captures/udp_basic.txt \
	%reldir%/captures/udp_bidir.txt \
	%reldir%/captures/udp_big_len.txt \
	%reldir%/captures/udp_default_rate.txt \
	%reldir%/captures/udp_json.client.json \
	%reldir%/captures/udp_json.server.json \
	%reldir%/captures/udp_json.txt \
	%reldir%/captures/udp_json_bidir_P2.client.json \
	%reldir%/captures/udp_json_bidir_P2.txt \
	%reldir%/captures/udp_json_reverse.client.json \
	%reldir%/captures/udp_json_reverse.txt \
	%reldir%/captures/udp_json_stream.client.jsonl \
	%reldir%/captures/udp_json_stream.txt \
	%reldir%/captures/udp_omit.txt \
	%reldir%/captures/udp_parallel2.txt \
	%reldir%/captures/udp_reverse.txt
