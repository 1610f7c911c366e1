#!/bin/sh
# tests/check-format.sh -- make check's run of scripts/check-format.sh (clang-format and ruff
# over the tracked sources) with the pinned formatters, which scripts/fmt-venv.sh installs
# into its cached venv on first use.  Skips (77) outside a git checkout (a release tarball,
# distcheck: check-format.sh lists the tracked files) and when the venv cannot be made
# (offline, no venv module).
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top=$(git -C "$srcdir" rev-parse --show-toplevel 2> /dev/null)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$srcdir" && pwd -P)" ]; then
  echo "SKIP: $srcdir is not the top of a git checkout"
  exit 77
fi
exec sh "$srcdir/scripts/check-format.sh" --install
