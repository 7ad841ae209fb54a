# src/local.mk - the library (internal core + installed wrapper) and the CLI.

noinst_LTLIBRARIES += %reldir%/libiperf_core.la
%canon_reldir%_libiperf_core_la_SOURCES = \
	%reldir%/base/banned.h \
	%reldir%/core/iperf.h \
	%reldir%/include/iperf_api.h \
	%reldir%/api/iperf_api.c \
	%reldir%/api/iperf_accessors.c \
	%reldir%/api/iperf_setters.c \
	%reldir%/api/iperf_auth_api.c \
	%reldir%/api/iperf_output.c %reldir%/api/api_cli.h \
	%reldir%/api/iperf_stages.c \
	%reldir%/api/iperf_stages_run.c \
	%reldir%/api/iperf_pidfile.c \
	%reldir%/core/iperf_error.c %reldir%/core/iperf_error.h \
	%reldir%/base/iperf_time.c %reldir%/base/iperf_time.h \
	%reldir%/base/timer.c %reldir%/base/timer.h \
	%reldir%/base/evloop.c %reldir%/base/evloop.h \
	%reldir%/base/units.c %reldir%/base/units.h \
	%reldir%/base/util.c %reldir%/base/util.h \
	%reldir%/base/bytes.c %reldir%/base/bytes.h \
	%reldir%/session/auth.c %reldir%/session/auth.h \
	%reldir%/session/ctrl.c %reldir%/session/ctrl.h \
	%reldir%/session/params.c %reldir%/session/params.h %reldir%/session/peer_ival.h \
	%reldir%/core/ext.c %reldir%/core/ext.h %reldir%/core/caps.h \
	%reldir%/session/caps_doc.h \
	%reldir%/base/json.c %reldir%/base/json.h \
	%reldir%/net/net.c %reldir%/net/net.h \
	%reldir%/net/flowlabel.c %reldir%/net/flowlabel.h \
	%reldir%/net/tcp_info.c %reldir%/net/tcp_info.h \
	%reldir%/net/listen_fds.h \
	%reldir%/measure/latstat.c %reldir%/measure/latstat.h \
	%reldir%/session/probe.c %reldir%/session/probe.h \
	%reldir%/stream/rr_wire.c %reldir%/stream/rr.h \
	%reldir%/stream/stream.c %reldir%/stream/stream.h \
	%reldir%/stream/stream_wait.c \
	%reldir%/stream/stream_io.c %reldir%/stream/stream_io.h \
	%reldir%/session/affinity.c %reldir%/session/affinity.h \
	%reldir%/stream/placement.c %reldir%/stream/placement.h \
	%reldir%/measure/pacer.c %reldir%/measure/pacer.h \
	%reldir%/stream/stats.c %reldir%/stream/stats.h \
	%reldir%/stream/stats_dist.c %reldir%/stream/stats_dist.h \
	%reldir%/measure/delayvar.c %reldir%/measure/delayvar.h \
	%reldir%/core/test.c %reldir%/core/test.h \
	%reldir%/core/test_config.c %reldir%/core/test_config.h \
	%reldir%/stream/stream_set.c %reldir%/stream/stream_set.h \
	%reldir%/session/ctrl_tune.c %reldir%/session/ctrl_tune.h \
	%reldir%/session/run.c %reldir%/session/run.h \
	%reldir%/proto/proto.c %reldir%/proto/proto.h %reldir%/proto/proto_common.c \
	%reldir%/core/proto_ops.h \
	%reldir%/proto/proto_tcp.c \
	%reldir%/proto/proto_udp.c %reldir%/proto/proto_udp_setup.c \
	%reldir%/proto/proto_udp_int.h \
	%reldir%/proto/udp_wire.c %reldir%/proto/udp_wire.h \
	%reldir%/measure/udp_acct.c %reldir%/measure/udp_acct.h \
	%reldir%/session/session.c %reldir%/session/session.h \
	%reldir%/client/client.c %reldir%/client/client.h \
	%reldir%/client/client_caps.h \
	%reldir%/server/server.c %reldir%/server/server.h \
	%reldir%/server/server_accept.c %reldir%/server/server_accept.h \
	%reldir%/server/server_multi.c %reldir%/server/server_multi.h \
	%reldir%/server/server_multi_int.h %reldir%/server/server_dispatch.c \
	%reldir%/server/server_admit.c %reldir%/server/server_admit.h \
	%reldir%/server/server_ports.h \
	%reldir%/server/server_record.h \
	%reldir%/server/server_child.h \
	%reldir%/net/addr.c %reldir%/net/addr.h \
	%reldir%/core/notes.c %reldir%/core/notes.h \
	%reldir%/server/server_limits.c %reldir%/server/server_limits.h \
	%reldir%/server/server_stats.h \
	%reldir%/server/server_metrics_http.h \
	%reldir%/http/http.h \
	%reldir%/server/server_caps.h \
	%reldir%/measure/ratewin.c %reldir%/measure/ratewin.h \
	%reldir%/measure/tbucket.h \
	%reldir%/net/cidr.h \
	%reldir%/server/acl.h \
	%reldir%/server/sources.h \
	%reldir%/server/audit.h \
	%reldir%/options/options.c %reldir%/options/options.h %reldir%/options/options_int.h \
	%reldir%/options/options_apply.c %reldir%/options/options_apply_misc.c \
	%reldir%/options/options_table.c %reldir%/options/options_util.c \
	%reldir%/options/options_apply_out.c \
	%reldir%/options/options_check.c %reldir%/options/options_help.c \
	%reldir%/report/report.c %reldir%/report/report.h \
	%reldir%/report/report_fmt.c %reldir%/report/report_select.c \
	%reldir%/report/report_int.h \
	%reldir%/report/report_calc.c %reldir%/report/report_calc.h \
	%reldir%/report/report_rows.c %reldir%/report/report_rows.h \
	%reldir%/report/report_text.c \
	%reldir%/report/report_caps.h \
	%reldir%/report/report_text_sum.c \
	%reldir%/report/report_json.c \
	%reldir%/report/report_json_data.c \
	%reldir%/report/report_json_doc.c \
	%reldir%/report/report_json_end.c \
	%reldir%/report/report_latency.c \
	%reldir%/report/report_stats.c \
	%reldir%/report/report_out.c %reldir%/report/report_out.h \
	%reldir%/report/csv.c %reldir%/report/csv.h \
	%reldir%/report/report_plot.h %reldir%/report/plot.h
# Outputs stock iperf3 lacks, each left out by its configure switch.
if HAVE_CSV
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report/report_csv.c
endif
if HAVE_RR
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/stream/rr.c %reldir%/report/report_rr.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/stream/rr_stub.c %reldir%/report/report_rr_stub.c
endif
if HAVE_METRICS
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report/report_metrics.c
endif
if HAVE_OWD
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report/report_owd.c \
	%reldir%/measure/clockoff.c
endif
# --rpm (responsiveness), left out by --disable-rpm: no stubs, the
# callers' hooks are under HAVE_RPM.
if HAVE_RPM
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/measure/rpm_calc.c %reldir%/measure/rpm_calc.h \
	%reldir%/stream/rpm_stream.c %reldir%/stream/rpm_stream.h \
	%reldir%/client/client_rpm.c %reldir%/client/client_rpm.h \
	%reldir%/server/server_rpm.c %reldir%/server/server_rpm.h \
	%reldir%/report/report_rpm.c
endif
# --isochronous (frames at a fixed rate), left out by
# --disable-isochronous: the callers' hooks are under HAVE_ISOCHRONOUS.
if HAVE_ISOCHRONOUS
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/measure/iso_gen.c %reldir%/measure/iso_gen.h \
	%reldir%/measure/iso_acc.c %reldir%/measure/iso_acc.h \
	%reldir%/stream/iso_stream.c %reldir%/stream/iso_stream.h \
	%reldir%/stream/iso_figs.c %reldir%/proto/proto_udp_iso.c \
	%reldir%/report/report_iso.c
endif
EXTRA_DIST += %reldir%/measure/iso_gen.c %reldir%/measure/iso_gen.h \
	%reldir%/measure/iso_acc.c %reldir%/measure/iso_acc.h \
	%reldir%/measure/wire_time.h \
	%reldir%/stream/iso_stream.c %reldir%/stream/iso_stream.h \
	%reldir%/stream/iso_figs.c %reldir%/proto/proto_udp_iso.c \
	%reldir%/report/report_iso.c
# udp_offload's drop reports, left out by --disable-udpfeedback: the
# callers' hooks are under HAVE_UDPFEEDBACK.
if HAVE_UDPFEEDBACK
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/measure/backoff.c %reldir%/measure/backoff.h \
	%reldir%/proto/proto_udp_fb.c
endif
EXTRA_DIST += %reldir%/measure/backoff.c %reldir%/measure/backoff.h \
	%reldir%/proto/proto_udp_fb.c
# --multicast and --isochronous share the datagram extension
if HAVE_DGX
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/proto/dgram_ext.c %reldir%/proto/dgram_ext.h \
	%reldir%/measure/wire_time.h %reldir%/options/options_apply_mcast.c
endif
if HAVE_MULTICAST
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/proto/proto_udp_mcast.c
if !HAVE_OPERATOR
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/net/cidr.c
endif
# --multicast-listen: a receiver of its own, no control connection
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/measure/mcast_acct.c %reldir%/measure/mcast_acct.h \
	%reldir%/report/report_mcast.c %reldir%/report/report_mcast.h \
	%reldir%/server/mcast_listen.c %reldir%/server/mcast_listen.h
endif
EXTRA_DIST += %reldir%/measure/mcast_acct.c %reldir%/measure/mcast_acct.h \
	%reldir%/report/report_mcast.c %reldir%/report/report_mcast.h \
	%reldir%/server/mcast_listen.c %reldir%/server/mcast_listen.h
if HAVE_PEERIVAL
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/session/peer_ival.c
endif
if HAVE_PLOT
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report/report_plot.c \
	%reldir%/report/plot.c %reldir%/report/plot_data.c %reldir%/report/plot_fmt.c
endif
EXTRA_DIST += %reldir%/proto/dgram_ext.c %reldir%/proto/dgram_ext.h \
	%reldir%/proto/proto_udp_mcast.c \
	%reldir%/options/options_apply_mcast.c
EXTRA_DIST += %reldir%/report/report_owd.c %reldir%/measure/clockoff.c \
	%reldir%/measure/clockoff.h
EXTRA_DIST += %reldir%/report/report_csv.c %reldir%/report/report_metrics.c \
	%reldir%/measure/rpm_calc.c %reldir%/measure/rpm_calc.h \
	%reldir%/stream/rpm_stream.c %reldir%/stream/rpm_stream.h \
	%reldir%/client/client_rpm.c %reldir%/client/client_rpm.h \
	%reldir%/server/server_rpm.c %reldir%/server/server_rpm.h \
	%reldir%/report/report_rpm.c \
	%reldir%/stream/rr.c %reldir%/report/report_rr.c %reldir%/stream/rr_stub.c \
	%reldir%/report/report_rr_stub.c \
	%reldir%/report/report_plot.c %reldir%/report/plot.c %reldir%/report/plot_data.c \
	%reldir%/report/plot_fmt.c %reldir%/session/peer_ival.c
# The operator's server (caps that clamp, admission, port ranges, socket
# activation, audit log, metrics), left out by --disable-operator (the
# small boards' --minimal) for the stubs that keep the dispatcher as it
# is without those options.  Its HTTP endpoints (/metrics): over
# libmicrohttpd when configure found it, else a stub whose http_start()
# says so.
if HAVE_OPERATOR
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/session/caps_doc.c %reldir%/net/listen_fds.c \
	%reldir%/client/client_caps.c %reldir%/server/server_ports.c \
	%reldir%/server/server_record.c %reldir%/server/server_stats.c \
	%reldir%/server/server_metrics_http.c \
	%reldir%/server/server_caps.c %reldir%/measure/tbucket.c \
	%reldir%/server/acl.c %reldir%/server/sources.c \
	%reldir%/server/audit.c %reldir%/server/server_gate.c \
	%reldir%/options/options_apply_server.c %reldir%/report/report_caps.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/server/operator_stub.c \
	%reldir%/server/server_caps_stub.c
endif
# The HTTP layer and the prefixes, for the operator's server and the
# exporter.
if HAVE_HTTP_PARTS
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/http/http_listen.c \
	%reldir%/net/cidr.c
if HAVE_MHD
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/http/http.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/http/http_stub.c
endif
endif
EXTRA_DIST += %reldir%/http/http.c %reldir%/http/http_stub.c \
	%reldir%/http/http_listen.c %reldir%/net/cidr.c
# The exporter (iperf3 --exporter): its options in the core, the rest in a
# library of the program's own (libiperf.so.0 does not carry it), left
# out by --disable-exporter or without libmicrohttpd.
EXPORTER_SOURCES = %reldir%/exporter/exporter.h \
	%reldir%/exporter/exp_serve.c \
	%reldir%/exporter/exp_probe.c %reldir%/exporter/exp_probe.h \
	%reldir%/exporter/exp_runner.c \
	%reldir%/exporter/exp_query.c %reldir%/exporter/exp_query.h \
	%reldir%/exporter/exp_expo.c %reldir%/exporter/exp_expo.h
EXTRA_DIST += $(EXPORTER_SOURCES) %reldir%/options/options_apply_exporter.c
if HAVE_EXPORTER
%canon_reldir%_libiperf_core_la_SOURCES += \
	%reldir%/options/options_apply_exporter.c
noinst_LTLIBRARIES += %reldir%/libiperf_exporter.la
%canon_reldir%_libiperf_exporter_la_SOURCES = $(EXPORTER_SOURCES)
EXPORTER_LIBS = %reldir%/libiperf_exporter.la
else
EXPORTER_LIBS =
endif
%canon_reldir%_libiperf_core_la_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(OPENSSL_CFLAGS) \
	$(MHD_CFLAGS)
%canon_reldir%_libiperf_core_la_LIBADD = $(CJSON_LIBS) $(OPENSSL_LIBS) $(SCTP_LIBS) \
	$(MHD_LIBS)

lib_LTLIBRARIES += %reldir%/libiperf.la
# shadow_guard.c: the shared library's warning when a stock iperf3 has
# loaded it (not in the core, so neither our iperf3 nor the tests have it).
%canon_reldir%_libiperf_la_SOURCES = %reldir%/api/shadow_guard.c
%canon_reldir%_libiperf_la_LIBADD = %reldir%/libiperf_core.la
EXTRA_%canon_reldir%_libiperf_la_DEPENDENCIES = %reldir%/libiperf.sym
%canon_reldir%_libiperf_la_LDFLAGS = -no-undefined \
	-version-info $(LIBIPERF_LT_VERSION) \
	-export-symbols $(srcdir)/%reldir%/libiperf.sym
EXTRA_DIST += %reldir%/libiperf.sym %reldir%/libiperf.pc.in %reldir%/LAYERS \
	%reldir%/shadow_check.sh
include_HEADERS += %reldir%/include/iperf_api.h
pkgconfig_DATA += %reldir%/libiperf.pc

# make install refuses to put libiperf.so.0 where the dynamic loader would
# take it in place of another libiperf.so.0, such as Debian's libiperf0
# (its iperf3 then prints its usage and exits 0 on every run).  Checked
# again here, not only by configure, because the system may have changed
# since; the message and the README ("Installing beside a stock iperf3")
# give the ways out.  REPLACE_LIBIPERF=yes (--enable-replace-libiperf)
# installs anyway; with DESTDIR the hazard is reported, not refused.
# The check runs before anything is installed, also under make -j: every
# install-* target that copies files waits for it (the library's, and the
# others so that a refusal leaves no partial install; a new kind of
# installed file belongs in this list).  Automake owns those targets;
# naming them through a variable keeps it from taking this
# prerequisite-only rule for an override of its own.
SHADOW_CHECKED_TARGETS = install-libLTLIBRARIES install-binPROGRAMS \
	install-includeHEADERS install-pkgconfigDATA install-man1 install-man3
$(SHADOW_CHECKED_TARGETS): install-shadow-check
install-shadow-check: $(lib_LTLIBRARIES)
	@if test "$(SHADOW_CHECK)" = yes && \
	    test -f %reldir%/.libs/libiperf.so.0; then \
	  out=`sh $(srcdir)/%reldir%/shadow_check.sh --mode=install \
	    --allow="$(REPLACE_LIBIPERF)" --destdir="$(DESTDIR)" \
	    --ours=%reldir%/.libs/libiperf.so.0 --marker="$(PACKAGE_NAME)" \
	    "$(libdir)"`; rc=$$?; \
	  case $$out in \
	  alone* | unsearched*) ;; \
	  *) echo '************************************************************'; \
	     if test $$rc -ne 0; then \
	       echo "make install: REFUSED: libiperf.so.0 into $(libdir)"; \
	     else \
	       echo "make install: WARNING: libiperf.so.0 into $(libdir)"; \
	     fi; \
	     echo "$$out" | sed 1d; \
	     echo '************************************************************';; \
	  esac >&2; \
	  exit $$rc; \
	fi
.PHONY: install-shadow-check

# iperf3 links the core, not libiperf.so.0: it always runs our code,
# whatever libiperf.so.0 the loader would find first (LD_LIBRARY_PATH,
# ld.so.cache, Debian's libiperf0) and wherever it is installed.
bin_PROGRAMS += %reldir%/iperf3
%canon_reldir%_iperf3_SOURCES = %reldir%/cli/main.c
%canon_reldir%_iperf3_LDADD = $(EXPORTER_LIBS) %reldir%/libiperf_core.la
%canon_reldir%_iperf3_LDFLAGS = $(STATIC_BIN_LDFLAGS)

if HAVE_SCTP
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/proto/proto_sctp.c
endif
if HAVE_SSL
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/session/auth_ssl.c \
	%reldir%/session/auth_run.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/session/auth_stub.c
endif
