# tests/local.mk - Check unit suites and shell tests (interop, CLI).

if HAVE_CHECK
CHECK_SUITES = \
	%reldir%/check_units \
	%reldir%/check_timer \
	%reldir%/check_options
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
%canon_reldir%_check_options_SOURCES = %reldir%/check_options.c %reldir%/check_main.c %reldir%/check_main.h
%canon_reldir%_check_options_CFLAGS = $(SUITE_CFLAGS)
%canon_reldir%_check_options_LDADD = $(SUITE_LDADD)
endif

# CLI golden tests: src/iperf3 against iperf3 3.21's captured behaviour.
AM_TESTS_ENVIRONMENT = top_builddir='$(top_builddir)'; top_srcdir='$(top_srcdir)'; \
	export top_builddir top_srcdir;
TESTS += %reldir%/cli_errors.test
EXTRA_DIST += %reldir%/cli_errors.test %reldir%/cli_errors.data
