# examples/local.mk - programs using only <iperf_api.h>, built by make check.
check_PROGRAMS += %reldir%/client %reldir%/server
%canon_reldir%_client_SOURCES = %reldir%/client.c
%canon_reldir%_client_CPPFLAGS = -I$(top_srcdir)/src
%canon_reldir%_client_LDADD = src/libiperf.la
%canon_reldir%_server_SOURCES = %reldir%/server.c
%canon_reldir%_server_CPPFLAGS = -I$(top_srcdir)/src
%canon_reldir%_server_LDADD = src/libiperf.la
