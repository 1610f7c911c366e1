"""The JSON graph format against the apache-tvm-ffi wheel (its cached venv,
scripts/apache-venv.sh): for the same values both packages write byte-identical
ffi.ToJSONGraphString text, and each reads the other's text back to the same values
(reflected objects' fields included)."""

import json
import os
import subprocess
import sys

import pytest

import tvm_ffi
import tvm_ffi.testing  # noqa: F401 - registers the testing.* object types
from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Builds the same values under either package (`tvm_ffi` is whichever is imported).
VALUES = r'''
import sys, types
try:
    import pytest  # noqa: F401 - tvm_ffi.testing imports it (decorators only)
except ImportError:
    class _Anything:
        def __getattr__(self, name):
            return _Anything()
        def __call__(self, *args, **kwargs):
            return args[0] if len(args) == 1 and callable(args[0]) else _Anything()
    sys.modules["pytest"] = types.ModuleType("pytest")
    sys.modules["pytest"].__getattr__ = lambda name: _Anything()
import tvm_ffi, tvm_ffi.testing
from tvm_ffi.testing import create_object
A, M = tvm_ffi.Array, tvm_ffi.Map
shared = A([1, "a"])
pair = create_object("testing.TestIntPair", a=3, b=7)
VALUES = [
    1, -2.5, True, None, "short", "a longer string", b"\x00bytes",
    tvm_ffi.dtype("float32"), tvm_ffi.device("cuda", 1),
    A([1, 2, 1, "a", "a", 1.0, True]), M({"k": 1, "j": 1, 3: None}),
    tvm_ffi.Dict({1: 2.5}), tvm_ffi.List([tvm_ffi.Shape((1, 2))]),
    pair, A([pair, pair, create_object("testing.TestIntPair", a=3, b=7)]),
    A([shared, shared, A([1, "a"])]),
    create_object("testing.TestObjectBase", v_i64=3, v_f64=1.0, v_str="hi"),
]
'''

APACHE = VALUES + r'''
import json
from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str
theirs = [to_json_graph_str(v) for v in VALUES]
ours = json.loads(sys.stdin.read())
# reading ours and writing again gives the same text; a pair's fields survive
back = [to_json_graph_str(from_json_graph_str(s)) for s in ours]
p = from_json_graph_str(ours[13])
print(json.dumps({"theirs": theirs, "back": back, "pair": [p.a, p.b]}))
'''


def _apache_python():
    script = os.path.join(ROOT, "scripts", "apache-venv.sh")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TVM_FFI_") and k not in ("PYTHONPATH", "LD_PRELOAD")}
    r = subprocess.run(["sh", script, "--python"], capture_output=True, text=True, env=env)
    if r.returncode != 0 or not os.path.isfile(r.stdout.strip()):
        pytest.skip("apache-tvm-ffi venv unavailable: %s" % r.stderr.strip()[-300:])
    return r.stdout.strip(), env


def test_json_graph_matches_and_reads_apache(tmp_path):
    py, env = _apache_python()
    scope = {}
    exec(VALUES, scope)  # noqa: S102 - the same value-building text both sides run
    ours = [to_json_graph_str(v) for v in scope["VALUES"]]
    r = subprocess.run([py, "-c", APACHE], input=json.dumps(ours), capture_output=True,
                       text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for mine, theirs in zip(ours, out["theirs"]):
        assert mine == theirs  # byte-identical
    assert out["back"] == ours  # apache reads ours
    assert out["pair"] == [3, 7]
    for text in out["theirs"]:  # we read apache's
        assert to_json_graph_str(from_json_graph_str(text)) == text
    pair = from_json_graph_str(out["theirs"][13])
    assert (pair.a, pair.b) == (3, 7)
    objs = from_json_graph_str(out["theirs"][14])
    assert objs[0].same_as(objs[1]) and not objs[0].same_as(objs[2])


def test_json_graph_shape_of_output():
    pair = tvm_ffi.testing.create_object("testing.TestIntPair", a=3, b=7)
    graph = json.loads(to_json_graph_str(tvm_ffi.Array([pair, 1, 1, "x"])))
    # children first, the root last, equal POD values shared, int fields inline
    assert graph["root_index"] == len(graph["nodes"]) - 1
    assert graph["nodes"][0] == {"type": "testing.TestIntPair", "data": {"a": 3, "b": 7}}
    assert graph["nodes"][-1]["data"] == [0, 1, 1, 2]
    lst = tvm_ffi.List([1])
    lst.append(lst)
    with pytest.raises(ValueError, match="cycle"):
        to_json_graph_str(lst)
    assert sys.modules["tvm_ffi"] is tvm_ffi
