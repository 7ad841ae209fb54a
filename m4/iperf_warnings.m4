# IPERF_WARN_CFLAGS: probe each warning flag with -Werror and keep the ones
# the compiler accepts (so old or cross compilers drop unknown flags).
AC_DEFUN([IPERF_WARN_CFLAGS], [
  WARN_CFLAGS=
  AC_LANG_PUSH([C])
  for flag in -Wall -Wextra -Wformat=2 -Wshadow -Wpointer-arith -Wcast-qual \
      -Wwrite-strings -Wstrict-prototypes -Wmissing-prototypes \
      -Wold-style-definition -Wundef -Wvla -Wnull-dereference \
      -Wimplicit-fallthrough -Wdouble-promotion -Wconversion \
      -Wno-sign-conversion; do
    AC_MSG_CHECKING([whether $CC accepts $flag])
    save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -Werror $flag"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $flag"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$save_CFLAGS
  done
  AC_LANG_POP([C])
])

# AX_PTHREAD_SIMPLE: find how to link POSIX threads (in libc on modern glibc).
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  AC_SEARCH_LIBS([pthread_create], [pthread], [],
    [AC_MSG_ERROR([POSIX threads are required])])
  AC_DEFINE([HAVE_PTHREAD], [1], [POSIX threads available])
])
