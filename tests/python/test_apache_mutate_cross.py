"""The structural-mutate and -visit protocols across implementations: a module compiled
against the apache-tvm-ffi wheel's headers (its cached venv, scripts/apache-venv.sh) runs
upstream's header-only StructuralMap / StructuralMutate / StructuralWalk engines on our
runtime.  Those engines call the __s_mutate__ / __s_maybe_inplace_mutate__ / __s_visit__
hooks our runtime registers for containers and copy reflected objects through
__ffi_shallow_copy__, so results must match the apache runtime's, in place for a moved
root included."""

import os
import shutil
import subprocess
import textwrap

import pytest

import tvm_ffi
import tvm_ffi.testing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CXX = (os.environ.get("CXX") or "c++").split()[0]

KERNEL = textwrap.dedent("""\
    #include <tvm/ffi/extra/structural_mutate.h>
    #include <tvm/ffi/extra/structural_visit.h>
    #include <tvm/ffi/function.h>
    namespace ffi = tvm::ffi;
    ffi::Any map_post(ffi::Any root) {
      return ffi::StructuralMap<ffi::WalkOrder::kPostOrder>(
          std::move(root), [](int64_t v) -> ffi::Any { return v + 1; });
    }
    ffi::Any map_pre_strings(ffi::Any root) {
      return ffi::StructuralMap<ffi::WalkOrder::kPreOrder>(
          std::move(root), [](ffi::String s) -> ffi::Any { return ffi::String(s + "!"); });
    }
    ffi::Any mutate_times_ten(ffi::Any root) {
      return ffi::StructuralMutate(std::move(root),
          [](int64_t v, ffi::StructuralMutatorObj*) -> ffi::Expected<ffi::Any> {
            return ffi::Any(v * 10);
          });
    }
    int64_t walk_sum(ffi::Any root) {
      int64_t sum = 0;
      ffi::StructuralWalk<ffi::WalkOrder::kPostOrder>(
          root, [&](int64_t v) -> ffi::Expected<ffi::WalkResult> {
            sum += v;
            return ffi::WalkResult::Advance();
          });
      return sum;
    }
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(walk_sum, walk_sum);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_post, map_post);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_pre_strings, map_pre_strings);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(mutate_times_ten, mutate_times_ten);
""")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    script = os.path.join(ROOT, "scripts", "apache-venv.sh")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TVM_FFI_") and k not in ("PYTHONPATH", "LD_PRELOAD")}
    r = subprocess.run(["sh", script], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        pytest.skip("apache-tvm-ffi venv unavailable: %s" % r.stderr.strip()[-300:])
    if not shutil.which(CXX):
        pytest.skip("no C++ compiler")
    wheel = os.path.join(r.stdout.strip(), "tvm_ffi")
    d = tmp_path_factory.mktemp("mutate_kernel")
    (d / "k.cc").write_text(KERNEL)
    subprocess.run([CXX, "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
                    "-I" + os.path.join(wheel, "include"), "k.cc", "-o", "k.so",
                    "-L" + os.path.join(wheel, "lib"), "-ltvm_ffi"], check=True, cwd=str(d))
    return tvm_ffi.load_module(str(d / "k.so"))


def test_upstream_engines_on_our_runtime(kernel):
    A, M = tvm_ffi.Array, tvm_ffi.Map
    keep = A(["x", "y"])
    root = A([1, M({"k": A([2, 3])}), keep, tvm_ffi.List([4]), tvm_ffi.Dict({"d": 5})])
    out = kernel.map_post(root)
    assert out[0] == 2 and list(out[1]["k"]) == [3, 4] and list(out[3]) == [5]
    assert out[4]["d"] == 6 and out[2].same_as(keep)  # unchanged paths are shared
    assert root[0] == 1 and list(root[1]["k"]) == [2, 3]  # copy-on-write
    assert list(kernel.map_pre_strings(A(["a", 1, "long string"]))) == ["a!", 1, "long string!"]
    assert list(kernel.mutate_times_ten(A([1, 2]))) == [10, 20]


def test_upstream_engines_move_and_objects(kernel):
    lst = tvm_ffi.List([5, 6])
    handle = lst.__chandle__()
    out = kernel.map_post(lst._move())
    assert list(out) == [6, 7] and out.__chandle__() == handle  # changed in place
    pair = tvm_ffi.testing.create_object("testing.TestIntPair", a=3, b=7)
    out = kernel.map_post(tvm_ffi.Array([pair]))
    assert (out[0].a, out[0].b) == (4, 8) and (pair.a, pair.b) == (3, 7)


def test_upstream_walk_on_our_runtime(kernel):
    pair = tvm_ffi.testing.create_object("testing.TestIntPair", a=3, b=7)
    root = tvm_ffi.Array([1, tvm_ffi.Map({"k": tvm_ffi.List([2, pair])}), tvm_ffi.Dict({"d": 5})])
    assert kernel.walk_sum(root) == 1 + 2 + 3 + 7 + 5  # map keys are not visited


def test_only_our_runtime_is_mapped(kernel):
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if line.rstrip().endswith("/libtvm_ffi.so")}
    assert len(paths) == 1 and "site-packages" not in next(iter(paths)), paths
