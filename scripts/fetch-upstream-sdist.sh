#!/bin/sh
# scripts/fetch-upstream-sdist.sh -- print the directory of the unpacked
# apache-tvm-ffi source distribution whose own test suites the conformance
# tests run (they are an oracle: nothing of it is committed here).
#
#   scripts/fetch-upstream-sdist.sh       fetch once into the cache, print the dir
#
# Cache: $TVM_FFI_SDIST_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/sdist.
# Version: $TVM_FFI_SDIST_VERSION, default 0.1.15.post2.
# Exits 77 (the automake "skip" status) when it can be neither found nor fetched.
#
# The file comes from PyPI's JSON API (its sha256 is checked); `pip download
# --no-binary :all:` would instead build cmake from source to prepare the
# metadata.
set -eu
version=${TVM_FFI_SDIST_VERSION:-0.1.15.post2}
cache=${TVM_FFI_SDIST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/sdist}
dir="$cache/apache_tvm_ffi-$version"
if [ -d "$dir/tests" ]; then
  echo "$dir"
  exit 0
fi
mkdir -p "$cache" || exit 77
python=${PYTHON:-python3}
fetch='
import hashlib, json, os, sys, urllib.parse, urllib.request
version, cache = sys.argv[1], sys.argv[2]
index = "https://pypi.org/pypi/apache-tvm-ffi/json"
meta = json.load(urllib.request.urlopen(index, timeout=60))
sdist = [u for u in meta["releases"][version] if u["packagetype"] == "sdist"][0]
# a mirror may answer with URLs relative to the index
url = urllib.parse.urljoin(index, sdist["url"])
data = urllib.request.urlopen(url, timeout=300).read()
if hashlib.sha256(data).hexdigest() != sdist["digests"]["sha256"]:
    sys.exit("sha256 mismatch")
path = os.path.join(cache, sdist["filename"])
with open(path + ".part", "wb") as f:
    f.write(data)
os.replace(path + ".part", path)
print(path)
'
tarball=$("$python" -c "$fetch" "$version" "$cache" 2>/dev/null) || {
  echo "fetch-upstream-sdist: cannot fetch apache-tvm-ffi $version from PyPI" >&2; exit 77; }
# unpack beside, then rename, so a concurrent run never sees half a tree
tmp=$(mktemp -d "$cache/unpack.XXXXXX")
tar -xzf "$tarball" -C "$tmp" || { rm -rf "$tmp"; exit 77; }
if [ ! -d "$dir" ]; then mv "$tmp/apache_tvm_ffi-$version" "$dir"; fi
rm -rf "$tmp"
echo "$dir"
