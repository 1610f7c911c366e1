"""Turn the public C headers into a cffi ``cdef`` string.

The headers (``dlpack/dlpack.h``, ``tvm/ffi/c_api.h``, ``tvm/ffi/extra/c_env_api.h``) are the one
source of truth.  This module runs a tiny C preprocessor over them (C mode: ``__cplusplus``,
``_WIN32`` and ``__GNUC__`` undefined), drops ``#include``s, function-like macros, inline
function bodies and static asserts, keeps integer object-like macros as cffi constants, and
strips ``__attribute__`` annotations.  Pure Python, so it also works where no compiler exists
(the ABI-mode fallback uses it at import time when no generated ``_cdef.h`` is shipped).
"""

import os
import re
import warnings

HEADERS = ("dlpack/dlpack.h", "tvm/ffi/c_api.h", "tvm/ffi/extra/c_env_api.h")

_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")
_INT_SUFFIX_RE = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")


def _strip_comments(text):
    # keep string literals intact is unnecessary: the headers have no "/*" inside strings
    return _COMMENT_RE.sub(" ", text)


def _eval_int(expr, macros):
    """Evaluate a preprocessor / constant integer expression; None when not an integer."""

    def defined(match):
        return "1" if match.group(1) in macros else "0"

    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", defined, expr)
    expr = re.sub(r"defined\s+(\w+)", defined, expr)
    expr = _expand(expr, macros)
    expr = _INT_SUFFIX_RE.sub(r"\1", expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    # remaining identifiers evaluate to 0, as in the C preprocessor
    expr = _IDENT_RE.sub(lambda m: m.group(0) if m.group(0) in ("and", "or", "not") else "0", expr)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expr, {"__builtins__": {}}, {})  # noqa: S307 - digits and operators only
    except Exception:  # noqa: BLE001
        return None
    return int(value) if isinstance(value, (int, bool)) else None


def _expand(text, macros, depth=0):
    if depth > 16:
        return text

    def repl(match):
        name = match.group(0)
        value = macros.get(name)
        if value is None:
            return name
        return _expand(value, {k: v for k, v in macros.items() if k != name}, depth + 1)

    return _IDENT_RE.sub(repl, text)


def _preprocess(text, macros, out_defines):
    text = _strip_comments(text).replace("\\\n", " ")
    out = []
    stack = []  # (taking, any_branch_taken)
    taking = True
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            d = s[1:].strip()
            word, _, rest = d.partition(" ")
            rest = rest.strip()
            if word in ("ifdef", "ifndef", "if"):
                if word == "ifdef":
                    cond = rest in macros
                elif word == "ifndef":
                    cond = rest not in macros
                else:
                    cond = bool(_eval_int(rest, macros))
                stack.append((taking, cond))
                taking = taking and cond
            elif word == "elif":
                parent, done = stack[-1]
                cond = (not done) and bool(_eval_int(rest, macros))
                stack[-1] = (parent, done or cond)
                taking = parent and cond
            elif word == "else":
                parent, done = stack[-1]
                taking = parent and not done
                stack[-1] = (parent, True)
            elif word == "endif":
                taking, _ = stack.pop()
            elif taking and word == "define":
                m = re.match(r"(\w+)(\()?\s*(.*)", rest)
                name, is_func, value = m.group(1), m.group(2), m.group(3)
                if is_func:
                    continue  # function-like macros never reach the cdef
                macros[name] = value
                numeric = value and not _IDENT_RE.search(_INT_SUFFIX_RE.sub(r"\1", _expand(value, macros)))
                number = _eval_int(value, macros) if numeric else None
                if number is not None and not name.endswith("_H_"):
                    out_defines[name] = number
            elif taking and word == "undef":
                macros.pop(rest, None)
            continue
        if taking:
            out.append(line)
    return "\n".join(out)


def _remove_balanced(text, start_re, open_ch, close_ch, keep_tail=""):
    """Remove every match of start_re followed by a balanced open/close group."""
    pos = 0
    result = []
    while True:
        m = start_re.search(text, pos)
        if not m:
            result.append(text[pos:])
            return "".join(result)
        i = text.index(open_ch, m.end() - 1 if text[m.end() - 1] == open_ch else m.end())
        depth = 0
        j = i
        while j < len(text):
            if text[j] == open_ch:
                depth += 1
            elif text[j] == close_ch:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        result.append(text[pos : m.start()])
        result.append(keep_tail)
        pos = j + 1


def generate(include_dir, extra_headers=()):
    """Return the cdef text for the public headers under include_dir (+ extra header paths)."""
    macros = {}
    defines = {}
    chunks = []
    paths = [os.path.join(include_dir, h) for h in HEADERS] + list(extra_headers)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            chunks.append(_preprocess(f.read(), macros, defines))
    body = "\n".join(chunks)
    # expand object-like macros used in declarations (TVM_FFI_DLL, TVM_FFI_C_INLINE, ...)
    body = _expand(body, {k: v for k, v in macros.items() if k not in defines})
    body = _remove_balanced(body, re.compile(r"__attribute__\s*\("), "(", ")")
    body = _remove_balanced(body, re.compile(r"\b(_Static_assert|static_assert)\s*\("), "(", ")")
    body = re.sub(r"\)\s*;", ");", body)
    # inline accessors: "static inline <decl> { ... }" -> dropped (not exported symbols)
    body = _remove_balanced(body, re.compile(r"\bstatic\s+inline\b[^;{]*\{"), "{", "}")
    body = re.sub(r"^\s*;\s*$", "", body, flags=re.M)
    body = re.sub(r"\n\s*\n+", "\n", body)
    head = "".join("#define %s %d\n" % (k, v) for k, v in defines.items())
    return head + body.strip() + "\n"


if __name__ == "__main__":  # debugging aid: print the cdef
    import sys

    print(generate(sys.argv[1], sys.argv[2:]))
