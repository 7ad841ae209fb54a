# IPERF_SMALL_DEFAULT_CFLAGS: for --enable-small, make -Os the default
# optimisation.  Expand before AC_PROG_CC (which would set "-g -O2"); a
# CFLAGS given by the user is left alone.
AC_DEFUN([IPERF_SMALL_DEFAULT_CFLAGS], [
  AC_ARG_ENABLE([small],
    [AS_HELP_STRING([--enable-small],
       [optimize for size (embedded builds): -Os unless CFLAGS is given, one
        section per function and data object, and unused sections dropped
        at link time (--gc-sections)])])
  AS_IF([test "x$enable_small" = xyes && test "x${CFLAGS+set}" != xset],
    [CFLAGS="-g -Os"])
])

# IPERF_SMALL_FLAGS: for --enable-small, add the section and link flags
# that the compiler and linker accept (each probed on its own).
AC_DEFUN([IPERF_SMALL_FLAGS], [
  AS_IF([test "x$enable_small" = xyes], [
    AC_LANG_PUSH([C])
    for flag in -ffunction-sections -fdata-sections; do
      AC_MSG_CHECKING([whether $CC accepts $flag])
      iperf_save_CFLAGS=$CFLAGS
      CFLAGS="$CFLAGS -Werror $flag"
      AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
        [AC_MSG_RESULT([yes]); CFLAGS="$iperf_save_CFLAGS $flag"],
        [AC_MSG_RESULT([no]); CFLAGS=$iperf_save_CFLAGS])
    done
    AC_MSG_CHECKING([whether the linker accepts -Wl,--gc-sections])
    iperf_save_LDFLAGS=$LDFLAGS
    LDFLAGS="$LDFLAGS -Wl,--gc-sections"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); LDFLAGS=$iperf_save_LDFLAGS])
    AC_LANG_POP([C])
    IPERF_SMALL_LTO
  ])
])

# IPERF_SMALL_LTO: link-time optimisation for --enable-small (about 4 KB
# less on armhf), unless --disable-lto, and only where an LTO object put in
# an archive by $AR links: the library is an archive inside the build.
AC_DEFUN([IPERF_SMALL_LTO], [
  AC_ARG_ENABLE([lto],
    [AS_HELP_STRING([--disable-lto],
       [no link-time optimisation in --enable-small builds])])
  AS_IF([test "x$enable_lto" != xno], [
    dnl -flto=auto: parallel, and no "serial compilation" warning (which
    dnl --enable-werror would turn into an error)
    iperf_lto=-flto=auto
    AC_MSG_CHECKING([whether $iperf_lto objects link from an archive])
    cat > conftest_lto1.c <<_IPERF_EOF
int iperf_lto_probe(int v);
int iperf_lto_probe(int v) { return v - 42; }
_IPERF_EOF
    cat > conftest_lto2.c <<_IPERF_EOF
int iperf_lto_probe(int v);
int main(void) { return iperf_lto_probe(42); }
_IPERF_EOF
    rm -f libconftest_lto.a
    AS_IF([$CC $CPPFLAGS $CFLAGS $iperf_lto -c conftest_lto1.c \
             -o conftest_lto1.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1 &&
           $AR cr libconftest_lto.a conftest_lto1.$OBJEXT \
             >&AS_MESSAGE_LOG_FD 2>&1 &&
           $CC $CFLAGS $iperf_lto $LDFLAGS conftest_lto2.c libconftest_lto.a \
             -o conftest_lto$EXEEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes]); CFLAGS="$CFLAGS $iperf_lto"; LDFLAGS="$LDFLAGS $iperf_lto"],
      [AC_MSG_RESULT([no])])
    rm -f conftest_lto1.c conftest_lto2.c conftest_lto1.$OBJEXT \
      libconftest_lto.a conftest_lto$EXEEXT
  ])
])

# IPERF_STATIC_NO_PIE: a fully static program (--enable-static-bin) is
# linked at a fixed address, not as PIE, so its code need not be
# position-independent either: compile with -fno-pie and link with
# -no-pie where the compiler takes both (Debian's gcc makes PIE code by
# default; in a fixed-address program that costs instructions and puts
# constant tables of pointers in the writable, relocated part).  Expand
# after the link checks that need the default flags.
AC_DEFUN([IPERF_STATIC_NO_PIE], [
  AS_IF([test "x$enable_static_bin" = xyes], [
    AC_LANG_PUSH([C])
    AC_MSG_CHECKING([whether $CC compiles and links with -fno-pie -no-pie])
    iperf_save_CFLAGS=$CFLAGS
    iperf_save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS -fno-pie"
    LDFLAGS="$LDFLAGS -no-pie"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); CFLAGS=$iperf_save_CFLAGS
       LDFLAGS=$iperf_save_LDFLAGS])
    AC_LANG_POP([C])
  ])
])
