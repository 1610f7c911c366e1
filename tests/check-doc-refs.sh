#!/bin/sh
# tests/check-doc-refs.sh -- every document a file cites is in the repository (run by make
# check).  Fails on
#   - a path outside the tree (../shared/..., /work/...);
#   - a bare contract name (abi.md, python.md, cpp.md, dlpack-and-addons.md) where the
#     in-repo docs/ file is meant;
#   - docs/NAME.md that does not exist, or docs/NAME.md §N / Part X without that heading.
# Files: git's tracked files in a checkout, the tree's source files otherwise (tarball).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
self=tests/check-doc-refs.sh
# (a tarball unpacked inside some checkout has no tracked files of its own: use find there)
files=$(git ls-files 2> /dev/null)
if [ -z "$files" ]; then
  # sources only: a distcheck build tree (_build) and logs sit inside this directory
  files=$(find . -path ./_build -prune -o -type f \( -name '*.[ch]' -o -name '*.cc' -o \
    -name '*.py' -o -name '*.md' -o -name '*.sh' -o -name '*.inc' -o -name '*.am' -o \
    -name '*.ac' -o -name '*.txt' -o -name '*.toml' -o -name '*.cmake' -o -name '*.[37]' \) \
    -print | sed 's|^\./||')
fi
bad=0
report() { echo "check-doc-refs: $1"; bad=1; }

# grep -I: binary files never match
outside=$(echo "$files" | grep -v "^$self\$" | xargs grep -nIE '\.\./shared/|/work/(shared|coord)' 2> /dev/null)
[ -z "$outside" ] || report "cites files outside the repository:
$outside"
bare=$(echo "$files" | grep -v "^$self\$" |
  xargs grep -nIE '(^|[^-/A-Za-z0-9_])(abi|python|cpp|dlpack-and-addons)\.md' 2> /dev/null)
[ -z "$bare" ] || report "cites a contract by its old name; cite docs/<name>.md:
$bare"

# docs/NAME.md [§N.M | Part X]
# docs/NAME.md [§N.M[, §N.M ...] | Part X]
sec_re='§ ?[0-9]+(\.[0-9]+)*'
echo "$files" | grep -v "^$self\$" |
  xargs grep -oIE "docs/[A-Za-z0-9_.-]+\\.md(,? ($sec_re((,| and|/) ?$sec_re)*|Part [A-Z]))?" 2> /dev/null |
  sort -u > "${TMPDIR:-/tmp}/doc-refs.$$"
while IFS= read -r line; do
  file=${line%%:*}
  ref=${line#*:}
  doc=$(echo "$ref" | sed -E 's/^(docs\/[A-Za-z0-9_.-]+\.md).*/\1/')
  if [ ! -f "$doc" ]; then
    report "$file cites $doc, which does not exist"
    continue
  fi
  secs=$(echo "${ref#"$doc"}" | grep -oE "$sec_re|Part [A-Z]" | sed 's/§ */§/; s/ /_/')
  for sec in $secs; do
    sec=$(echo "$sec" | sed 's/_/ /')
    pat="^#+ $(echo "$sec" | sed 's/\./\\./g')( |\$)"
    grep -qE "$pat" "$doc" || report "$file cites $doc $sec, which has no such heading"
  done
done < "${TMPDIR:-/tmp}/doc-refs.$$"
rm -f "${TMPDIR:-/tmp}/doc-refs.$$"
[ $bad -eq 0 ] && echo "check-doc-refs: every cited document is in the repository"
exit $bad
