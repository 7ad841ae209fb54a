# tests/local.mk - the tests, by kind:
#   tests/unit/     Check suites (check_<module>.c, one program each) and
#                   api_threads.c, C programs that `make check` builds
#   tests/scripts/  script tests (*.test, their *.py, testlib.py) run
#                   with the build tree's programs, and sockshim.c, the
#                   LD_PRELOAD library of sockfail.test
#   tests/data/     what the tests read: cli_errors.data, captures/,
#                   layers.todo

if HAVE_CHECK
# A suite is tests/unit/<name>.c (its default source) plus the shared
# main() of libcheckmain.la, built with the defaults (AM_CFLAGS,
# LDADD below).  Adding one: its name here; a _SOURCES line only when it
# has more than one source.
CHECK_SUITES = \
	%reldir%/unit/check_units \
	%reldir%/unit/check_timer \
	%reldir%/unit/check_evloop \
	%reldir%/unit/check_latstat \
	%reldir%/unit/check_csv \
	%reldir%/unit/check_delayvar \
	%reldir%/unit/check_udp \
	%reldir%/unit/check_ctrl \
	%reldir%/unit/check_params \
	%reldir%/unit/check_pacer \
	%reldir%/unit/check_ratewin \
	%reldir%/unit/check_options \
	%reldir%/unit/check_stream_io \
	%reldir%/unit/check_placement \
	%reldir%/unit/check_sctp \
	%reldir%/unit/check_report \
	%reldir%/unit/check_auth \
	%reldir%/unit/check_api \
	%reldir%/unit/check_bounds \
	%reldir%/unit/check_session \
	%reldir%/unit/check_accept \
	%reldir%/unit/check_dispatch
# The operator's server (configure --disable-operator leaves it out).
if HAVE_OPERATOR
CHECK_SUITES += %reldir%/unit/check_listen_fds %reldir%/unit/check_acl \
	%reldir%/unit/check_audit %reldir%/unit/check_http \
	%reldir%/unit/check_server_stats %reldir%/unit/check_caps
endif
# The exporter's pure parts (configure --disable-exporter leaves it out),
# with its result documents in tests/data.
if HAVE_EXPORTER
CHECK_SUITES += %reldir%/unit/check_exporter
%canon_reldir%_unit_check_exporter_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEXP_FIXTURES='"$(abs_top_srcdir)/tests/data"'
%canon_reldir%_unit_check_exporter_LDADD = src/libiperf_exporter.la $(LDADD)
endif
# plot.c is left out by configure --disable-plot, and so is its suite.
if HAVE_PLOT
CHECK_SUITES += %reldir%/unit/check_plot
endif
if HAVE_RR
CHECK_SUITES += %reldir%/unit/check_rr
endif
if HAVE_OWD
CHECK_SUITES += %reldir%/unit/check_clockoff
endif
if HAVE_RPM
CHECK_SUITES += %reldir%/unit/check_rpm
endif
if HAVE_MULTICAST
CHECK_SUITES += %reldir%/unit/check_mcast_acct %reldir%/unit/check_report_mcast
%canon_reldir%_unit_check_report_mcast_SOURCES = \
	%reldir%/unit/check_report_mcast.c %reldir%/unit/check_report_fx.c \
	%reldir%/unit/check_report.h
endif
if HAVE_ISOCHRONOUS
CHECK_SUITES += %reldir%/unit/check_iso
endif
if HAVE_UDPFEEDBACK
CHECK_SUITES += %reldir%/unit/check_backoff
endif
check_PROGRAMS += $(CHECK_SUITES)
TESTS += $(CHECK_SUITES)

# check_main.c (main(), which runs the suite's make_suite()), built once.
check_LTLIBRARIES += %reldir%/unit/libcheckmain.la
%canon_reldir%_unit_libcheckmain_la_SOURCES = %reldir%/unit/check_main.c \
	%reldir%/unit/check_main.h

# What a program links when it names no _LDADD of its own: every other
# program (src/, examples/, fuzz/, api_threads) names one, so this is the
# suites'.  It carries STATIC_BIN_LDFLAGS (-all-static with
# --enable-static-bin, so that the suites run under qemu): libtool takes
# it anywhere on the link line, and AM_LDFLAGS would also reach
# src/libiperf_core.la and examples/, which name no _LDFLAGS.
LDADD = %reldir%/unit/libcheckmain.la src/libiperf_core.la $(CHECK_LIBS) \
	$(STATIC_BIN_LDFLAGS)

# the server's and client's side of the wire, played by the suites
PEER_SOURCES = %reldir%/unit/check_peer.c %reldir%/unit/check_peer.h
%canon_reldir%_unit_check_session_SOURCES = %reldir%/unit/check_session.c $(PEER_SOURCES)
%canon_reldir%_unit_check_accept_SOURCES = %reldir%/unit/check_accept.c $(PEER_SOURCES)
%canon_reldir%_unit_check_dispatch_SOURCES = %reldir%/unit/check_dispatch.c $(PEER_SOURCES)
%canon_reldir%_unit_check_sctp_SOURCES = %reldir%/unit/check_sctp.c \
	%reldir%/unit/check_report_fx.c %reldir%/unit/check_report.h
%canon_reldir%_unit_check_auth_LDADD = $(LDADD) $(OPENSSL_LIBS)
%canon_reldir%_unit_check_auth_SOURCES = %reldir%/unit/check_auth.c \
	%reldir%/unit/check_auth_rsa.c %reldir%/unit/check_auth.h
%canon_reldir%_unit_check_report_SOURCES = %reldir%/unit/check_report.c \
	%reldir%/unit/check_report.h %reldir%/unit/check_report_fx.c \
	%reldir%/unit/check_report_scn.c \
	%reldir%/unit/check_report_text.c %reldir%/unit/check_report_text_misc.c \
	%reldir%/unit/check_report_text_multi.c %reldir%/unit/check_report_text_udp.c \
	%reldir%/unit/check_report_json.c %reldir%/unit/check_report_json_end.c \
	%reldir%/unit/check_report_want.c
endif

# A server's registry with a sample counted, rendered or served
# (tests/scripts/server_stats.py).  Its own main(): not the suites' LDADD.
if HAVE_OPERATOR
check_PROGRAMS += %reldir%/unit/stats_dump
%canon_reldir%_unit_stats_dump_LDADD = src/libiperf_core.la $(STATIC_BIN_LDFLAGS)
if HAVE_MHD
# The iperf3 program as a build without libmicrohttpd has it: the same
# objects with http_stub.c in place of http.c (the archive's http.o is
# not pulled in: the stub defines every symbol it would give), so that
# tests/scripts/opserver.py sees --metrics-listen refused in a build
# that has the library.
check_PROGRAMS += %reldir%/unit/iperf3_nohttp
%canon_reldir%_unit_iperf3_nohttp_SOURCES = src/cli/main.c src/http/http_stub.c
%canon_reldir%_unit_iperf3_nohttp_LDADD = $(EXPORTER_LIBS) src/libiperf_core.la \
	$(STATIC_BIN_LDFLAGS)
endif
endif

# libiperf through its public API only (threads in one process).
check_PROGRAMS += %reldir%/unit/api_threads
TESTS += %reldir%/unit/api_threads
%canon_reldir%_unit_api_threads_CPPFLAGS = -I$(top_srcdir)/src/include
%canon_reldir%_unit_api_threads_LDADD = src/libiperf.la

# An LD_PRELOAD library that gives one process other socket limits than
# the machine's (sockfail.py).  Shared builds only: the test skips
# without tests/scripts/.libs/libsockshim.so.
check_LTLIBRARIES += %reldir%/scripts/libsockshim.la
%canon_reldir%_scripts_libsockshim_la_SOURCES = %reldir%/scripts/sockshim.c
%canon_reldir%_scripts_libsockshim_la_CFLAGS = $(AM_CFLAGS) -Wno-missing-prototypes
%canon_reldir%_scripts_libsockshim_la_LDFLAGS = -module -avoid-version \
	-rpath $(abs_builddir)/%reldir%/scripts
%canon_reldir%_scripts_libsockshim_la_LIBADD = $(DL_LIBS)

# Script tests run with the build tree's programs; srcdir is their folder
# (tests/scripts), where the Python scripts find testlib.py.  No bytecode
# is written into the (possibly read-only) source tree.
AM_TESTS_ENVIRONMENT = top_builddir='$(top_builddir)'; top_srcdir='$(top_srcdir)'; \
	srcdir='$(srcdir)/%reldir%/scripts'; MAKE='$(MAKE)'; CC='$(CC)'; \
	PYTHONDONTWRITEBYTECODE=1; \
	export top_builddir top_srcdir srcdir MAKE CC PYTHONDONTWRITEBYTECODE;
SCRIPT_TESTS = %reldir%/scripts/interop.test %reldir%/scripts/udp_loss.test \
	%reldir%/scripts/cli_errors.test %reldir%/scripts/hostile.test \
	%reldir%/scripts/sockopts.test %reldir%/scripts/capture_shapes.test \
	%reldir%/scripts/wire.test %reldir%/scripts/server_ops.test \
	%reldir%/scripts/data_opts.test %reldir%/scripts/sctp_data.test \
	%reldir%/scripts/sctp_errors.test %reldir%/scripts/auth.test \
	%reldir%/scripts/abi.test %reldir%/scripts/api_ctypes.test \
	%reldir%/scripts/api_install.test %reldir%/scripts/hostile_mass.test \
	%reldir%/scripts/fault.test %reldir%/scripts/fidelity.test \
	%reldir%/scripts/stages.test %reldir%/scripts/multi.test \
	%reldir%/scripts/udp_offload.test %reldir%/scripts/bench_smoke.test \
	%reldir%/scripts/latency.test %reldir%/scripts/ext_json.test \
	%reldir%/scripts/stats.test %reldir%/scripts/rr.test \
	%reldir%/scripts/csvout.test %reldir%/scripts/metrics.test \
	%reldir%/scripts/exporter.test %reldir%/scripts/exporter_prom.test \
	%reldir%/scripts/placement.test %reldir%/scripts/json_stream_out.test \
	%reldir%/scripts/schema.test %reldir%/scripts/sockfail.test \
	%reldir%/scripts/layers.test %reldir%/scripts/plot.test \
	%reldir%/scripts/units.test %reldir%/scripts/server_stats.test \
	%reldir%/scripts/opserver.test \
	%reldir%/scripts/caps.test %reldir%/scripts/pscheduler.test \
	%reldir%/scripts/k8s_bench.test %reldir%/scripts/k8s_manifests.test \
	%reldir%/scripts/datapath.test
if HAVE_OWD
SCRIPT_TESTS += %reldir%/scripts/owd.test
endif
# --rpm (configure --disable-rpm leaves it out, and its test).
if HAVE_RPM
SCRIPT_TESTS += %reldir%/scripts/rpm.test
endif
# --multicast and --multicast-listen (configure --disable-multicast)
if HAVE_MULTICAST
SCRIPT_TESTS += %reldir%/scripts/multicast.test
endif
# --isochronous (configure --disable-isochronous leaves it out).
if HAVE_ISOCHRONOUS
SCRIPT_TESTS += %reldir%/scripts/iso.test
endif
TESTS += $(SCRIPT_TESTS)
# sctp_vm.test, debpkg.test and container.test are not in TESTS:
# contrib/run-tests.sh runs them beside the robustness jobs.  cross.sh is
# CI's (contrib/run-tests.sh).
EXTRA_DIST += $(SCRIPT_TESTS) %reldir%/scripts/sctp_vm.test \
	%reldir%/scripts/debpkg.test %reldir%/scripts/debpkg.py \
	%reldir%/scripts/container.test %reldir%/scripts/container.py \
	%reldir%/scripts/cross.sh \
	%reldir%/scripts/testlib.py %reldir%/scripts/api_symbols.py \
	%reldir%/scripts/layers.py %reldir%/scripts/api_ctypes.py \
	%reldir%/scripts/auth.py %reldir%/scripts/interop.py \
	%reldir%/scripts/hostile.py %reldir%/scripts/hostile_mass.py \
	%reldir%/scripts/fault.py %reldir%/scripts/fidelity.py \
	%reldir%/scripts/stages.py %reldir%/scripts/multi.py \
	%reldir%/scripts/udp_offload.py %reldir%/scripts/latency.py \
	%reldir%/scripts/ext_json.py %reldir%/scripts/stats.py \
	%reldir%/scripts/rr.py %reldir%/scripts/csvout.py \
	%reldir%/scripts/metrics.py %reldir%/scripts/placement.py \
	%reldir%/scripts/datapath.py \
	%reldir%/scripts/json_stream_out.py %reldir%/scripts/schema.py \
	%reldir%/scripts/sockfail.py %reldir%/scripts/sockopts.py \
	%reldir%/scripts/capture_shapes.py %reldir%/scripts/wire.py \
	%reldir%/scripts/server_ops.py %reldir%/scripts/data_opts.py \
	%reldir%/scripts/sctp.py %reldir%/scripts/sctp_vm.py \
	%reldir%/scripts/plot.py %reldir%/scripts/units.py \
	%reldir%/scripts/server_stats.py %reldir%/scripts/opserver.py \
	%reldir%/scripts/caps.py %reldir%/scripts/pscheduler.py \
	%reldir%/scripts/k8s_bench.py %reldir%/scripts/k8s_manifests.js \
	%reldir%/scripts/exporter.py %reldir%/scripts/exporter_prom.py \
	%reldir%/scripts/owd.test %reldir%/scripts/owd.py \
	%reldir%/scripts/rpm.test %reldir%/scripts/rpm.py \
	%reldir%/scripts/multicast.test %reldir%/scripts/multicast.py \
	%reldir%/scripts/iso.test %reldir%/scripts/iso.py
# The data folder as a whole (captures/ holds the 3.21 captures and their
# README; nothing is written there).
EXTRA_DIST += %reldir%/data/cli_errors.data %reldir%/data/layers.todo \
	%reldir%/data/captures %reldir%/data/exporter_tcp.json \
	%reldir%/data/exporter_udp.json
