/*
 * repr.c -- ffi.ReprPrint (docs/abi.md §14.4, docs/python.md §4.1) and the helpers the
 * other structural walkers share (field visiting, quoting, float text).
 *
 * Output follows the reference examples: Array (1, 2, 3) / (42,), List
 * [1, 2, 3], Map and Dict {"a": 1}, tensors float32[3, 4]@cpu:0, reflected
 * objects type_key(a=1, b=2).  A value reached again inside itself (a
 * cycle) prints "..." where it recurs instead of looping.
 * TVM_FFI_REPR_WITH_ADDR=1 adds "@0x...": after an object's type key, after
 * a container's closing bracket, after a tensor's device, and after the
 * "..." of a cycle (the address of the object it points back to).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

/* ---- shared helpers --------------------------------------------------------- */

static int put(tvmffi__buf* b, const char* s, size_t n) {
  if (tvmffi__buf_append(b, s, n) != 0) return tvmffi__raise_oom();
  return 0;
}
#define PUTS(b, s) put((b), (s), strlen(s))

int32_t tvmffi__ext_num_fields(int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  if (info == NULL) return 0;
  int32_t n = info->num_fields;
  for (int32_t d = 0; d < info->type_depth; ++d) n += info->type_ancestors[d]->num_fields;
  return n;
}

int tvmffi__ext_visit_fields(TVMFFIObject* obj, int64_t skip_flags, tvmffi__ext_field_fn fn,
                             void* ctx) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(obj->type_index);
  if (info == NULL) return 0;
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      if ((f->flags & skip_flags) || f->getter == NULL) continue;
      TVMFFIAny v;
      tvmffi__any_set_none(&v);
      if (f->getter((char*)obj + f->offset, &v) != 0) return -1;
      int rc = fn(ctx, f, &v);
      tvmffi__any_release(&v);
      if (rc != 0) return rc;
    }
  }
  return 0;
}

TVMFFIObject* tvmffi__ext_type_hook(const char* name, const TVMFFITypeAttrColumn** cache,
                                    int32_t type_index) {
  const TVMFFITypeAttrColumn* col = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (col == NULL) {
    TVMFFIByteArray n = {name, strlen(name)};
    col = TVMFFIGetTypeAttrColumn(&n);
    if (col == NULL) return NULL; /* nobody registered one yet: ask again next time */
    __atomic_store_n(cache, col, __ATOMIC_RELEASE);
  }
  int32_t i = type_index - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  const TVMFFIAny* v = &col->data[i];
  return v->type_index == kTVMFFIFunction ? v->v_obj : NULL;
}

const char* tvmffi__ext_device_name(int32_t t) {
  switch (t) {
    case kDLCPU:
      return "cpu";
    case kDLCUDA:
      return "cuda";
    case kDLCUDAHost:
      return "cuda_host";
    case kDLOpenCL:
      return "opencl";
    case kDLVulkan:
      return "vulkan";
    case kDLMetal:
      return "metal";
    case kDLVPI:
      return "vpi";
    case kDLROCM:
      return "rocm";
    case kDLROCMHost:
      return "rocm_host";
    case kDLExtDev:
      return "ext_dev";
    case kDLCUDAManaged:
      return "cuda_managed";
    case kDLOneAPI:
      return "oneapi";
    case kDLWebGPU:
      return "webgpu";
    case kDLHexagon:
      return "hexagon";
    case 17:
      return "maia";
    case 18:
      return "trn";
    default:
      return NULL;
  }
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (1..4), or 0 when the bytes there are
 * not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_len(const unsigned char* s, size_t n) {
  unsigned char c = s[0];
  size_t len = c < 0x80                ? 1
               : c >= 0xc2 && c < 0xe0 ? 2
               : c >= 0xe0 && c < 0xf0 ? 3
               : c >= 0xf0 && c < 0xf5 ? 4
                                       : 0;
  if (len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; ++i)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (len == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0;
  if (len == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
  return len;
}

enum {
  Q_JSON = 1,  /* JSON: also escape '/'; control characters as \u00XX */
  Q_BYTES = 2, /* bytes: every byte outside printable ASCII as \xXX */
  Q_BARE = 4,  /* no surrounding quotes (a name printed as text) */
};

/* Appends s[0..n) quoted.  The output is always valid UTF-8 text: control characters are
 * escaped (\u00XX; \xXX in bytes), and so is every byte of a string that is not well-formed
 * UTF-8 (\xXX), so that a repr can be encoded, logged and read by eye whatever the value. */
static int quote(tvmffi__buf* b, const char* s, size_t n, int mode) {
  if (!(mode & Q_BARE) && put(b, "\"", 1) != 0) return -1;
  size_t run = 0; /* start of the pending unescaped run */
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    const char* esc = NULL;
    char tmp[8];
    size_t step = 1;
    switch (c) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      case '/':
        if (mode & Q_JSON) esc = "\\/";
        break;
      default:
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && (mode & Q_BYTES))) {
          snprintf(tmp, sizeof(tmp), (mode & Q_BYTES) ? "\\x%02x" : "\\u%04x", c);
          esc = tmp;
        } else if (c >= 0x80) {
          step = utf8_len((const unsigned char*)s + i, n - i);
          if (step == 0 && !(mode & Q_JSON)) { /* (JSON text is the serializer's to check) */
            snprintf(tmp, sizeof(tmp), "\\x%02x", c);
            esc = tmp;
          }
          if (step == 0) step = 1;
        }
    }
    if (esc != NULL) {
      if (put(b, s + run, i - run) != 0 || PUTS(b, esc) != 0) return -1;
      run = i + 1;
    }
    i += step;
  }
  if (put(b, s + run, n - run) != 0) return -1;
  return (mode & Q_BARE) ? 0 : put(b, "\"", 1);
}

int tvmffi__ext_quote(tvmffi__buf* b, const char* s, size_t n) { return quote(b, s, n, 0); }

int tvmffi__ext_quote_bytes(tvmffi__buf* b, const char* s, size_t n) {
  return PUTS(b, "b") != 0 ? -1 : quote(b, s, n, Q_BYTES);
}

int tvmffi__ext_quote_json(tvmffi__buf* b, const char* s, size_t n) {
  return quote(b, s, n, Q_JSON);
}

int tvmffi__ext_float(tvmffi__buf* b, double x, int python_style) {
  char tmp[40];
  if (isnan(x)) return PUTS(b, python_style ? "nan" : "NaN");
  if (isinf(x)) {
    if (python_style) return PUTS(b, x > 0 ? "inf" : "-inf");
    return PUTS(b, x > 0 ? "Infinity" : "-Infinity");
  }
  /* Fewest significant digits that read back exactly, laid out as Python's
   * repr does: positional for exponents in [-4, 16), scientific otherwise
   * (so 10.0 prints "10.0", not %g's "1e+01"). */
  int prec = 0;
  for (; prec < 17; ++prec) {
    snprintf(tmp, sizeof(tmp), "%.*e", prec, x);
    if (strtod(tmp, NULL) == x) break;
  }
  const char* e = strchr(tmp, 'e');
  int exp10 = e ? atoi(e + 1) : 0;
  if (exp10 >= -4 && exp10 < 16)
    snprintf(tmp, sizeof(tmp), "%.*f", prec - exp10 > 0 ? prec - exp10 : 0, x);
  if (python_style && strpbrk(tmp, ".e") == NULL) strcat(tmp, ".0");
  return PUTS(b, tmp);
}

/* ---- the printer ------------------------------------------------------------ */

#define REPR_MAX_DEPTH 512
/* Shared containers and objects printed (the meetings of nodes with more than one owner)
 * before a value counts as large: past this, the print starts over in shared mode (below),
 * whose text stays linear in the distinct nodes.  A tree never starts over. */
#define REPR_TREE_BUDGET 4096

/* Shared mode: a first pass counts the references to each container and reflected object;
 * one met more than once (shared, or in a cycle) prints with a label the first time,
 * "#1=(1, 2)", and as "#1#" wherever it recurs (the datum labels of Common Lisp and
 * SRFI 38).  Small values never take it: they print in full, and a cycle as "...". */
typedef struct {
  tvmffi__buf* out;
  int with_addr;
  /* Objects being printed, outermost first: a repeat is a cycle. */
  TVMFFIObject* stack[REPR_MAX_DEPTH];
  int depth;
  int shared;          /* 1 in shared mode */
  int restart;         /* the budget ran out: the caller prints again in shared mode */
  uint64_t visits;     /* shared containers and objects entered (the budget) */
  uint64_t labels;     /* labels given so far */
  tvmffi__memo refs;   /* object -> references << 1, then label << 1 | 1 once printed */
} repr_state;

static int repr_any(repr_state* st, const TVMFFIAny* v);

static int on_stack(const repr_state* st, const TVMFFIObject* obj) {
  for (int i = 0; i < st->depth; ++i)
    if (st->stack[i] == obj) return 1;
  return 0;
}

static int push(repr_state* st, TVMFFIObject* obj) {
  if (st->depth >= REPR_MAX_DEPTH)
    return tvmffi__raise("ValueError", "ffi.ReprPrint: nesting deeper than %d levels",
                         REPR_MAX_DEPTH);
  st->stack[st->depth++] = obj;
  return 0;
}

static int addr_suffix(repr_state* st, TVMFFIObject* obj) {
  if (st->with_addr && tvmffi__buf_printf(st->out, "@%p", (void*)obj) != 0)
    return tvmffi__raise_oom();
  return 0;
}

static int type_head(repr_state* st, TVMFFIObject* obj) {
  if (PUTS(st->out, tvmffi__type_key(obj->type_index)) != 0) return -1;
  return addr_suffix(st, obj);
}

static int repr_seq(repr_state* st, TVMFFIObject* obj, int is_array) {
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  if (PUTS(st->out, is_array ? "(" : "[") != 0) return -1;
  for (int64_t i = 0; i < cell->size; ++i) {
    if (i > 0 && PUTS(st->out, ", ") != 0) return -1;
    if (repr_any(st, &items[i]) != 0) return -1;
  }
  if (is_array && cell->size == 1 && PUTS(st->out, ",") != 0) return -1;
  return PUTS(st->out, is_array ? ")" : "]");
}

static int repr_map(repr_state* st, TVMFFIObject* obj) {
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(obj);
  if (PUTS(st->out, "{") != 0) return -1;
  int first = 1;
  for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(cell, p)) {
    if (!first && PUTS(st->out, ", ") != 0) return -1;
    first = 0;
    if (repr_any(st, TVMFFIMapCellKey(cell, p)) != 0 || PUTS(st->out, ": ") != 0 ||
        repr_any(st, TVMFFIMapCellValue(cell, p)) != 0)
      return -1;
  }
  return PUTS(st->out, "}");
}

static int repr_tensor(repr_state* st, TVMFFIObject* obj) {
  const DLTensor* t = TVMFFITensorGetDLTensorPtr(obj);
  TVMFFIAny s;
  tvmffi__any_set_none(&s);
  if (TVMFFIDataTypeToString(&t->dtype, &s) != 0) return -1;
  TVMFFIByteArray ba;
  tvmffi__any_as_str(&s, &ba);
  int rc = put(st->out, ba.data, ba.size);
  tvmffi__any_release(&s);
  if (rc != 0 || PUTS(st->out, "[") != 0) return -1;
  for (int i = 0; i < t->ndim; ++i)
    if (tvmffi__buf_printf(st->out, i ? ", %lld" : "%lld", (long long)t->shape[i]) != 0)
      return tvmffi__raise_oom();
  const char* dev = tvmffi__ext_device_name(t->device.device_type);
  if (dev != NULL) {
    if (tvmffi__buf_printf(st->out, "]@%s:%d", dev, (int)t->device.device_id) != 0)
      return tvmffi__raise_oom();
  } else if (tvmffi__buf_printf(st->out, "]@%d:%d", (int)t->device.device_type,
                                (int)t->device.device_id) != 0) {
    return tvmffi__raise_oom();
  }
  return 0;
}

typedef struct {
  repr_state* st;
  int count;
} field_ctx;

static int repr_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  field_ctx* fc = (field_ctx*)ctx;
  tvmffi__buf* b = fc->st->out;
  /* "(" comes with the first printed field: a type that prints none shows its key alone */
  const char* sep = fc->count++ > 0 ? ", " : "(";
  if (PUTS(b, sep) != 0) return -1;
  if (put(b, f->name.data, f->name.size) != 0 || PUTS(b, "=") != 0) return -1;
  return repr_any(fc->st, v);
}

/* ---- __ffi_repr__(self, repr) -> str hooks ------------------------------------ */

static const TVMFFITypeAttrColumn* g_repr_col;

static int repr_to_buf(const TVMFFIAny* v, tvmffi__buf* out);

/* The callback handed to a hook prints with the caller's state (so a value
 * that reaches the object again prints "..."); the state lives on the
 * caller's stack, so it is cleared when the hook returns and a callback kept
 * beyond that prints afresh. */
typedef struct {
  repr_state* st;
} repr_cb;

static int repr_cb_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  repr_cb* cb = (repr_cb*)self;
  if (tvmffi__args_count("__ffi_repr__ callback(0: Any) -> str", n, 1) != 0) return -1;
  tvmffi__buf out = {NULL, 0, 0};
  int rc;
  if (cb->st != NULL) {
    tvmffi__buf* saved = cb->st->out;
    cb->st->out = &out;
    rc = repr_any(cb->st, &args[0]);
    cb->st->out = saved;
  } else {
    rc = repr_to_buf(&args[0], &out);
  }
  if (rc == 0) rc = tvmffi__str_to_any(kTVMFFIStr, out.data ? out.data : "", out.size, result);
  tvmffi__buf_free(&out);
  return rc;
}

/* Prints obj with its type's hook: 0 done, 1 no hook, -1 failed. */
static int repr_hooked(repr_state* st, TVMFFIObject* obj) {
  TVMFFIObject* hook = tvmffi__ext_type_hook("__ffi_repr__", &g_repr_col, obj->type_index);
  if (hook == NULL) return 1;
  repr_cb* cb = (repr_cb*)malloc(sizeof(repr_cb));
  if (cb == NULL) return tvmffi__raise_oom();
  cb->st = st;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(cb, repr_cb_call, free, &f) != 0) {
    free(cb);
    return -1;
  }
  TVMFFIAny args[2], res;
  args[0].type_index = obj->type_index;
  args[0].zero_padding = 0;
  args[0].v_obj = obj;
  args[1].type_index = kTVMFFIFunction;
  args[1].zero_padding = 0;
  args[1].v_obj = (TVMFFIObject*)f;
  tvmffi__any_set_none(&res);
  int rc = tvmffi__function_call(hook, args, 2, &res);
  cb->st = NULL;
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return -1;
  TVMFFIByteArray ba;
  if (!tvmffi__any_as_str(&res, &ba)) {
    rc = tvmffi__raise("TypeError",
                       "ffi.ReprPrint: __ffi_repr__ of `%s` returned `%s`, expected str",
                       tvmffi__type_key(obj->type_index), tvmffi__any_type_key(&res));
  } else {
    rc = put(st->out, ba.data, ba.size);
  }
  tvmffi__any_release(&res);
  return rc;
}

static int repr_object(repr_state* st, TVMFFIObject* obj) {
  switch (obj->type_index) {
    case kTVMFFIStr: {
      TVMFFIByteArray* ba = TVMFFIBytesGetByteArrayPtr(obj);
      return tvmffi__ext_quote(st->out, ba->data, ba->size);
    }
    case kTVMFFIBytes: {
      TVMFFIByteArray* ba = TVMFFIBytesGetByteArrayPtr(obj);
      return tvmffi__ext_quote_bytes(st->out, ba->data, ba->size);
    }
    case kTVMFFIBigInt: {
      TVMFFIAny v;
      v.type_index = kTVMFFIBigInt;
      v.zero_padding = 0;
      v.v_obj = obj;
      return tvmffi__big_int_to_decimal(&v, st->out);
    }
    case kTVMFFIShape: {
      TVMFFIShapeCell* c = TVMFFIShapeGetCellPtr(obj);
      if (PUTS(st->out, "Shape(") != 0) return -1;
      for (size_t i = 0; i < c->size; ++i)
        if (tvmffi__buf_printf(st->out, i ? ", %lld" : "%lld", (long long)c->data[i]) != 0)
          return tvmffi__raise_oom();
      return PUTS(st->out, ")");
    }
    case kTVMFFITensor:
      return repr_tensor(st, obj) != 0 ? -1 : addr_suffix(st, obj);
    case kTVMFFIError: {
      TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(obj);
      if (quote(st->out, c->kind.data, c->kind.size, Q_BARE) != 0 || PUTS(st->out, "(") != 0 ||
          tvmffi__ext_quote(st->out, c->message.data, c->message.size) != 0)
        return -1;
      return PUTS(st->out, ")");
    }
    default:
      break;
  }
  int is_seq = obj->type_index == kTVMFFIArray || obj->type_index == kTVMFFIList;
  int is_map = obj->type_index == kTVMFFIMap || obj->type_index == kTVMFFIDict;
  uint64_t refs;
  if (st->shared && tvmffi__memo_get(&st->refs, obj, NULL, &refs)) {
    if (refs & 1) /* printed (or being printed) already */
      return tvmffi__buf_printf(st->out, "#%llu#", (unsigned long long)(refs >> 1)) != 0
                 ? tvmffi__raise_oom()
                 : 0;
    if (refs >> 1 >= 2) {
      tvmffi__memo_put(&st->refs, obj, NULL, ++st->labels << 1 | 1);
      if (tvmffi__buf_printf(st->out, "#%llu=", (unsigned long long)st->labels) != 0)
        return tvmffi__raise_oom();
    }
  } else if (!st->shared && tvmffi__ext_shared(obj) && ++st->visits > REPR_TREE_BUDGET) {
    st->restart = 1; /* (nothing raised: the caller starts over) */
    return -1;
  }
  if (on_stack(st, obj)) return PUTS(st->out, "...") != 0 ? -1 : addr_suffix(st, obj);
  if (push(st, obj) != 0) return -1;
  int rc;
  if (is_seq) {
    rc = repr_seq(st, obj, obj->type_index == kTVMFFIArray);
    if (rc == 0) rc = addr_suffix(st, obj);
  } else if (is_map) {
    rc = repr_map(st, obj);
    if (rc == 0) rc = addr_suffix(st, obj);
  } else if ((rc = repr_hooked(st, obj)) != 1) {
    /* the type's __ffi_repr__ printed it (or failed) */
  } else if (tvmffi__enum_is_instance_type(obj->type_index)) {
    /* an enum member prints as its type key and string index: `my.Op.add` */
    TVMFFIByteArray name = {"", 0};
    tvmffi__any_as_str(tvmffi__enum_str_index(obj), &name);
    rc = PUTS(st->out, tvmffi__type_key(obj->type_index)) != 0 || PUTS(st->out, ".") != 0 ||
                 put(st->out, name.data, name.size) != 0
             ? -1
             : 0;
  } else {
    field_ctx fc = {st, 0};
    rc = type_head(st, obj) != 0 ||
                 tvmffi__ext_visit_fields(obj, kTVMFFIFieldFlagBitMaskReprOff, repr_field, &fc) !=
                     0 ||
                 (fc.count > 0 && PUTS(st->out, ")") != 0)
             ? -1
             : 0;
  }
  st->depth--;
  return rc;
}

static int repr_any(repr_state* st, const TVMFFIAny* view) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  tvmffi__buf* b = st->out;
  TVMFFIByteArray ba;
  switch (v.type_index) {
    case kTVMFFINone:
      return PUTS(b, "None");
    case kTVMFFIInt:
      return tvmffi__buf_printf(b, "%lld", (long long)v.v_int64) ? tvmffi__raise_oom() : 0;
    case kTVMFFIBool:
      return PUTS(b, v.v_int64 ? "True" : "False");
    case kTVMFFIFloat: /* as C++ ostream prints a double (upstream): 10, 0.333333, 1e+20 */
      return tvmffi__buf_printf(b, "%g", v.v_float64) ? tvmffi__raise_oom() : 0;
    case kTVMFFIOpaquePtr:
      if (v.v_ptr == NULL) return PUTS(b, "None");
      return tvmffi__buf_printf(b, "%p", v.v_ptr) ? tvmffi__raise_oom() : 0;
    case kTVMFFIDataType: {
      TVMFFIAny s;
      tvmffi__any_set_none(&s);
      if (TVMFFIDataTypeToString(&v.v_dtype, &s) != 0) return -1;
      tvmffi__any_as_str(&s, &ba);
      int rc = put(b, ba.data, ba.size);
      tvmffi__any_release(&s);
      return rc;
    }
    case kTVMFFIDevice: {
      const char* name = tvmffi__ext_device_name(v.v_device.device_type);
      int rc = name ? tvmffi__buf_printf(b, "%s:%d", name, (int)v.v_device.device_id)
                    : tvmffi__buf_printf(b, "%d:%d", (int)v.v_device.device_type,
                                         (int)v.v_device.device_id);
      return rc ? tvmffi__raise_oom() : 0;
    }
    case kTVMFFIDLTensorPtr:
      return tvmffi__buf_printf(b, "DLTensor(%p)", v.v_ptr) ? tvmffi__raise_oom() : 0;
    case kTVMFFIRawStr:
    case kTVMFFISmallStr:
      tvmffi__any_as_str(&v, &ba);
      return tvmffi__ext_quote(b, ba.data, ba.size);
    case kTVMFFIByteArrayPtr:
    case kTVMFFISmallBytes:
      tvmffi__any_as_bytes(&v, &ba);
      return tvmffi__ext_quote_bytes(b, ba.data, ba.size);
    default:
      if (v.type_index >= kTVMFFIStaticObjectBegin) return repr_object(st, v.v_obj);
      return tvmffi__buf_printf(b, "<unknown kind %d>", (int)v.type_index) ? tvmffi__raise_oom()
                                                                           : 0;
  }
}

/* The first pass of shared mode: counts the references to each container and object below
 * v (each descended once), the way the printer walks them (fields: the printed ones). */
static int count_refs(repr_state* st, const TVMFFIAny* view);

static int count_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  (void)f;
  return count_refs((repr_state*)ctx, v);
}

static int count_refs(repr_state* st, const TVMFFIAny* view) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  if (v.type_index < kTVMFFIStaticObjectBegin) return 0;
  TVMFFIObject* obj = v.v_obj;
  int32_t t = obj->type_index;
  int is_seq = t == kTVMFFIArray || t == kTVMFFIList, is_map = t == kTVMFFIMap || t == kTVMFFIDict;
  if (!is_seq && !is_map && (t < kTVMFFIDynObjectBegin || tvmffi__ext_num_fields(t) == 0))
    return 0; /* strings, tensors, shapes, ...: printed in full wherever they occur */
  uint64_t refs;
  int shared = tvmffi__ext_shared(obj); /* (a node owned once is met once: no count needed) */
  if (shared && tvmffi__memo_get(&st->refs, obj, NULL, &refs)) {
    tvmffi__memo_put(&st->refs, obj, NULL, refs + 2);
    return 0;
  }
  if (shared) tvmffi__memo_put(&st->refs, obj, NULL, 2);
  if (push(st, obj) != 0) return -1;
  int rc = 0;
  if (is_seq) {
    TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
    for (int64_t i = 0; rc == 0 && i < cell->size; ++i)
      rc = count_refs(st, &((const TVMFFIAny*)cell->data)[i]);
  } else if (is_map) {
    TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(obj);
    for (uint64_t p = TVMFFIMapCellIterBegin(cell); rc == 0 && p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(cell, p))
      rc = count_refs(st, TVMFFIMapCellKey(cell, p)) || count_refs(st, TVMFFIMapCellValue(cell, p));
  } else {
    rc = tvmffi__ext_visit_fields(obj, kTVMFFIFieldFlagBitMaskReprOff, count_field, st);
  }
  st->depth--;
  return rc ? -1 : 0;
}

/* Appends the repr of v to out, from a fresh state.  0/-1. */
static int repr_to_buf(const TVMFFIAny* v, tvmffi__buf* out) {
  repr_state* st = (repr_state*)calloc(1, sizeof(repr_state));
  if (st == NULL) return tvmffi__raise_oom();
  st->out = out;
  const char* env = getenv("TVM_FFI_REPR_WITH_ADDR");
  st->with_addr = env != NULL && strcmp(env, "1") == 0;
  size_t start = out->size;
  int rc = repr_any(st, v);
  if (st->restart) { /* a large value (even if a hook swallowed the stop): again, shared */
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err); /* (what a hook made of the interruption) */
    TVMFFIObjectDecRef(err);
    out->size = start;
    st->shared = 1;
    st->depth = 0;
    st->refs.hold = TVMFFI__MEMO_HOLD_A;
    tvmffi__memo_start(&st->refs); /* the memo from the first node on */
    rc = count_refs(st, v);
    st->depth = 0;
    if (rc == 0) rc = repr_any(st, v);
  }
  tvmffi__memo_free(&st->refs);
  free(st);
  return rc;
}

/* ffi.ReprPrint(x: Any) -> str */
static int repr_print(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  if (tvmffi__args_count("ffi.ReprPrint(0: Any) -> str", num_args, 1) != 0) return -1;
  tvmffi__buf out = {NULL, 0, 0};
  int rc = repr_to_buf(&args[0], &out);
  if (rc == 0) rc = tvmffi__str_to_any(kTVMFFIStr, out.data ? out.data : "", out.size, result);
  tvmffi__buf_free(&out);
  return rc;
}

void tvmffi__repr_globals_init(void) {
  tvmffi__register_global("ffi.ReprPrint", repr_print,
                          "Generic repr of any value (TVM_FFI_REPR_WITH_ADDR=1 adds addresses).",
                          SCHEMA_FN("str", ARG("Any")));
}
