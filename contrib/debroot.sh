#!/bin/sh
# debroot.sh DIR - a fresh minimal Debian root (debootstrap --variant=minbase)
# in DIR, from the mirror this machine's apt uses.
# debroot.sh --check - only says which mirror and whether it answers.
#
# For tests that install packages somewhere other than this machine
# (tests/scripts/debpkg.test installs our .debs there, never on the host)
# and for images built from a Debian root.  Needs root and debootstrap.
#
# Idempotent: a DIR this script completed (DIR/.debroot-done) is left as
# it is; a DIR left half-made by an interrupted debootstrap (DIR/debootstrap/
# still there) is emptied and made again; any other non-empty DIR is
# refused.  Each attempt is bounded (DEBROOT_TIMEOUT seconds, default 600)
# and a failed one is retried (DEBROOT_TRIES, default 3), since a mirror
# can fail for a moment ("Mirror sync in progress", a reset connection).
#
# Environment:
#   DEBROOT_SUITE    the release (default bookworm, this project's CI's)
#   DEBROOT_MIRROR   the mirror (default: the first one this machine's apt
#                    sources list for that suite; else deb.debian.org)
#   DEBROOT_INCLUDE  extra packages, comma-separated (debootstrap --include)
#
# Exit status: 0 done, 1 failed, 2 usage or not possible here (not root,
# no debootstrap, DIR not ours), 3 the mirror cannot be reached.  The
# mirror used is printed ("debroot.sh: mirror URL").
set -u
me=debroot.sh
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $me DIR | --check" >&2
	exit 2
fi
dir=$1
check=0
[ "$dir" = --check ] && check=1
suite=${DEBROOT_SUITE:-bookworm}
tries=${DEBROOT_TRIES:-3}
limit=${DEBROOT_TIMEOUT:-600}

if [ $check = 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "$me: needs root (debootstrap)" >&2
	exit 2
fi
if ! command -v debootstrap >/dev/null 2>&1; then
	echo "$me: debootstrap not installed (apt-get install debootstrap)" >&2
	exit 2
fi

# The mirror of this machine's apt sources that serves $suite: one-line
# sources ("deb [opts] URI SUITE COMPONENTS") and deb822 ones (URIs: and
# Suites: in one stanza).
host_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			function flush() {
				if (deb && uri != "" && suites ~ ("(^| )" s "( |$)"))
					{ print uri; found = 1 }
				deb = 0; uri = ""; suites = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); if (found) exit; next }
			tolower($1) == "types:" { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { $1 = ""; suites = $0; sub(/^ +/, "", suites) }
			END { if (!found) flush() }
		' "$f"
	done
}
mirror=${DEBROOT_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(host_mirror | grep -E '^https?://' | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
mirror=${mirror%/}
echo "$me: mirror $mirror ($suite)"

if [ $check = 0 ] && [ -f "$dir/.debroot-done" ]; then
	echo "$me: $dir is already a $suite root"
	exit 0
fi
if [ $check = 0 ] && [ -d "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ] &&
    [ ! -d "$dir/debootstrap" ]; then
	echo "$me: $dir is not empty and not a root this script began: not touching it" >&2
	exit 2
fi

# Reachable at all?  (A machine without the network skips, not fails.)
reachable() {
	if command -v wget >/dev/null 2>&1; then
		wget -q -T 20 -t 1 -O /dev/null "$mirror/dists/$suite/Release"
	else
		curl -fsS -m 20 -o /dev/null "$mirror/dists/$suite/Release"
	fi
}
i=0
until reachable; do
	i=$((i + 1))
	if [ $i -ge "$tries" ]; then
		echo "$me: $mirror/dists/$suite/Release cannot be fetched" >&2
		exit 3
	fi
	sleep $((i * 5))
done
if [ $check = 1 ]; then
	echo "$me: $mirror answers"
	exit 0
fi

clean_half_made() {
	# Only what an interrupted debootstrap left (it removes debootstrap/
	# when it completes), never mounts: it mounts proc and sys in the
	# target while it works.
	for m in $(awk -v d="$(cd "$dir" && pwd -P)" \
	    'index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$dir"
}

include=
[ -n "${DEBROOT_INCLUDE:-}" ] && include="--include=$DEBROOT_INCLUDE"
i=0
while :; do
	[ -d "$dir/debootstrap" ] && clean_half_made
	mkdir -p "$dir"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" debootstrap --variant=minbase $include \
		"$suite" "$dir" "$mirror" > "$dir.debootstrap.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -x "$dir/usr/bin/apt-get" ]; then
		rm -f "$dir.debootstrap.log"
		date -u +%Y-%m-%dT%H:%M:%SZ > "$dir/.debroot-done"
		echo "$me: $dir: $suite minbase root in $(($(date +%s) - t0)) s"
		exit 0
	fi
	i=$((i + 1))
	echo "$me: debootstrap failed (exit $rc, attempt $i/$tries):" >&2
	tail -5 "$dir.debootstrap.log" >&2
	if [ $i -ge "$tries" ]; then
		echo "$me: see $dir.debootstrap.log" >&2
		exit 1
	fi
	# The next attempt starts from nothing.
	mkdir -p "$dir/debootstrap"
	sleep $((i * 5))
done
