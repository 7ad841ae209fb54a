# IPERF_CROSS_PKG_CONFIG: when cross-compiling with a pkg-config that is
# not the target's own ($host-pkg-config), and the user set no
# PKG_CONFIG_LIBDIR, restrict pkg-config to the target's multiarch
# directory so that the target's libraries are found, not the build
# machine's.
AC_DEFUN([IPERF_CROSS_PKG_CONFIG], [
  AS_IF([test "x$cross_compiling" = xyes && test -z "$PKG_CONFIG_LIBDIR"], [
    iperf_triplet=${host_alias:-$host}
    AS_CASE([$PKG_CONFIG],
      [*/$iperf_triplet-pkg-config|$iperf_triplet-pkg-config], [],
      [iperf_pcdirs=
       for d in /usr/lib/$iperf_triplet/pkgconfig /usr/local/lib/$iperf_triplet/pkgconfig; do
         AS_IF([test -d "$d"], [iperf_pcdirs="$iperf_pcdirs${iperf_pcdirs:+:}$d"])
       done
       PKG_CONFIG_LIBDIR="$iperf_pcdirs${iperf_pcdirs:+:}/usr/share/pkgconfig"
       export PKG_CONFIG_LIBDIR
       AC_MSG_NOTICE([cross-compiling: pkg-config looks in $PKG_CONFIG_LIBDIR])])])
])

# IPERF_CHECK_LINKS(NAME, CFLAGS, LIBS, PROLOGUE, BODY): the library found
# must really link for the target (a header alone is not enough).
AC_DEFUN([IPERF_CHECK_LINKS], [
  AC_MSG_CHECKING([whether $1 links for $host])
  iperf_save_CFLAGS=$CFLAGS; iperf_save_LIBS=$LIBS
  CFLAGS="$CFLAGS $2"; LIBS="$3 $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([$4], [$5])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([$1 was found but does not link for $host: install it for the target])])
  CFLAGS=$iperf_save_CFLAGS; LIBS=$iperf_save_LIBS
])

# IPERF_CHECK_STATIC(NAME, CFLAGS, LIBS, PROLOGUE, BODY): for
# --enable-static-bin, say which static library is missing.
AC_DEFUN([IPERF_CHECK_STATIC], [
  AC_MSG_CHECKING([for a static $1])
  iperf_save_CFLAGS=$CFLAGS; iperf_save_LIBS=$LIBS; iperf_save_LDFLAGS=$LDFLAGS
  CFLAGS="$CFLAGS $2"; LIBS="$3 $LIBS"; LDFLAGS="$LDFLAGS -static"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([$4], [$5])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([--enable-static-bin: no static $1 for $host. Install or build the static library, or configure without --enable-static-bin.])])
  CFLAGS=$iperf_save_CFLAGS; LIBS=$iperf_save_LIBS; LDFLAGS=$iperf_save_LDFLAGS
])
