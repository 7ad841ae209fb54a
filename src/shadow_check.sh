#!/bin/sh
# shadow_check.sh - would installing our libiperf.so.0 into LIBDIR take
# the place of another libiperf.so.0 for the programs built for it?
#
# The stock iperf3 program reads the library's private structure: loaded
# with our library it prints its usage and exits 0 on every run, silently.
# configure (warns) and `make install` (refuses) run this script; see the
# README, "Installing beside a stock iperf3".
#
# Usage: shadow_check.sh [--mode=configure|install] [--allow=yes|no]
#            [--destdir=DIR] [--ours=FILE] [--marker=TEXT] LIBDIR
#   --mode    configure: report only.  install: exit 1 on a hazard unless
#             --allow=yes or a DESTDIR is given (staging for elsewhere).
#   --ours    the libiperf.so.0 about to be installed: others of another
#             ELF class or machine are no competition (32-bit /usr/lib32).
#   --marker  text found in our own library (a previous install of ours is
#             no competition), default "iperf3-compat".
# Output on stdout: a first line "VERDICT [OTHER]" for scripts, then the
# explanation.  VERDICT: alone (no other libiperf.so.0 where the loader
# looks), unsearched (LIBDIR is not searched), HIDDEN (OTHER comes first:
# ours is not loaded by name), SHADOWS (ours comes first), OVERWRITES (OTHER
# is in LIBDIR).
# Exit: 0 nothing to refuse, 1 hazard (ours would be loaded in place of
# another libiperf.so.0), 2 usage.
#
# The model is glibc's (musl's path file is read too): the loader searches LD_LIBRARY_PATH (per process,
# ignored here), then ld.so.cache, whose entries for one name are ordered
# as ldconfig met their directories (/etc/ld.so.conf and its includes, in
# order, then the built-in system directories), the first one winning.  The
# cache is rebuilt by any later ldconfig run (every package installation
# does one), so the configuration counts, not today's cache.
# For tests: SHADOW_CHECK_LDSO_CONF (default /etc/ld.so.conf) and
# SHADOW_CHECK_SYSTEM_DIRS (default: ldconfig's built-in directories).
set -u

mode=configure
allow=no
destdir=
ours=
marker=iperf3-compat
soname=libiperf.so.0
for arg; do
	case $arg in
	--mode=*) mode=${arg#*=} ;;
	--allow=*) allow=${arg#*=} ;;
	--destdir=*) destdir=${arg#*=} ;;
	--ours=*) ours=${arg#*=} ;;
	--marker=*) marker=${arg#*=} ;;
	-*)
		echo "shadow_check.sh: unknown option $arg" >&2
		exit 2
		;;
	*) libdir=$arg ;;
	esac
done
if [ -z "${libdir:-}" ]; then
	echo "usage: shadow_check.sh [--mode=configure|install] [--allow=yes|no] [--destdir=DIR] [--ours=FILE] LIBDIR" >&2
	exit 2
fi
PATH=$PATH:/sbin:/usr/sbin
nl='
'

# canon DIR: the physical path (symbolic links resolved as far as the path
# exists: /lib/x86_64-linux-gnu is /usr/lib/x86_64-linux-gnu on merged-/usr
# systems).
canon() {
	c_dir=$1
	c_rest=
	while [ ! -d "$c_dir" ]; do
		c_rest=/${c_dir##*/}$c_rest
		c_dir=${c_dir%/*}
		[ -n "$c_dir" ] || c_dir=/
	done
	c_dir=$(cd "$c_dir" 2>/dev/null && pwd -P) || c_dir=$1
	[ "$c_dir" = / ] && c_dir=
	printf '%s\n' "$c_dir$c_rest" | sed 's|//*|/|g; s|/$||'
}

# conf_dirs FILE: the directories of an ld.so.conf, includes expanded in
# place (relative include patterns are relative to the file's directory).
conf_dirs() {
	[ -r "$1" ] || return 0
	sed 's/#.*//' "$1" | while read -r word rest; do
		case $word in
		'') ;;
		include)
			for pat in $rest; do
				case $pat in /*) ;; *) pat=${1%/*}/$pat ;; esac
				for f in $pat; do
					[ -f "$f" ] && conf_dirs "$f"
				done
			done
			;;
		hwcap) ;;
		*)
			for d in $word $rest; do
				printf '%s\n' "${d%%=*}"
			done
			;;
		esac
	done
}

# The built-in directories glibc's ldconfig adds after ld.so.conf's (it
# lists those that exist when given an empty configuration).
system_dirs() {
	if [ -n "${SHADOW_CHECK_SYSTEM_DIRS+set}" ]; then
		for d in $SHADOW_CHECK_SYSTEM_DIRS; do printf '%s\n' "$d"; done
		return
	fi
	out=
	case $(ldconfig --version 2>/dev/null | sed 1q) in
	*GLIBC* | *"GNU libc"*)
		out=$(ldconfig -v -N -X -f /dev/null 2>/dev/null |
			sed -n 's/^\([^[:space:]][^:]*\):.*/\1/p')
		;;
	esac
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
	else
		printf '%s\n' /lib /usr/lib
	fi
}

# musl's loader, not glibc's, will load our library: it was linked
# against musl (its libc is "libc.so", glibc's "libc.so.6"), or, before it
# is built, this machine has musl's loader and no glibc ldconfig.  (A
# glibc system may have musl installed beside it.)
uses_musl() {
	[ -z "${SHADOW_CHECK_LDSO_CONF:-}" ] || return 1
	ls /lib/ld-musl-* >/dev/null 2>&1 || return 1
	if [ -n "$ours" ] && [ -f "$ours" ]; then
		! grep -q 'libc\.so\.6' "$ours"
		return
	fi
	case $(ldconfig --version 2>/dev/null | sed 1q) in
	*GLIBC* | *"GNU libc"*) return 1 ;;
	esac
	return 0
}

# The loader's directories in search order.  musl reads its own path file
# (or searches /lib, /usr/local/lib, /usr/lib); glibc, ld.so.conf and then
# its built-in directories.  (glibc-hwcaps subdirectories are left out.)
loader_dirs() {
	if uses_musl; then
		for f in /etc/ld-musl-*.path; do
			if [ -f "$f" ]; then
				tr ':' '\n' <"$f"
				return
			fi
		done
		printf '%s\n' /lib /usr/local/lib /usr/lib
		return
	fi
	conf_dirs "${SHADOW_CHECK_LDSO_CONF:-/etc/ld.so.conf}"
	system_dirs
}

# Canonical, each once, one per line.
order=$(loader_dirs | while read -r d; do
	case $d in /*) canon "$d" ;; esac
done | awk '!seen[$0]++')

# ELF class, byte order and machine of a file ("" if not ELF).
elf_id() {
	od -An -tx1 -v -N20 "$1" 2>/dev/null | tr -d ' \n' |
		sed -n 's/^7f454c46\(....\).\{24\}\(....\)$/\1 \2/p'
}

# owner FILE: "Debian package P V" when dpkg knows the file.
owner() {
	command -v dpkg >/dev/null 2>&1 || return 0
	for p in "$1" "$(canon "${1%/*}")/${1##*/}"; do
		pkg=$(dpkg -S "$p" 2>/dev/null | sed -n '1s/: .*//p')
		if [ -n "$pkg" ]; then
			ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)
			printf 'Debian package %s %s' "$pkg" "$ver"
			return 0
		fi
	done
}

# Programs named iperf3 on PATH (and the usual places) built for a
# libiperf.so.0: the stock program, which cannot run on ours.
stock_programs() {
	{
		command -v iperf3 2>/dev/null
		echo /usr/bin/iperf3
		echo /usr/local/bin/iperf3
	} | awk '!seen[$0]++' | while read -r p; do
		[ -f "$p" ] || continue
		case $(elf_id "$p") in '') continue ;; esac
		grep -q "$soname" "$p" 2>/dev/null && ! grep -q "$marker" "$p" 2>/dev/null &&
			printf '%s\n' "$p"
	done
}

target=$(canon "$libdir")
ours_id=
[ -n "$ours" ] && [ -f "$ours" ] && ours_id=$(elf_id "$ours")

pos=0
tpos=
competitors=
save_ifs=$IFS
IFS=$nl
for d in $order; do
	pos=$((pos + 1))
	[ "$d" = "$target" ] && [ -z "$tpos" ] && tpos=$pos
	f=$d/$soname
	[ -e "$f" ] || continue
	grep -q "$marker" "$f" 2>/dev/null && continue # ours, installed before
	if [ -n "$ours_id" ] && [ "$(elf_id "$f")" != "$ours_id" ]; then
		continue # another ELF class or machine
	fi
	competitors="$competitors$pos $f$nl"
done
IFS=$save_ifs

verdict=alone
other=
text=
detail=
for_each_competitor() {
	printf '%s' "$competitors" | while read -r cpos cfile; do
		[ -n "$cfile" ] || continue
		if [ "$cpos" -eq "$tpos" ]; then
			echo "OVERWRITES $cfile"
		elif [ "$cpos" -gt "$tpos" ]; then
			echo "SHADOWS $cfile"
		else
			echo "HIDDEN $cfile"
		fi
	done
}
first=$(printf '%s' "$competitors" | sed -n '1s/^[0-9]* //p')
if [ -z "$competitors" ]; then
	if [ -z "$tpos" ]; then
		verdict=unsearched
		text="$target is not searched by the dynamic loader: programs using the library need an rpath or LD_LIBRARY_PATH (iperf3 needs neither)."
	else
		verdict=alone
	fi
elif [ -z "$tpos" ]; then
	verdict=unsearched
	other=$first
	text="$target is not searched by the dynamic loader, so it cannot take the place of $other.  Programs using the library need an rpath or LD_LIBRARY_PATH (iperf3 needs neither)."
else
	worst=$(for_each_competitor | awk '
		/^OVERWRITES/ { o = $0 } /^SHADOWS/ { if (s == "") s = $0 }
		/^HIDDEN/ { if (h == "") h = $0 }
		END { print (o != "" ? o : s != "" ? s : h) }')
	verdict=${worst%% *}
	other=${worst#* }
	who=$(owner "$other")
	progs=$(stock_programs | tr '\n' ' ')
	case $verdict in
	OVERWRITES)
		text="$other${who:+ ($who)} is in $target: installing would replace it with ours."
		;;
	SHADOWS)
		text="$target comes before ${other%/*} in the dynamic loader's search order: programs that load $soname would load ours in place of $other${who:+ ($who)}."
		;;
	HIDDEN)
		text="${other%/*} comes before $target in the dynamic loader's search order: programs that load $soname by name get $other${who:+ ($who)}, not ours."
		;;
	esac
	detail="The stock iperf3 program${progs:+ (here: ${progs% })} reads the private structure of the library it was built for: loaded with ours it prints its usage and exits 0 on every run, without an error.  Programs that use only the public API are not affected, and our own iperf3 does not load $soname (the library code is linked into it)."
	[ "$verdict" = HIDDEN ] && detail="Our iperf3 is not affected (it does not load $soname); iperf3-python and programs linked with -liperf without an rpath are."
fi

# Line 1 for scripts, then the text for people.
echo "$verdict${other:+ $other}"
for para in "$text" "$detail"; do
	[ -n "$para" ] && printf '%s\n' "$para" | fold -s -w 76 | sed 's/ *$//'
done
case $verdict in
SHADOWS | OVERWRITES) ;;
*) exit 0 ;;
esac

cat <<EOF
Ways out (reconfigure, then make install again):
  * a prefix the loader does not search, e.g.
      configure --prefix=/opt/iperf3-compat
  * the program on PATH, the library in a private directory:
      configure --libdir='\${prefix}/lib/iperf3-compat'
    (programs using it link with -Wl,-rpath,<that directory>)
  * no shared library at all: configure --disable-shared
  * remove the other library first (Debian: apt-get remove iperf3 libiperf0)
  * replace it knowingly: configure --enable-replace-libiperf
    (or make install REPLACE_LIBIPERF=yes)
EOF
[ "$mode" = install ] || exit 1
if [ -n "$destdir" ]; then
	echo "DESTDIR is set: staging for another machine, not refused here."
	exit 0
fi
if [ "$allow" = yes ]; then
	echo "Installing anyway (--enable-replace-libiperf / REPLACE_LIBIPERF=yes)."
	exit 0
fi
exit 1
