# tests/cpp/find-nvcc.sh -- sourced by the CUDA checks: sets $nvcc ($NVCC, PATH, then
# /usr/local/bin), or exits 77 (skip) saying nvcc is missing.
nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/bin/nvcc ] || nvcc=/usr/local/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "SKIP: nvcc not found (set NVCC or put it on PATH)"
  exit 77
fi
