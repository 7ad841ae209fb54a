# examples/local.mk - programs using only <iperf_api.h>, built by make check.
check_PROGRAMS += %reldir%/client %reldir%/server %reldir%/stages
%canon_reldir%_client_SOURCES = %reldir%/client.c
%canon_reldir%_client_CPPFLAGS = -I$(top_srcdir)/src/include
%canon_reldir%_client_LDADD = src/libiperf.la
%canon_reldir%_server_SOURCES = %reldir%/server.c
%canon_reldir%_server_CPPFLAGS = -I$(top_srcdir)/src/include
%canon_reldir%_server_LDADD = src/libiperf.la
%canon_reldir%_stages_SOURCES = %reldir%/stages.c
%canon_reldir%_stages_CPPFLAGS = -I$(top_srcdir)/src/include
%canon_reldir%_stages_LDADD = src/libiperf.la
