#!/bin/sh
# scripts/check-format.sh -- check that the tracked sources follow the checked-in formatter
# configs: clang-format (.clang-format; files listed in .clang-format-ignore are not yet
# formatted) on the C and C++ sources, ruff's lint rules (pyproject.toml [tool.ruff]) on the
# Python sources.  Changes nothing; formatting is `clang-format -i FILE` by hand.
#
#   scripts/check-format.sh            check with the tools found (below)
#   scripts/check-format.sh --install  first make the pinned venv (scripts/fmt-venv.sh);
#                                      skip (77) when it cannot be made
#
# Tools: $CLANG_FORMAT / $RUFF, else the pinned venv of scripts/fmt-venv.sh, else PATH.
# Exit 0 when every check ran and passed, 1 when one failed, 77 when none failed but a
# tool was missing (its check is skipped, named on stderr).  make check runs it with
# --install (tests/check-format.sh).
set -u
cd "$(dirname "$0")/.." || exit 1

case "${1:-}" in
  "") venv=$(sh scripts/fmt-venv.sh --no-install 2> /dev/null) ;;
  --install) venv=$(sh scripts/fmt-venv.sh) || exit $? ;;
  *) echo "usage: $0 [--install]" >&2; exit 2 ;;
esac

# find VAR NAME: the tool's path from $VAR, the venv or PATH; empty when none
find_tool() {
  eval "v=\${$1:-}"
  if [ -n "$v" ]; then echo "$v"
  elif [ -n "$venv" ] && [ -x "$venv/$2" ]; then echo "$venv/$2"
  else command -v "$2" 2> /dev/null || true
  fi
}

status=0 skipped=0
skip() { echo "check-format: SKIP $1 (not found: set $2, put it on PATH or run" \
  "scripts/fmt-venv.sh for the pinned version)" >&2; skipped=1; }

cf=$(find_tool CLANG_FORMAT clang-format)
if [ -z "$cf" ]; then
  skip clang-format CLANG_FORMAT
else
  echo "check-format: $("$cf" --version)" >&2
  # -Werror turns each difference into an error; clang-format skips .clang-format-ignore's files
  git ls-files -z '*.c' '*.h' '*.cc' | xargs -0r "$cf" --dry-run -Werror || status=1
fi

ruff=$(find_tool RUFF ruff)
if [ -z "$ruff" ]; then
  skip ruff RUFF
else
  echo "check-format: $("$ruff" --version)" >&2
  git ls-files -z '*.py' | xargs -0r "$ruff" check --quiet --no-cache || status=1
fi

[ "$status" -ne 0 ] && { echo "check-format: FAILED" >&2; exit 1; }
[ "$skipped" -ne 0 ] && exit 77
echo "check-format: OK" >&2
