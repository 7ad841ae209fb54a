#!/bin/sh
# Regenerate the autotools files (configure, Makefile.in, build-aux/*).
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --force --install
