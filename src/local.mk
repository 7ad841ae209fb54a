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
	%reldir%/ext.c %reldir%/ext.h \
	%reldir%/json.c %reldir%/json.h \
	%reldir%/net.c %reldir%/net.h \
	%reldir%/flowlabel.c %reldir%/flowlabel.h \
	%reldir%/tcp_info.c %reldir%/tcp_info.h \
	%reldir%/latstat.c %reldir%/latstat.h \
	%reldir%/probe.c %reldir%/probe.h \
	%reldir%/rr_wire.c %reldir%/rr.h \
	%reldir%/stream.c %reldir%/stream.h \
	%reldir%/stream_io.c %reldir%/stream_io.h \
	%reldir%/affinity.c %reldir%/affinity.h \
	%reldir%/placement.c %reldir%/placement.h \
	%reldir%/pacer.c %reldir%/pacer.h \
	%reldir%/stats.c %reldir%/stats.h \
	%reldir%/stats_dist.c %reldir%/stats_dist.h \
	%reldir%/delayvar.c %reldir%/delayvar.h \
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
	%reldir%/server_multi.c %reldir%/server_multi.h \
	%reldir%/addr.c %reldir%/addr.h \
	%reldir%/notes.c %reldir%/notes.h \
	%reldir%/server_limits.c %reldir%/server_limits.h \
	%reldir%/ratewin.c %reldir%/ratewin.h \
	%reldir%/options.c %reldir%/options.h %reldir%/options_int.h \
	%reldir%/options_apply.c %reldir%/options_apply_misc.c \
	%reldir%/options_apply_out.c \
	%reldir%/options_check.c %reldir%/options_help.c \
	%reldir%/report.c %reldir%/report.h \
	%reldir%/report_int.h \
	%reldir%/report_calc.c %reldir%/report_calc.h \
	%reldir%/report_rows.c %reldir%/report_rows.h \
	%reldir%/report_text.c \
	%reldir%/report_text_sum.c \
	%reldir%/report_json.c \
	%reldir%/report_json_data.c \
	%reldir%/report_json_doc.c \
	%reldir%/report_json_end.c \
	%reldir%/report_latency.c \
	%reldir%/report_stats.c \
	%reldir%/report_out.c %reldir%/report_out.h \
	%reldir%/csv.c %reldir%/csv.h \
	%reldir%/report_plot.h %reldir%/plot.h
# Outputs stock iperf3 lacks, each left out by its configure switch.
if HAVE_CSV
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report_csv.c
endif
if HAVE_RR
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/rr.c %reldir%/report_rr.c
else
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/rr_stub.c
endif
if HAVE_METRICS
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report_metrics.c
endif
if HAVE_PLOT
%canon_reldir%_libiperf_core_la_SOURCES += %reldir%/report_plot.c \
	%reldir%/plot.c %reldir%/plot_data.c %reldir%/plot_fmt.c
endif
EXTRA_DIST += %reldir%/report_csv.c %reldir%/report_metrics.c \
	%reldir%/rr.c %reldir%/report_rr.c %reldir%/rr_stub.c \
	%reldir%/report_plot.c %reldir%/plot.c %reldir%/plot_data.c \
	%reldir%/plot_fmt.c
%canon_reldir%_libiperf_core_la_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_libiperf_core_la_LIBADD = $(CJSON_LIBS) $(OPENSSL_LIBS) $(SCTP_LIBS)

lib_LTLIBRARIES += %reldir%/libiperf.la
# shadow_guard.c: the shared library's warning when a stock iperf3 has
# loaded it (not in the core, so neither our iperf3 nor the tests have it).
%canon_reldir%_libiperf_la_SOURCES = %reldir%/shadow_guard.c
%canon_reldir%_libiperf_la_LIBADD = %reldir%/libiperf_core.la
EXTRA_%canon_reldir%_libiperf_la_DEPENDENCIES = %reldir%/libiperf.sym
%canon_reldir%_libiperf_la_LDFLAGS = -no-undefined \
	-version-info $(LIBIPERF_LT_VERSION) \
	-export-symbols $(srcdir)/%reldir%/libiperf.sym
EXTRA_DIST += %reldir%/libiperf.sym %reldir%/libiperf.pc.in \
	%reldir%/shadow_check.sh
include_HEADERS += %reldir%/iperf_api.h
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
%canon_reldir%_iperf3_SOURCES = %reldir%/main.c
%canon_reldir%_iperf3_LDADD = %reldir%/libiperf_core.la
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
