"""Upstream's spelling of the torch C DLPack add-on builder:

    python -m tvm_ffi.utils._build_optional_torch_c_dlpack [--output-dir DIR] [--libname NAME]
        [--build-dir DIR] [--build-with-cuda | --build-with-rocm]

(also runnable as a script path).  The build itself is ``tvm_ffi/torch_c_dlpack_addon/build.py``,
which imports nothing of tvm_ffi; only the defaults differ (see its docstring).
"""

import importlib.util
import os
import sys


def _builder():
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "torch_c_dlpack_addon", "build.py")
    spec = importlib.util.spec_from_file_location("_tvm_ffi_torch_c_dlpack_build", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    return _builder().main(argv, upstream_defaults=True)


if __name__ == "__main__":
    sys.exit(main())
