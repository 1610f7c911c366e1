#!/bin/sh
# scripts/run-gpu-tests.sh -- every check that needs an NVIDIA GPU, in one run, for a machine
# that has one (CI has none: there each step skips or passes, saying what is missing):
#   1. tests/cpp/check-cuda.sh        the CUDA headers and examples compile with nvcc
#   2. tests/cpp/check-cubin-launcher.sh  embed a fatbin, load it, launch it
#   3. pytest: the CUDA examples on torch tensors (test_cuda_examples.py) and our files with
#      CUDA paths (streams, DLPack, JIT, torch add-on, asdlpack)
#   4. upstream's GPU-using Python tests (tests/conformance/run_conformance.py)
#   5. --bench: bench/bench_upstream.py --only dlpack (its CUDA rows), ours against apache
#   6. --oracle: upstream's cubin-launcher and stream files with the apache wheel, the
#      reference for step 4's outcome there
#
#   scripts/run-gpu-tests.sh [--oracle] [--bench]
#
# Environment: top_builddir (default: the checkout) is the build whose c/.libs and
# python/tvm_ffi are used; PYTHON (python3); NVCC; TVM_FFI_SDIST_CACHE (where
# scripts/fetch-upstream-sdist.sh finds the sdist); TVMFFI_APACHE_WHEEL, an apache-tvm-ffi
# wheel installed offline for --oracle/--bench (default: scripts/apache-venv.sh).
# Prints one line per step at the end; exits 1 when a step failed.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
top_builddir=$(cd "${top_builddir:-$top_srcdir}" && pwd)
PYTHON=${PYTHON:-python3}
TVMFFI_LIBDIR=$top_builddir/c/.libs
export top_srcdir top_builddir PYTHON TVMFFI_LIBDIR
oracle=0 bench=0
for a in "$@"; do
  case $a in
    --oracle) oracle=1 ;;
    --bench) bench=1 ;;
    *) echo "usage: $0 [--oracle] [--bench]" >&2; exit 2 ;;
  esac
done
cd "$top_srcdir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TVM_FFI_CACHE_DIR=$tmp/jit-cache  # JIT builds start cold, as on a fresh machine
export TVM_FFI_CACHE_DIR
summary=""

step() {
  name=$1
  shift
  echo "==== $name: $*"
  t0=$(date +%s)
  "$@"
  rc=$?
  case $rc in 0) st=PASS ;; 77) st=SKIP ;; *) st="FAIL (exit $rc)" ;; esac
  summary="$summary$(printf '%-14s %-16s %4ss' "$name" "$st" $(($(date +%s) - t0)))
"
}

device_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 ||
    echo "nvidia-smi: not available"
  "${NVCC:-nvcc}" --version 2>&1 | tail -1
  "$PYTHON" -c 'import sys, torch
gpu = torch.cuda.is_available() and torch.cuda.get_device_name(0)
print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda,
      "gpu:", gpu or "none")' 2>&1
  return 0
}

# upstream's GPU-using test files, run unchanged but for one gate: test_cubin_launcher.py
# skips unless torch's CUDA is *newer* than 13.0 (`> (13, 0)`), which leaves it skipped under
# a cu130 torch; the copy this step runs accepts 13.0 itself (`>=`)
UPSTREAM_GPU_FILES="test_cubin_launcher.py test_current_work_stream_gpu.py test_stream.py
  test_tensor.py test_dlpack_exchange_api.py test_load_inline.py test_device.py
  test_optional_torch_c_dlpack.py test_container_dlpack_conversion.py"

prepare_sdist() {
  sdist=$(sh scripts/fetch-upstream-sdist.sh) || return 77
  base=$(basename "$sdist")
  mkdir -p "$tmp/sdist/$base" && cp -R "$sdist/tests" "$tmp/sdist/$base/" || return 1
  f=$tmp/sdist/$base/tests/python/test_cubin_launcher.py
  sed 's/version_parts > (13, 0)/version_parts >= (13, 0)/' "$f" > "$f.new" && mv "$f.new" "$f"
  grep -q 'version_parts >= (13, 0)' "$f" || echo "note: test_cubin_launcher.py's CUDA gate not found"
  TVMFFI_CONFORMANCE_CACHE=$tmp/sdist
  export TVMFFI_CONFORMANCE_CACHE
}

# an offline apache-tvm-ffi: the wheel installed into a folder, behind a python wrapper laid
# out as the venv scripts/apache-venv.sh reuses
apache_from_wheel() {
  [ -n "${TVMFFI_APACHE_WHEEL:-}" ] || return 0
  v=$tmp/apache-venv
  mkdir -p "$v/bin" &&
    "$PYTHON" -m pip install -q --no-index --no-deps --target "$v/site" "$TVMFFI_APACHE_WHEEL" ||
    return 1
  printf '#!/bin/sh\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec %s "$@"\n' \
    "$v/site" "$(command -v "$PYTHON")" > "$v/bin/python" && chmod +x "$v/bin/python"
  TVMFFI_APACHE_VENV=$v
  export TVMFFI_APACHE_VENV
}

run_pytest() {
  # shellcheck source=tests/python/pytest-env.sh
  . tests/python/pytest-env.sh
  PYTHONPATH=$top_srcdir/addons/asdlpack/python:$PYTHONPATH "$PYTHON" -m pytest -q -rs \
    -p no:cacheprovider tests/python/test_cuda_examples.py tests/python/test_contract_tensors.py \
    tests/python/test_contract_modules.py tests/python/test_ext_misc.py \
    tests/python/test_torch_c_dlpack.py tests/python/test_stream.py tests/python/test_torch.py \
    addons/asdlpack/python/dlpack/tests
}

conformance() {
  "$PYTHON" tests/conformance/run_conformance.py --jobs 4 $UPSTREAM_GPU_FILES
}

conformance_oracle() {
  "$PYTHON" tests/conformance/run_conformance.py --oracle --jobs 4 test_cubin_launcher.py \
    test_current_work_stream_gpu.py test_stream.py
}

bench() {
  . tests/python/pytest-env.sh
  "$PYTHON" bench/bench_upstream.py --no-callgrind --rounds 3 --only dlpack \
    --scripts "$TVMFFI_CONFORMANCE_CACHE/$base/tests/scripts"
}

step device-info device_info
step check-cuda sh tests/cpp/check-cuda.sh
step cubin-launcher sh tests/cpp/check-cubin-launcher.sh
step pytest run_pytest
prepare_sdist
sdist_rc=$?
if [ $sdist_rc -eq 0 ]; then
  step conformance conformance
else
  step conformance exit $sdist_rc
fi
[ $((oracle + bench)) -eq 0 ] || apache_from_wheel || echo "note: $TVMFFI_APACHE_WHEEL did not install"
[ $bench -eq 0 ] || [ $sdist_rc -ne 0 ] || step bench bench
[ $oracle -eq 0 ] || [ $sdist_rc -ne 0 ] || step oracle conformance_oracle
echo "==== summary"
printf '%s' "$summary"
case $summary in *FAIL*) exit 1 ;; esac
exit 0
