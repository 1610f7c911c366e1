#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
# Equivalent to `autoreconf -fi`; kept so the README command is one word.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
exec autoreconf --force --install --warnings=all
