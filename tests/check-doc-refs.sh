#!/bin/sh
# tests/check-doc-refs.sh -- every document a file cites is in the repository (run by make
# check).  Fails on
#   - a path outside the tree (../shared/..., /work/...);
#   - a bare contract name (abi.md, python.md, cpp.md, dlpack-and-addons.md) where the
#     in-repo docs/ file is meant;
#   - docs/NAME.md that does not exist, or docs/NAME.md §N / Part X without that heading;
#   - a Markdown link [text](target) of a .md file to a file that does not exist, or to an
#     #anchor that no heading of the target makes (GitHub's anchors);
#   - a citation by heading, `PATH.md, "Heading"` or `README "Heading"` (the top README),
#     when no heading of PATH (or lead of a list item) starts with that text;
#   - a code block marked `<!-- excerpt of PATH -->` (the line before its fence) with a line
#     that PATH does not have (indentation aside; blank lines and `...` are elisions): what
#     the README shows of the quickstarts is what `make check` runs and expects.
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

# slugs FILE: the anchor of each heading outside code fences, as GitHub makes them (lower case,
# only letters, digits, blanks, '-' and '_' kept, blanks to '-', "-N" on the Nth repeat)
slugs() {
  awk '/^```/ { fence = !fence; next }
    fence { next }
    /^#+ / { h = $0; sub(/^#+ +/, "", h); sub(/ +#+ *$/, "", h)
      h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
      n = seen[h]++; print (n ? h "-" n : h) }' "$1"
}
# has_title FILE TITLE: a heading outside code fences (a leading "§N " aside) or the lead of a
# top-level list item starts with TITLE, followed by nothing, a blank or punctuation
has_title() {
  awk -v t="$2" '/^```/ { fence = !fence; next }
    fence { next }
    /^#+ / || /^- / { h = $0; sub(/^(#+|-) +/, "", h); sub(/^§[0-9.]+ /, "", h); sub(/^\*\*/, "", h)
      if (index(h, t) == 1 && substr(h, length(t) + 1, 1) ~ /^([ :(.,*]|)$/) found = 1 }
    END { exit !found }' "$1"
}
md_files=$(echo "$files" | grep '\.md$')
# [text](target) outside code fences and inline code: FILE<tab>TARGET
# shellcheck disable=SC2086  # one file name per word
awk '/^```/ { fence = !fence; next }
  fence { next }
  { line = $0; gsub(/`[^`]*`/, "", line)
    while (match(line, /\]\([^) ]+\)/)) {
      print FILENAME "\t" substr(line, RSTART + 2, RLENGTH - 3)
      line = substr(line, RSTART + RLENGTH) } }' $md_files > "${TMPDIR:-/tmp}/doc-links.$$"
tab=$(printf '\t')
while IFS=$tab read -r file target; do
  case $target in *://* | mailto:*) continue ;; esac
  path=${target%%#*}
  anchor=
  case $target in *"#"*) anchor=${target#*#} ;; esac
  if [ -z "$path" ]; then dest=$file; else dest=$(dirname "$file")/$path; fi
  if [ ! -e "$dest" ]; then
    report "$file links to $target, which does not exist"
  elif [ -n "$anchor" ] && ! slugs "$dest" | grep -qxF -- "$anchor"; then
    report "$file links to $target: no heading of $dest makes that anchor"
  fi
done < "${TMPDIR:-/tmp}/doc-links.$$"
rm -f "${TMPDIR:-/tmp}/doc-links.$$"

# PATH.md, "Heading" / README "Heading": FILE:PATH<tab>HEADING
echo "$files" | grep -v "^$self\$" |
  xargs grep -oIE '([A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md`?,? \(?"[^"]+"|(^|[^A-Za-z0-9_./-])README`?[,:]? \(?"[^"]+"' 2> /dev/null |
  sed -E 's/^([^:]*):[^A-Za-z0-9_.]*/\1:/; s/`?,? \(?"/\t/; s/`?[,:]? \(?"/\t/; s/"$//' |
  sort -u > "${TMPDIR:-/tmp}/doc-titles.$$"
while IFS=$tab read -r ref title; do
  file=${ref%%:*}
  doc=${ref#*:}
  [ "$doc" = README ] && doc=README.md
  if [ ! -f "$doc" ]; then
    report "$file cites \"$title\" of $doc, which does not exist"
  elif ! has_title "$doc" "$title"; then
    report "$file cites \"$title\" of $doc, which has no such heading"
  fi
done < "${TMPDIR:-/tmp}/doc-titles.$$"
rm -f "${TMPDIR:-/tmp}/doc-titles.$$"

# shellcheck disable=SC2086  # one file name per word
excerpts=$(awk 'function strip(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
  function load(f,   l, r) { if (f in loaded) return loaded[f]
    while ((r = getline l < f) > 0) have[f, strip(l)] = 1
    close(f); return loaded[f] = (r == 0) }
  block && /^```/ { block = 0; next }
  block { l = strip($0)
    if (ok && l != "" && l != "..." && !((src, l) in have))
      print FILENAME ":" FNR ": not a line of " src ": " l
    next }
  marked && /^```/ { block = 1; marked = 0; ok = load(src)
    if (!ok) print FILENAME ":" FNR ": excerpt of " src ", which does not exist"
    next }
  { marked = 0 }
  /^<!-- excerpt of [^ ]+ -->$/ { src = $4; marked = 1 }' $md_files)
[ -z "$excerpts" ] || report "excerpts that differ from their source:
$excerpts"
[ $bad -eq 0 ] && echo "check-doc-refs: every cited document, section, link and excerpt is in the repository"
exit $bad
