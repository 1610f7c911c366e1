"""tvm-ffi-stubgen --target rust (docs/guide-packaging.md): by-value mirrors of the testing
fixtures, the byte checks of the directives, and --check by tokens.  Where rustc is installed
the mirrors are compiled against a stand-in of the ``tvm_ffi`` crate whose handle types have
the C ABI's sizes, so the generated size asserts are checked by the compiler."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import tvm_ffi  # noqa: F401 - loads the runtime and the testing library
from tvm_ffi.stub.lib_state import object_info_from_type_key

CHAIN = ("testing.TestCxxClassBase", "testing.TestCxxClassDerived",
         "testing.TestCxxClassDerivedDerived")
BEGIN, END = "// tvm-ffi-stubgen(begin):", "// tvm-ffi-stubgen(end)"


def _stubgen(*args):
    return subprocess.run([sys.executable, "-m", "tvm_ffi.stub.cli", "--target", "rust",
                           *map(str, args)], capture_output=True, text=True, timeout=120)


def _crate(tmp_path, directives=(), keys=CHAIN):
    """A Cargo crate whose src/lib.rs asks for the blocks of ``keys``; returns lib.rs."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "demo"\n')
    (tmp_path / "src").mkdir()
    lines = ["//! Generated mirrors under test.", *directives, BEGIN + " import-section", END]
    for key in keys:
        lines += ["", BEGIN + " object/" + key, END]
    lib = tmp_path / "src" / "lib.rs"
    lib.write_text("\n".join(lines) + "\n")
    return lib


def test_fixture_chain_is_mirrored_by_value(tmp_path):
    lib = _crate(tmp_path, keys=(*CHAIN, "testing.TestCxxClassHiddenField"))
    r = _stubgen(lib.parent)
    assert r.returncode == 0, r.stderr
    text = lib.read_text()
    for key in CHAIN:  # the asserted size is the registry's
        leaf = key.rpartition(".")[2]
        size = object_info_from_type_key(key).total_size
        assert "assert!(::core::mem::size_of::<%sObj>() == %d);" % (leaf, size) in text
    # reflected widths: v_i32 is an i32, not the i64 its schema says
    assert "    base: Object,\n    pub v_i64: i64,\n    pub v_i32: i32,\n}" in text
    assert "    base: TestCxxClassDerivedObj,\n    pub v_str: String,\n    pub v_bool: bool,\n" in text
    assert "        let base = TestCxxClassDerivedObj::new(v_i64, v_i32, v_f64, v_f32);\n" in text
    assert "impl ShallowCopy for TestCxxClassDerivedDerivedObj {" in text
    assert "unsafe impl UnsafeInit for TestCxxClassBaseObj {" in text
    # an unreflected member leaves the type behind the getters, without asserts
    hidden = text[text.index("object/testing.TestCxxClassHiddenField"):]
    assert "/// Opaque: bytes [32, 40) of [24, 48)" in hidden
    assert "const _: () =" not in hidden and "FieldGetter::new" in hidden


@pytest.mark.parametrize(("directive", "message"), [
    ("enum testing.TestCxxClassBase.v_i32 -> Kind(i64)", "maps a 4-byte field to `i64` (8 bytes)"),
    ("field testing.TestCxxClassBase.v_i64 -> u8", "maps a 8-byte field to `u8` (1 bytes)"),
    ("nullable testing.TestCxxClassBase.v_i32", "the field is 4 bytes, not a pointer-sized"),
])
def test_directive_changing_a_width_fails(tmp_path, directive, message):
    name, _, payload = directive.partition(" ")
    lib = _crate(tmp_path, ["// tvm-ffi-stubgen(%s): %s" % (name, payload)], CHAIN[:1])
    before = lib.read_text()
    r = _stubgen(lib.parent)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert lib.read_text() == before


def test_check_compares_tokens_not_spelling(tmp_path):
    lib = _crate(tmp_path)
    assert _stubgen(lib.parent).returncode == 0
    fresh = lib.read_text()
    respelled = (fresh.replace("use tvm_ffi::String;\n", "")
                 .replace("    base: Object,\n", "    base: tvm_ffi::Object,\n")
                 .replace("/// Complete: ", "/// Mirrored: "))
    assert respelled != fresh
    lib.write_text(respelled)
    r = _stubgen("--check", lib.parent)
    assert r.returncode == 0 and "[Stale]" not in r.stdout, r.stdout
    lib.write_text(respelled.replace("== 80);", "== 72);"))
    r = _stubgen("--check", lib.parent)
    assert r.returncode == 1 and "[Stale] %s" % lib in r.stdout


#: the parts of the ``tvm_ffi`` crate the chain's mirrors use, at the C ABI's sizes: the
#: object header (TVMFFIObject) is 24 bytes, a String 16 (STRING_BYTES)
STAND_IN = """
#[repr(C)] pub struct Object { header: [u64; 3] }
impl Object { pub fn new() -> Self { Object { header: [0; 3] } } }
#[repr(C)] #[derive(Clone, Default)] pub struct String { cell: [u64; STRING_WORDS] }
pub struct ObjectArc<T>(std::rc::Rc<T>);
impl<T> ObjectArc<T> { pub fn new(value: T) -> Self { ObjectArc(std::rc::Rc::new(value)) } }
impl<T> Clone for ObjectArc<T> { fn clone(&self) -> Self { ObjectArc(self.0.clone()) } }
impl<T> std::ops::Deref for ObjectArc<T> { type Target = T; fn deref(&self) -> &T { &self.0 } }
pub trait ShallowCopy { fn shallow_copy(&self) -> Self; }
impl ShallowCopy for Object { fn shallow_copy(&self) -> Self { Object::new() } }
pub unsafe trait UnsafeInit { unsafe fn drop_defined_fields(this: *mut Self); }
unsafe impl UnsafeInit for Object { unsafe fn drop_defined_fields(_: *mut Self) {} }
pub mod reflection { pub unsafe fn drop_if_defined<T>(_: *mut T) {} }
#[macro_export] macro_rules! impl_object_upcast { ($($t:tt)*) => {}; }
"""
USE = """
pub fn make() -> TestCxxClassDerivedDerived {
    TestCxxClassDerivedDerived::new(1, 2, 3.0, 4.0, String::default(), true)
}
"""


def _rustc(tmp_path, source, string_words):
    """Compile the stand-in crate, then ``source`` against it; the second run's result."""
    rustc = shutil.which("rustc")
    crate = tmp_path / "tvm_ffi.rs"
    crate.write_text(STAND_IN.replace("STRING_WORDS", str(string_words)))
    common = [rustc, "--edition", "2021", "--crate-type", "lib", "--out-dir", str(tmp_path)]
    # rustc is not ours: a sanitizer build's preloaded runtimes (tests/san-host.sh) crash it
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([*common, "--crate-name", "tvm_ffi", str(crate)], capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return subprocess.run([*common, "--crate-name", "demo", "--extern",
                           "tvm_ffi=%s" % (tmp_path / "libtvm_ffi.rlib"), str(source)],
                          capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_mirrors_compile_and_their_size_asserts_hold(tmp_path):
    (tmp_path / "crate").mkdir()
    lib = _crate(tmp_path / "crate")
    assert _stubgen(lib.parent).returncode == 0
    # the derive macros come from the real crate's proc-macro crate: the stand-in has none,
    # so their attributes go; the layout and the asserts stay as generated
    text = re.sub(r'^#\[(derive\(tvm_ffi::derive::Object\)|type_key = "[^"]*"|type_final)\]\n',
                  "", lib.read_text(), flags=re.M)
    text = text.replace("#[derive(tvm_ffi::derive::ObjectRef, Clone)]", "#[derive(Clone)]")
    source = tmp_path / "demo.rs"
    source.write_text("#![allow(dead_code, unused_imports)]\n" + text + USE)
    r = _rustc(tmp_path, source, 2)
    assert r.returncode == 0, r.stderr
    # an 8-byte String would shift v_bool: the generated asserts stop the build
    r = _rustc(tmp_path, source, 1)
    assert r.returncode != 0, "an 8-byte String compiled"
    assert "size_of::<TestCxxClassDerivedDerivedObj>() == 80" in r.stderr, r.stderr


def test_blocks_follow_the_type_key_order_with_parents_first():
    """A child comes as soon as its parent is placed, not after every shallower type."""
    from tvm_ffi.stub.lib_state import toposort_objects
    from tvm_ffi.stub.utils import ObjectInfo

    def info(key, *ancestors):
        return ObjectInfo(fields=[], methods=[], type_key=key, ancestors=list(ancestors),
                          parent_type_key=ancestors[-1] if ancestors else None)

    infos = [info("a.Z"), info("a.M"), info("a.C", "a.A", "a.B"), info("a.B", "a.A"),
             info("a.A")]
    assert [o.type_key for o in toposort_objects(infos)] == ["a.A", "a.B", "a.C", "a.M", "a.Z"]


def test_opaque_doc_names_the_field_without_a_mirror_and_its_schema(tmp_path):
    lib = _crate(tmp_path, keys=("testing.SchemaAllTypes",))
    assert _stubgen(lib.parent).returncode == 0
    assert ("/// Opaque: field 'v_variant' (str | Array[int] | Map[str, int]) has no native "
            "mirror.") in lib.read_text()
