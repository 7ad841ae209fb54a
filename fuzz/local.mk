# fuzz/local.mk - libFuzzer targets (--enable-fuzzing, clang) or, by
# default, the same targets linked with a replay main that `make check`
# runs over every corpus file.
FUZZ_TARGETS = %reldir%/fuzz_units %reldir%/fuzz_params %reldir%/fuzz_results \
	%reldir%/fuzz_ctrl %reldir%/fuzz_udp %reldir%/fuzz_options \
	%reldir%/fuzz_auth %reldir%/fuzz_users
# --allow-file's parser: with the operator's server (--disable-operator)
if HAVE_OPERATOR
FUZZ_TARGETS += %reldir%/fuzz_allow
endif
# The exporter's /probe query and its text (--disable-exporter)
if HAVE_EXPORTER
FUZZ_TARGETS += %reldir%/fuzz_probe_query
endif
# Our server's interval documents (--disable-peerival) and --rpm's records
# (--disable-rpm)
if HAVE_PEERIVAL
FUZZ_TARGETS += %reldir%/fuzz_peer_ival
endif
if HAVE_RPM
FUZZ_TARGETS += %reldir%/fuzz_rpm
endif
# --multicast-listen's datagrams (--disable-multicast) and --isochronous's
# frames (--disable-isochronous)
if HAVE_MULTICAST
FUZZ_TARGETS += %reldir%/fuzz_mcast
endif
if HAVE_ISOCHRONOUS
FUZZ_TARGETS += %reldir%/fuzz_iso
endif
if FUZZING
noinst_PROGRAMS += $(FUZZ_TARGETS)
FUZZ_MAIN =
FUZZ_LINK_FLAGS = -fsanitize=fuzzer
else
check_PROGRAMS += $(FUZZ_TARGETS)
FUZZ_MAIN = %reldir%/replay.c
FUZZ_LINK_FLAGS = $(STATIC_BIN_LDFLAGS)
TESTS += %reldir%/replay.test
endif
FUZZ_COMMON = %reldir%/fuzz.h %reldir%/fuzz_util.c $(FUZZ_MAIN)
FUZZ_CC_FLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) -Wno-missing-prototypes
FUZZ_LIBS = src/libiperf_core.la

%canon_reldir%_fuzz_units_SOURCES = %reldir%/fuzz_units.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_units_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_units_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_units_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_params_SOURCES = %reldir%/fuzz_params.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_params_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_params_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_params_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_results_SOURCES = %reldir%/fuzz_results.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_results_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_results_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_results_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_ctrl_SOURCES = %reldir%/fuzz_ctrl.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_ctrl_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_ctrl_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_ctrl_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_udp_SOURCES = %reldir%/fuzz_udp.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_udp_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_udp_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_udp_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_options_SOURCES = %reldir%/fuzz_options.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_options_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_options_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_options_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_auth_SOURCES = %reldir%/fuzz_auth.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_auth_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_auth_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_auth_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_users_SOURCES = %reldir%/fuzz_users.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_users_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_users_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_users_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_allow_SOURCES = %reldir%/fuzz_allow.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_allow_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_allow_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_allow_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_probe_query_SOURCES = %reldir%/fuzz_probe_query.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_probe_query_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_probe_query_LDADD = src/libiperf_exporter.la $(FUZZ_LIBS)
%canon_reldir%_fuzz_probe_query_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_peer_ival_SOURCES = %reldir%/fuzz_peer_ival.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_peer_ival_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_peer_ival_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_peer_ival_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_rpm_SOURCES = %reldir%/fuzz_rpm.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_rpm_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_rpm_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_rpm_LDFLAGS = $(FUZZ_LINK_FLAGS)

EXTRA_DIST += %reldir%/replay.test %reldir%/corpus %reldir%/run.sh

%canon_reldir%_fuzz_mcast_SOURCES = %reldir%/fuzz_mcast.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_mcast_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_mcast_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_mcast_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_iso_SOURCES = %reldir%/fuzz_iso.c $(FUZZ_COMMON)
%canon_reldir%_fuzz_iso_CFLAGS = $(FUZZ_CC_FLAGS)
%canon_reldir%_fuzz_iso_LDADD = $(FUZZ_LIBS)
%canon_reldir%_fuzz_iso_LDFLAGS = $(FUZZ_LINK_FLAGS)
