# src/local.mk - the library (internal core + installed wrapper) and the CLI.

noinst_LTLIBRARIES += %reldir%/libiperf_core.la
%canon_reldir%_libiperf_core_la_SOURCES = \
	%reldir%/banned.h \
	%reldir%/iperf.h \
	%reldir%/iperf_api.h \
	%reldir%/iperf_api.c \
	%reldir%/iperf_accessors.c \
	%reldir%/iperf_setters.c \
	%reldir%/iperf_auth_api.c \
	%reldir%/iperf_output.c \
	%reldir%/iperf_stages.c \
	%reldir%/iperf_stages_run.c \
	%reldir%/iperf_pidfile.c \
	%reldir%/iperf_error.c %reldir%/iperf_error.h \
	%reldir%/iperf_time.c %reldir%/iperf_time.h \
	%reldir%/timer.c %reldir%/timer.h \
	%reldir%/evloop.c %reldir%/evloop.h \
	%reldir%/units.c %reldir%/units.h \
	%reldir%/util.c %reldir%/util.h \
	%reldir%/auth.c %reldir%/auth.h \
	%reldir%/ctrl.c %reldir%/ctrl.h \
	%reldir%/params.c %reldir%/params.h \
	%reldir%/json.c %reldir%/json.h \
	%reldir%/net.c %reldir%/net.h \
	%reldir%/flowlabel.c %reldir%/flowlabel.h \
	%reldir%/tcp_info.c %reldir%/tcp_info.h \
	%reldir%/stream.c %reldir%/stream.h \
	%reldir%/stream_io.c %reldir%/stream_io.h \
	%reldir%/affinity.c %reldir%/affinity.h \
	%reldir%/pacer.c %reldir%/pacer.h \
	%reldir%/stats.c %reldir%/stats.h \
	%reldir%/test.c %reldir%/test.h \
	%reldir%/proto.c %reldir%/proto.h \
	%reldir%/proto_tcp.c \
	%reldir%/proto_udp.c \
	%reldir%/udp_wire.c %reldir%/udp_wire.h \
	%reldir%/udp_acct.c %reldir%/udp_acct.h \
	%reldir%/session.c %reldir%/session.h \
	%reldir%/client.c %reldir%/client.h \
	%reldir%/server.c %reldir%/server.h \
	%reldir%/server_accept.c %reldir%/server_accept.h \
	%reldir%/server_limits.c %reldir%/server_limits.h \
	%reldir%/ratewin.c %reldir%/ratewin.h \
	%reldir%/options.c %reldir%/options.h %reldir%/options_int.h \
	%reldir%/options_apply.c %reldir%/options_apply_misc.c \
	%reldir%/options_check.c %reldir%/options_help.c \
	%reldir%/report.c %reldir%/report.h \
	%reldir%/report_int.h \
	%reldir%/report_calc.c %reldir%/report_calc.h \
	%reldir%/report_rows.c %reldir%/report_rows.h \
	%reldir%/report_text.c \
	%reldir%/report_text_sum.c \
	%reldir%/report_json.c \
	%reldir%/report_json_data.c \
	%reldir%/report_json_end.c
%canon_reldir%_libiperf_core_la_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_libiperf_core_la_LIBADD = $(CJSON_LIBS) $(OPENSSL_LIBS) $(SCTP_LIBS)

lib_LTLIBRARIES += %reldir%/libiperf.la
%canon_reldir%_libiperf_la_SOURCES =
nodist_EXTRA_%canon_reldir%_libiperf_la_SOURCES = dummy.c
%canon_reldir%_libiperf_la_LIBADD = %reldir%/libiperf_core.la
EXTRA_%canon_reldir%_libiperf_la_DEPENDENCIES = %reldir%/libiperf.sym
%canon_reldir%_libiperf_la_LDFLAGS = -no-undefined \
	-version-info $(LIBIPERF_LT_VERSION) \
	-export-symbols $(srcdir)/%reldir%/libiperf.sym
EXTRA_DIST += %reldir%/libiperf.sym %reldir%/libiperf.pc.in
include_HEADERS += %reldir%/iperf_api.h
pkgconfig_DATA += %reldir%/libiperf.pc

bin_PROGRAMS += %reldir%/iperf3
%canon_reldir%_iperf3_SOURCES = %reldir%/main.c
%canon_reldir%_iperf3_LDADD = %reldir%/libiperf.la
%canon_reldir%_iperf3_LDFLAGS = $(STATIC_BIN_LDFLAGS)

if HAVE_SCTP
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/proto_sctp.c
endif
if HAVE_SSL
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/auth_ssl.c \
	%reldir%/auth_run.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/auth_stub.c
endif
