# tests/host/host-venv.sh -- sourced by the host tests: host_venv VENV PROBE PACKAGE [MORE...]
# makes sure the cached venv VENV has PACKAGE (a pip requirement, pinned) and MORE installed,
# the Python code PROBE running there; it (re)creates the venv with $PYTHON (python3)
# otherwise, and exits 77 (skip) with the reason when it cannot.
host_venv() {
  hv_venv=$1 hv_probe=$2 hv_pkg=$3
  shift 3
  "$hv_venv/bin/python" -c "$hv_probe" > /dev/null 2>&1 && return 0
  hv_py=${PYTHON:-python3}
  command -v "$hv_py" > /dev/null 2>&1 || { echo "SKIP: no python interpreter ($hv_py)"; exit 77; }
  rm -rf "$hv_venv"
  mkdir -p "$(dirname "$hv_venv")"
  "$hv_py" -m venv "$hv_venv" > /dev/null 2>&1 || { echo "SKIP: $hv_py cannot make a venv"; exit 77; }
  "$hv_venv/bin/python" -m pip install -q "$hv_pkg" "$@" > "$hv_venv.log" 2>&1 ||
    { echo "SKIP: pip could not install $hv_pkg (see $hv_venv.log)"; exit 77; }
  "$hv_venv/bin/python" -c "$hv_probe" > /dev/null 2>&1 ||
    { echo "SKIP: $hv_pkg does not import in $hv_venv"; exit 77; }
}
