# tests/python/find-python.sh -- sourced by the tests that run on every supported Python
# version present (test_wheel_pythons.sh).
# find_python 3.N: the newest pyenv install of 3.N, else a python3.N on PATH that runs (not a
# pyenv shim that only says where it would be); prints its path, fails when there is none.
find_python() {
  p=
  for d in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*; do
    [ -x "$d/bin/python$1" ] && p="$d/bin/python$1"
  done
  [ -n "$p" ] || p=$(command -v "python$1" 2> /dev/null) || return 1
  "$p" -c pass > /dev/null 2>&1 && echo "$p"
}
