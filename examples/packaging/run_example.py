"""Run the packaged extension: python run_example.py add_one|raise_error"""

import sys

import my_ffi_extension


def run_add_one():
    try:
        import torch
    except ImportError:  # numpy works the same way (DLPack)
        import numpy as np

        x = np.array([1, 2, 3, 4, 5], dtype="float32")
        y = np.empty_like(x)
    else:
        x = torch.tensor([1, 2, 3, 4, 5], dtype=torch.float32)
        y = torch.empty_like(x)
    my_ffi_extension.add_one(x, y)
    print(y)


def run_raise_error():
    my_ffi_extension.raise_error("This is an error")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "add_one"
    {"add_one": run_add_one, "raise_error": run_raise_error}[what]()
