"""Cross-loading with the apache-tvm-ffi wheel (its cached venv, scripts/apache-venv.sh):

- a module compiled against the wheel's headers is loaded by our package and called with
  NumPy arrays and torch tensors (errors keep kind, message and the C++ frame);
- a module JIT-built by our tvm_ffi.cpp (our headers) is loaded by the apache package in its
  venv and called with NumPy arrays and torch tensors;
- a class built with the wheel's headers is extended by a py_class (docs/python.md §4.10):
  those headers register no __ffi_construct_at__, so the field-based rules apply.
"""

import os
import shutil
import subprocess
import textwrap

import pytest

import tvm_ffi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CXX = (os.environ.get("CXX") or "c++").split()[0]

KERNEL = textwrap.dedent("""\
    #include <tvm/ffi/container/tensor.h>
    #include <tvm/ffi/error.h>
    #include <tvm/ffi/function.h>
    #include <tvm/ffi/string.h>
    namespace ffi = tvm::ffi;
    void add_one(ffi::TensorView x, ffi::TensorView y) {
      TVM_FFI_ICHECK_EQ(x.ndim(), 1) << "x must be a 1D tensor";
      const float* xp = static_cast<const float*>(x.data_ptr());
      float* yp = static_cast<float*>(y.data_ptr());
      for (int64_t i = 0; i < x.size(0); ++i) yp[i] = xp[i] + 1;
    }
    int64_t sum3(int64_t a, int64_t b, int64_t c) { return a + b + c; }
    ffi::String greet(ffi::String s) { return std::string("hello ") + s.c_str(); }
    void fail(ffi::String msg) {
      TVM_FFI_THROW(IndexError) << "cross: " << msg;
    }
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum3, sum3);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, greet);
    TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, fail);
""")
# A class the wheel's ObjectDef registers, for a py_class to extend (appended to KERNEL).
PARENT = textwrap.dedent("""\
    #include <tvm/ffi/container/array.h>
    #include <tvm/ffi/reflection/registry.h>
    namespace cross {
    int64_t made = 0, destroyed = 0;
    class ParentObj : public ffi::Object {
     public:
      ffi::String name;
      int64_t n = 0;
      ffi::Optional<ffi::ObjectRef> ref;
      ParentObj() { ++made; }
      ~ParentObj() { ++destroyed; }
      static constexpr bool _type_mutable = true;
      TVM_FFI_DECLARE_OBJECT_INFO("cross.Parent", ParentObj, ffi::Object);
    };
    TVM_FFI_STATIC_INIT_BLOCK() {
      namespace refl = tvm::ffi::reflection;
      refl::ObjectDef<ParentObj>()
          .def_rw("name", &ParentObj::name)
          .def_rw("n", &ParentObj::n, refl::default_value(0))
          .def_rw("ref", &ParentObj::ref, refl::default_value(ffi::Optional<ffi::ObjectRef>()))
          .def("size", [](const ParentObj* p) { return int64_t(p->name.size()) + p->n; });
      refl::GlobalDef().def("cross.counts",
                            []() { return ffi::Array<int64_t>{made, destroyed}; });
    }
    }  // namespace cross
""")
THROW_LINE = next(i for i, line in enumerate(KERNEL.splitlines(), 1) if "TVM_FFI_THROW" in line)


def _clean_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TVM_FFI_") and k not in ("PYTHONPATH", "LD_PRELOAD")}
    return env


@pytest.fixture(scope="module")
def apache_site():
    script = os.path.join(ROOT, "scripts", "apache-venv.sh")
    if not os.path.isfile(script):
        pytest.skip("scripts/apache-venv.sh not in this tree")
    r = subprocess.run(["sh", script], capture_output=True, text=True, env=_clean_env())
    if r.returncode != 0:
        pytest.skip("apache-tvm-ffi venv unavailable: %s" % r.stderr.strip()[-300:])
    return r.stdout.strip()


@pytest.fixture(scope="module")
def apache_kernel(apache_site, tmp_path_factory):
    if not shutil.which(CXX):
        pytest.skip("no C++ compiler")
    d = tmp_path_factory.mktemp("apache_kernel")
    src = d / "cross_kernel.cc"
    src.write_text(KERNEL + PARENT)
    so = d / "cross_kernel.so"
    wheel = os.path.join(apache_site, "tvm_ffi")
    subprocess.run([CXX, "-std=c++17", "-O1", "-g", "-fPIC", "-shared", "-fvisibility=hidden",
                    "-I" + os.path.join(wheel, "include"), str(src), "-o", str(so),
                    "-L" + os.path.join(wheel, "lib"), "-ltvm_ffi"], check=True, cwd=str(d))
    return str(so)


def test_apache_header_module_on_our_package(apache_kernel, np):
    mod = tvm_ffi.load_module(apache_kernel)
    assert mod.sum3(1, 2, 3) == 6
    assert mod.greet("ours") == "hello ours"
    x = np.arange(4, dtype="float32")
    y = np.zeros_like(x)
    mod.add_one(x, y)
    assert y.tolist() == [1, 2, 3, 4]
    with pytest.raises(IndexError, match="cross: bad") as info:
        mod.fail("bad")
    frames = "".join(__import__("traceback").format_tb(info.tb))
    assert 'cross_kernel.cc", line %d' % THROW_LINE in frames


def test_apache_header_module_with_torch(apache_kernel, torch):
    mod = tvm_ffi.load_module(apache_kernel)
    x = torch.arange(5, dtype=torch.float32)
    y = torch.zeros(5)
    mod.add_one(x, y)
    assert y.tolist() == [1, 2, 3, 4, 5]  # written in place: zero-copy both ways
    assert mod.sum3(x.numel(), 0, -1) == 4


APACHE_USES_OURS = textwrap.dedent("""
    import sys
    sys.path.append(sys.argv[2])  # this interpreter's site-packages (torch), after the venv's
    import numpy as np
    import tvm_ffi
    assert tvm_ffi.__version__.startswith("0.1."), tvm_ffi.__version__
    mod = tvm_ffi.load_module(sys.argv[1])
    assert mod.sum3(1, 2, 3) == 6
    assert mod.greet("apache") == "hello apache"
    x = np.arange(3, dtype="float32"); y = np.zeros_like(x)
    mod.add_one(x, y)
    assert y.tolist() == [1, 2, 3], y
    try:
        import torch
    except ImportError:
        print("no torch")
    else:
        t = torch.arange(3, dtype=torch.float32); u = torch.zeros(3)
        mod.add_one(t, u)
        assert u.tolist() == [1, 2, 3], u
        print("torch ok")
    try:
        mod.fail("x")
    except IndexError as e:
        assert "cross: x" in str(e)
    else:
        raise AssertionError("no IndexError")
    print("ok")
""")


def test_our_jit_module_on_apache_package(apache_site, tmp_path, monkeypatch):
    try:
        tvm_ffi.cpp.extension.tc.find_ninja()
    except RuntimeError as err:
        pytest.skip(str(err))
    body = KERNEL.split("namespace ffi = tvm::ffi;\n", 1)[1].replace("TVM_FFI_DLL_EXPORT", "//")
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    path = tvm_ffi.cpp.build_inline(
        "cross_ours", cpp_sources="#include <tvm/ffi/string.h>\nnamespace ffi = tvm::ffi;\n" + body,
        functions={"add_one": "", "sum3": "", "greet": "", "fail": ""})
    # the apache package's interpreter; torch from this interpreter's site-packages
    venv_py = subprocess.run(["sh", os.path.join(ROOT, "scripts", "apache-venv.sh"), "--python"],
                             capture_output=True, text=True, env=_clean_env()).stdout.strip()
    assert os.path.isfile(venv_py), venv_py
    # torch comes from the site-packages of the interpreter the venv was made from
    base_site = subprocess.run(
        [venv_py, "-c", "import sys, sysconfig; print(sysconfig.get_paths(vars={'base': "
         "sys.base_prefix, 'platbase': sys.base_prefix})['purelib'])"],
        capture_output=True, text=True, env=_clean_env()).stdout.strip()
    r = subprocess.run([venv_py, "-c", APACHE_USES_OURS, path, base_site],
                       capture_output=True, text=True, env=_clean_env(), cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("ok")
    if os.path.isdir(os.path.join(base_site, "torch")):
        assert "torch ok" in r.stdout


def test_py_class_over_an_apache_header_class(apache_kernel):
    """The wheel's ObjectDef registers neither __ffi_construct_at__ nor __ffi_data_size__:
    the child's part starts from a byte copy of a creator-made parent and the reflected
    members are released one by one; the parent's destructor runs for that prototype only."""
    import gc

    import tvm_ffi.testing
    from tvm_ffi import core
    from tvm_ffi.dataclasses import c_class, py_class

    tvm_ffi.load_module(apache_kernel)
    counts = tvm_ffi.get_global_func("cross.counts")
    use_count = tvm_ffi.get_global_func("testing.object_use_count")

    @c_class("cross.Parent")
    class Parent(tvm_ffi.Object):
        pass

    @py_class("testing.cross.ApacheChild")
    class Child(Parent):
        extra: int = 5

    tidx = core._type_cls_to_type_info(Parent).type_index
    assert core._lookup_type_attr(tidx, "__ffi_construct_at__") is None
    target = tvm_ffi.testing.TestObjectBase()
    made, destroyed = counts()
    obj = Child(name="a name long enough to live on the heap", n=2, ref=target)
    assert (obj.size(), obj.extra) == (40, 5)
    assert use_count(target) == 2
    dup = __import__("copy").copy(obj)
    assert (dup.size(), use_count(target)) == (40, 3)
    del obj, dup
    gc.collect()
    assert use_count(target) == 1  # the reflected reference, released field by field
    assert tuple(counts()) == (made + 1, destroyed + 1)  # the prototype, not the two objects
