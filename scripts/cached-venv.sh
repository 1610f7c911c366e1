# scripts/cached-venv.sh -- sourced by the scripts that keep a venv in the cache
# (apache-venv.sh, pypy-venv.sh): one place for the locking, creation and pip
# steps, so both skip (exit 77) the same way when the venv cannot be made.
#
# The sourcing script sets: venv (its directory), tag (the prefix of its
# messages), and defines probe() (succeeds when the venv is usable) and
# report() (prints the result and exits 0).  Then:
#   cached_venv INTERPRETER HINT PACKAGE...
# reuses the venv when probe() passes, else creates it with INTERPRETER
# (HINT: how to get the venv module) and pip-installs the packages.

skip() { echo "$tag: $*" >&2; exit 77; }

cached_venv() {
  py=$1 hint=$2
  shift 2
  probe > /dev/null && report
  mkdir -p "$(dirname "$venv")" || skip "cannot create $(dirname "$venv")"
  # Parallel tests (make -j) may all arrive here: one creates, the others wait.
  if command -v flock > /dev/null 2>&1; then
    exec 9> "$venv.lock" && flock 9
    probe > /dev/null && report
  fi
  command -v "$py" > /dev/null 2>&1 || skip "no interpreter $py to create the venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version > /dev/null 2>&1; then
    rm -rf "$venv"
    "$py" -m venv "$venv" > /dev/null 2>&1 ||
      { rm -rf "$venv"; skip "'$py -m venv' failed ($hint)"; }
    "$venv/bin/python" -m pip --version > /dev/null 2>&1 ||
      { rm -rf "$venv"; skip "the venv has no pip"; }
  fi
  echo "$tag: installing $* into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@" \
    < /dev/null > "$venv.pip.log" 2>&1 ||
    skip "pip could not install $* (offline?); see $venv.pip.log"
  probe > /dev/null || skip "the venv's packages do not import; see $venv.pip.log"
  report
}
