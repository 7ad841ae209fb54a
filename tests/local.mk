# tests/local.mk - Check unit suites and shell tests (interop, CLI).

if HAVE_CHECK
CHECK_SUITES = \
	%reldir%/check_units \
	%reldir%/check_timer \
	%reldir%/check_udp \
	%reldir%/check_ctrl \
	%reldir%/check_params \
	%reldir%/check_pacer \
	%reldir%/check_options \
	%reldir%/check_stream_io \
	%reldir%/check_report
check_PROGRAMS += $(CHECK_SUITES)
TESTS += $(CHECK_SUITES)
SUITE_LDADD = src/libiperf_core.la $(CHECK_LIBS)
SUITE_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CJSON_CFLAGS) -Wno-missing-prototypes

%canon_reldir%_check_units_SOURCES = %reldir%/check_units.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_units_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_units_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_timer_SOURCES = %reldir%/check_timer.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_timer_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_timer_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_udp_SOURCES = %reldir%/check_udp.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_udp_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_udp_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_params_SOURCES = %reldir%/check_params.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_params_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_params_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_pacer_SOURCES = %reldir%/check_pacer.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_pacer_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_pacer_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_ctrl_SOURCES = %reldir%/check_ctrl.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_ctrl_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_ctrl_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_options_SOURCES = %reldir%/check_options.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_options_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_options_LDADD = $(SUITE_LDADD)
%canon_reldir%_check_stream_io_SOURCES = %reldir%/check_stream_io.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_stream_io_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_stream_io_LDADD = $(SUITE_LDADD)
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
endif

# Shell tests run with the build tree's programs.
AM_TESTS_ENVIRONMENT = top_builddir='$(top_builddir)'; top_srcdir='$(top_srcdir)'; \
	srcdir='$(srcdir)/tests'; export top_builddir top_srcdir srcdir;
TESTS += %reldir%/interop.test %reldir%/udp_loss.test %reldir%/cli_errors.test \
	%reldir%/hostile.test %reldir%/data_opts.test
EXTRA_DIST += %reldir%/interop.test %reldir%/interop.py %reldir%/udp_loss.test \
	%reldir%/cli_errors.test %reldir%/cli_errors.data \
	%reldir%/hostile.test %reldir%/hostile.py \
	%reldir%/data_opts.test %reldir%/data_opts.py
