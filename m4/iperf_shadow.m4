# IPERF_SHADOW_CHECK: would `make install` put our libiperf.so.0 where the
# dynamic loader takes it in place of another libiperf.so.0 (Debian's
# libiperf0, whose iperf3 then prints its usage and exits 0 on every run)?
# Runs src/shadow_check.sh on the final libdir and sets:
#   iperf_shadow_verdict  one line for the configure summary
#   iperf_shadow_report   the explanation, printed as a warning at the end
#                         of configure when there is a hazard
# and AC_SUBSTs SHADOW_CHECK (yes/no: `make install` checks again, since
# the system can change in between) and REPLACE_LIBIPERF (from
# --enable-replace-libiperf: install anyway).  Configure only warns: a
# build that is never installed is harmless; `make install` refuses.
AC_DEFUN([IPERF_SHADOW_CHECK], [
  AC_ARG_ENABLE([replace-libiperf],
    [AS_HELP_STRING([--enable-replace-libiperf],
      [install libiperf.so.0 even where the dynamic loader would load it in
       place of another libiperf.so.0 (such as Debian's libiperf0, whose
       iperf3 then stops working); by default make install refuses])],
    [AS_CASE([$enableval], [yes|no], [],
       [AC_MSG_ERROR([bad value $enableval for --enable-replace-libiperf])])],
    [enable_replace_libiperf=no])
  AC_SUBST([REPLACE_LIBIPERF], [$enable_replace_libiperf])
  SHADOW_CHECK=yes
  iperf_shadow_report=
  AC_MSG_CHECKING([whether libiperf.so.0 in libdir would shadow another one])
  AS_IF([test "x$enable_shared" = xno],
    [SHADOW_CHECK=no
     iperf_shadow_verdict="no shared library is built"],
    [test "x$cross_compiling" = xyes],
    [SHADOW_CHECK=no
     iperf_shadow_verdict="not checked (cross-compiling: this machine's loader is not the target's)"],
    [dnl libdir as make will see it: ${exec_prefix}/lib with the defaults.
     iperf_save_prefix=$prefix; iperf_save_exec_prefix=$exec_prefix
     test "x$prefix" = xNONE && prefix=$ac_default_prefix
     test "x$exec_prefix" = xNONE && exec_prefix=$prefix
     iperf_libdir=$libdir
     while :; do
       case $iperf_libdir in
       *'$'*) eval iperf_libdir=\"$iperf_libdir\" ;;
       *) break ;;
       esac
     done
     prefix=$iperf_save_prefix; exec_prefix=$iperf_save_exec_prefix
     iperf_shadow_out=`sh "$srcdir/src/shadow_check.sh" --mode=configure \
       --marker="$PACKAGE_NAME" "$iperf_libdir"`
     iperf_shadow_rc=$?
     _AS_ECHO_LOG([shadow_check.sh $iperf_libdir: exit $iperf_shadow_rc])
     echo "$iperf_shadow_out" >&AS_MESSAGE_LOG_FD
     iperf_shadow_line=`echo "$iperf_shadow_out" | sed 1q`
     iperf_shadow_other=`echo "$iperf_shadow_line" | sed -n 's/^[[^ ]]* //p'`
     AS_IF([test "x$enable_replace_libiperf" = xyes],
       [iperf_shadow_then="replacing it (--enable-replace-libiperf)"],
       [iperf_shadow_then="make install will refuse"])
     AS_CASE([$iperf_shadow_line],
       [SHADOWS*],
       [iperf_shadow_verdict="YES: would be loaded in place of $iperf_shadow_other; $iperf_shadow_then"],
       [OVERWRITES*],
       [iperf_shadow_verdict="YES: would overwrite $iperf_shadow_other; $iperf_shadow_then"],
       [HIDDEN*],
       [iperf_shadow_verdict="no, but $iperf_shadow_other is found first (programs loading libiperf.so.0 by name get that one)"],
       [unsearched*],
       [iperf_shadow_verdict="no ($iperf_libdir is not on the loader's path)"],
       [iperf_shadow_verdict="no (no other libiperf.so.0 where the loader looks)"])
     AS_CASE([$iperf_shadow_line],
       [SHADOWS*|OVERWRITES*|HIDDEN*],
       [iperf_shadow_report="libiperf.so.0 into $iperf_libdir:
`echo "$iperf_shadow_out" | sed 1d`"])])
  AC_MSG_RESULT([$iperf_shadow_verdict])
  AC_SUBST([SHADOW_CHECK])
])

# IPERF_SHADOW_REPORT: repeat the hazard as the last thing configure says.
AC_DEFUN([IPERF_SHADOW_REPORT], [
  AS_IF([test -n "$iperf_shadow_report"],
    [AC_MSG_WARN([$iperf_shadow_report
])])
])
