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
  ])
])
