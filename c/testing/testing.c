/*
 * testing.c -- libtvm_ffi_testing.so: the testing.* global functions of
 * docs/abi.md §15 that the C core can express, registered from a constructor
 * when the library is loaded (docs/python.md §20).  Pure C over the public API.
 *
 * The schema_* fixtures live in schema.c, the reflected object fixtures in
 * objects.c and fixtures.c, the enum fixtures and enum_variant_get in enums.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include "testing.h"

/* ---- scalar functions -------------------------------------------------- */

/* Named so that backtraces show it (docs/python.md §25.2 #37). */
int TestRaiseError(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result);
int TestRaiseError(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char* sig = "testing.test_raise_error(0: str, 1: str) -> None";
  (void)h;
  (void)result;
  if (arg_count(sig, n, 2) != 0) return -1;
  if (!is_str(&args[0])) return arg_mismatch(sig, 0, "str", &args[0]);
  if (!is_str(&args[1])) return arg_mismatch(sig, 1, "str", &args[1]);
  /* lengths, not C strings: a kind or message may hold NUL bytes */
  TVMFFIByteArray k = str_bytes(&args[0]), m = str_bytes(&args[1]);
  const TVMFFIByteArray* bt = TVMFFIBacktrace(__FILE__, __LINE__, "TestRaiseError", 0);
  TVMFFIObjectHandle err = NULL;
  if (TVMFFIErrorCreate(&k, &m, bt, &err) != 0) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing.test_raise_error: out of memory");
    return -1;
  }
  TVMFFIErrorSetRaised(err);
  TVMFFIObjectDecRef(err);
  return -1;
}

static int add_one(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char* sig = "testing.add_one(0: int) -> int";
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != kTVMFFIInt && args[0].type_index != kTVMFFIBool)
    return arg_mismatch(sig, 0, "int", &args[0]);
  int64_t out;
  if (__builtin_add_overflow(args[0].v_int64, 1, &out)) { /* signed overflow is undefined */
    TVMFFIErrorSetRaisedFromCStr("OverflowError", "testing.add_one: the result overflows int64");
    return -1;
  }
  set_int(result, out);
  return 0;
}

/* The raw safe-call handed out by get_add_one_c_symbol and registered as the
 * system-library symbol __tvm_ffi_testing.add_one. */
static int add_one_c(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  return add_one(h, args, n, result);
}

static int nop(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  (void)result;
  return 0;
}

static int echo(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (n < 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "testing.echo expects at least 1 argument");
    return -1;
  }
  return TVMFFIAnyViewToOwnedAny(&args[0], result);
}

int TestApply(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result);
int TestApply(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (n < 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "testing.apply expects a function and its arguments");
    return -1;
  }
  if (args[0].type_index != kTVMFFIFunction)
    return arg_mismatch("testing.apply(0: ffi.Function, *args) -> Any", 0, "ffi.Function",
                        &args[0]);
  /* Call through the cell, as C++ callers do: TVMFFIFunctionCall is a
   * backtrace boundary, and going through it would hide this frame (and the
   * callee's) from the backtrace of an error raised inside `f`. */
  TVMFFIObjectHandle f = args[0].v_obj;
  int rc = TVMFFIFunctionGetCellPtr(f)->safe_call(f, args + 1, n - 1, result);
  /* Not a tail call: keep this frame on the stack so backtraces show it. */
  __asm__ volatile("" ::: "memory");
  return rc;
}

static int run_check_signal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char* sig = "testing.run_check_signal(0: int) -> None";
  (void)h;
  (void)result;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != kTVMFFIInt && args[0].type_index != kTVMFFIBool)
    return arg_mismatch(sig, 0, "int", &args[0]);
  for (int64_t i = 0; i < args[0].v_int64; ++i) {
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    if (TVMFFIEnvCheckSignals() != 0) {
      /* A runtime error (e.g. a half-registered frontend) wins over the
       * "frontend has a pending exception" marker. */
      TVMFFIObjectHandle err = NULL;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != NULL) {
        TVMFFIErrorSetRaised(err);
        TVMFFIObjectDecRef(err);
      } else {
        TVMFFIErrorSetRaisedFromCStr("EnvErrorAlreadySet", "");
      }
      return -1;
    }
  }
  printf("Function finished without catching signal\n");
  fflush(stdout);
  return 0;
}

static int object_use_count(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char* sig = "testing.object_use_count(0: ffi.Object) -> int";
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index < kTVMFFIStaticObjectBegin)
    return arg_mismatch(sig, 0, "ffi.Object", &args[0]);
  uint64_t c = __atomic_load_n(&args[0].v_obj->combined_ref_count, __ATOMIC_RELAXED);
  set_int(result, (int64_t)(c & 0xFFFFFFFFu));
  return 0;
}

static int get_add_one_c_symbol(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (arg_count("testing.get_add_one_c_symbol() -> int", n, 0) != 0) return -1;
  set_int(result, (int64_t)(intptr_t)&add_one_c);
  return 0;
}

/* MLIR "packed" form of add_one_c: five slots pointing at the handle, the
 * args pointer, the int32 count, the result pointer and the int return code
 * (docs/python.md §5.1, Function.__from_mlir_packed_safe_call__). */
static void mlir_add_one(void** packed) {
  void* handle = *(void**)packed[0];
  const TVMFFIAny* args = *(const TVMFFIAny**)packed[1];
  int32_t n = *(const int32_t*)packed[2];
  TVMFFIAny* result = *(TVMFFIAny**)packed[3];
  *(int*)packed[4] = add_one_c(handle, args, n, result);
}

static int get_mlir_add_one_c_symbol(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (arg_count("testing.get_mlir_add_one_c_symbol() -> int", n, 0) != 0) return -1;
  set_int(result, (int64_t)(intptr_t)&mlir_add_one);
  return 0;
}

static int optional_tensor_view_has_value(void* h, const TVMFFIAny* args, int32_t n,
                                          TVMFFIAny* result) {
  static const char* sig =
      "testing.optional_tensor_view_has_value(0: Optional[ffi.Tensor]) -> bool";
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  int t = args[0].type_index;
  if (t != kTVMFFINone && t != kTVMFFIDLTensorPtr && t != kTVMFFITensor)
    return arg_mismatch(sig, 0, "Optional[ffi.Tensor]", &args[0]);
  set_bool(result, t != kTVMFFINone);
  return 0;
}

/* ---- make_unregistered_object: a type with reflection but no Python class */

typedef struct {
  TVMFFIObject header;
  int64_t v1; /* +24, testing.TestUnregisteredBaseObject */
  int64_t v2; /* +32, testing.TestUnregisteredObject */
} unreg_obj;

static int32_t g_unreg_base_index = -1, g_unreg_index = -1;

static void unreg_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int int64_getter(void* addr, TVMFFIAny* result) {
  set_int(result, *(int64_t*)addr);
  return 0;
}

static int int64_setter(void* addr, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIInt && value->type_index != kTVMFFIBool) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected an int");
    return -1;
  }
  *(int64_t*)addr = value->v_int64;
  return 0;
}

/* Checks that args[0] is an instance (self) of the unregistered types. */
static unreg_obj* unreg_self(const char* sig, const TVMFFIAny* args, int32_t n, int derived) {
  if (arg_count(sig, n, 1) != 0) return NULL;
  int t = args[0].type_index;
  if (t != g_unreg_index && (derived || t != g_unreg_base_index)) {
    arg_mismatch(sig, 0,
                 derived ? "testing.TestUnregisteredObject" : "testing.TestUnregisteredBaseObject",
                 &args[0]);
    return NULL;
  }
  return (unreg_obj*)args[0].v_obj;
}

static int get_v1_plus_one(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  unreg_obj* o = unreg_self("get_v1_plus_one(0: self) -> int", args, n, 0);
  if (o == NULL) return -1;
  set_int(result, o->v1 + 1);
  return 0;
}

static int get_v2_plus_two(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  unreg_obj* o = unreg_self("get_v2_plus_two(0: self) -> int", args, n, 1);
  if (o == NULL) return -1;
  set_int(result, o->v2 + 2);
  return 0;
}

static int make_unregistered_object(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (arg_count("testing.make_unregistered_object() -> ffi.Object", n, 0) != 0) return -1;
  unreg_obj* o = (unreg_obj*)calloc(1, sizeof(unreg_obj));
  if (o == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing.make_unregistered_object");
    return -1;
  }
  o->header.combined_ref_count = UINT64_C(0x100000001);
  o->header.type_index = g_unreg_index;
  o->header.deleter = unreg_deleter;
  o->v1 = 41;
  o->v2 = 42;
  result->type_index = g_unreg_index;
  result->zero_padding = 0;
  result->v_obj = &o->header;
  return 0;
}

static void register_int_field(int32_t tindex, const char* name, const char* doc, int64_t offset) {
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = ba(name);
  f.doc = ba(doc);
  f.metadata = ba("{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}");
  f.flags = 0;
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = int64_getter;
  f.setter = (void*)int64_setter;
  f.field_static_type_index = kTVMFFIInt;
  TVMFFITypeRegisterField(tindex, &f);
}

static void register_method(int32_t tindex, const char* name, const char* doc,
                            TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, fn, NULL, &f) != 0) return;
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name = ba(name);
  m.doc = ba(doc);
  m.metadata =
      ba("{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
         "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[]}}\"}");
  m.flags = 0;
  m.method.type_index = kTVMFFIFunction;
  m.method.v_obj = (TVMFFIObject*)f;
  TVMFFITypeRegisterMethod(tindex, &m);
  TVMFFIObjectDecRef(f);
}

static void register_unregistered_types(void) {
  TVMFFIByteArray base_key = ba("testing.TestUnregisteredBaseObject");
  TVMFFIByteArray key = ba("testing.TestUnregisteredObject");
  g_unreg_base_index = TVMFFITypeGetOrAllocIndex(&base_key, -1, 1, 0, 1, kTVMFFIObject);
  g_unreg_index = TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, g_unreg_base_index);
  /* Another copy of this library registered the reflection already. */
  if (TVMFFIGetTypeInfo(g_unreg_index)->metadata != NULL) return;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc = ba("Base of testing.TestUnregisteredObject.");
  md.total_size = (int32_t)offsetof(unreg_obj, v2);
  TVMFFITypeRegisterMetadata(g_unreg_base_index, &md);
  md.doc = ba("An object type that has reflection but no Python class.");
  md.total_size = (int32_t)sizeof(unreg_obj);
  TVMFFITypeRegisterMetadata(g_unreg_index, &md);
  register_int_field(g_unreg_base_index, "v1", "Field v1", offsetof(unreg_obj, v1));
  register_int_field(g_unreg_index, "v2", "Field v2", offsetof(unreg_obj, v2));
  tt_set_final(g_unreg_base_index, 0); /* neither class is final upstream */
  tt_set_final(g_unreg_index, 0);
  /* the docs upstream's fallback-class test reads */
  register_method(g_unreg_base_index, "get_v1_plus_one",
                  "Get (v1 + 1) from TestUnregisteredBaseObject", get_v1_plus_one);
  register_method(g_unreg_index, "get_v2_plus_two", "Get (v2 + 2) from TestUnregisteredObject",
                  get_v2_plus_two);
  /* A constructor must not leave an error behind in the loading thread. */
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    fprintf(stderr, "libtvm_ffi_testing: registering testing.TestUnregisteredObject: %s\n",
            TVMFFIErrorGetCellPtr(err)->message.data);
    TVMFFIObjectDecRef(err);
  }
}

/* ---- containers holding tensors (DLPack round-trip tests) ---------------- */

static int want_tensors(const char* sig, const TVMFFIAny* args, int32_t n, int32_t count) {
  if (arg_count(sig, n, count) != 0) return -1;
  if (args[0].type_index != kTVMFFITensor) return arg_mismatch(sig, 0, "ffi.Tensor", &args[0]);
  if (count == 2 && strstr(sig, "1: ffi.Tensor") && args[1].type_index != kTVMFFITensor)
    return arg_mismatch(sig, 1, "ffi.Tensor", &args[1]);
  return 0;
}

static int make_array_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_array_with_tensor(0: ffi.Tensor) -> ffi.Array", args, n, 1))
    return -1;
  TVMFFIAny a[1] = {args[0]};
  return call_global("ffi.Array", a, 1, r);
}

static int make_array_with_mixed(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_array_with_mixed(0: ffi.Tensor, 1: Any) -> ffi.Array", args, n, 2))
    return -1;
  TVMFFIAny a[3] = {args[0], args[1], v_str("hello")};
  return call_global("ffi.Array", a, 3, r);
}

static int make_nested_array_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_nested_array_with_tensor(0: ffi.Tensor) -> ffi.Array", args, n, 1))
    return -1;
  TVMFFIAny inner, a[2] = {args[0], v_int(42)};
  if (call_global("ffi.Array", a, 2, &inner) != 0) return -1;
  TVMFFIAny b[2] = {inner, args[0]};
  int rc = call_global("ffi.Array", b, 2, r);
  release(&inner);
  return rc;
}

static int make_list_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_list_with_tensor(0: ffi.Tensor, 1: Any) -> ffi.List", args, n, 2))
    return -1;
  TVMFFIAny a[2] = {args[0], args[1]};
  return call_global("ffi.List", a, 2, r);
}

static int make_map_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_map_with_tensor(0: ffi.Tensor) -> ffi.Map", args, n, 1)) return -1;
  TVMFFIAny a[6] = {v_str("tensor"), args[0],       v_str("value"),
                    v_int(42),       v_str("name"), v_str("test")};
  return call_global("ffi.Map", a, 6, r);
}

static int make_dict_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_dict_with_tensor(0: ffi.Tensor) -> ffi.Dict", args, n, 1))
    return -1;
  TVMFFIAny a[4] = {v_str("tensor"), args[0], v_str("value"), v_int(42)};
  return call_global("ffi.Dict", a, 4, r);
}

static int make_empty_array_with_tensor_input(void* h, const TVMFFIAny* args, int32_t n,
                                              TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_empty_array_with_tensor_input(0: ffi.Tensor) -> ffi.Array", args,
                   n, 1))
    return -1;
  return call_global("ffi.Array", NULL, 0, r);
}

static int make_nested_map_with_tensor(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  if (want_tensors("testing.make_nested_map_with_tensor(0: ffi.Tensor, 1: ffi.Tensor) -> ffi.Map",
                   args, n, 2))
    return -1;
  TVMFFIAny arr, inner;
  TVMFFIAny a[2] = {args[0], args[1]};
  if (call_global("ffi.Array", a, 2, &arr) != 0) return -1;
  TVMFFIAny m[2] = {v_str("t"), args[0]};
  if (call_global("ffi.Map", m, 2, &inner) != 0) {
    release(&arr);
    return -1;
  }
  TVMFFIAny top[6] = {v_str("array"), arr, v_str("map"), inner, v_str("scalar"), v_int(99)};
  int rc = call_global("ffi.Map", top, 6, r);
  release(&arr);
  release(&inner);
  return rc;
}

/* ---- exported symbols (docs/abi.md §15) ---------------------------------------- */

/* Lets Python detect that this library is loaded. */
TVM_FFI_DLL_EXPORT int TVMFFITestingDummyTarget(void) { return 0; }

static int ret_str(TVMFFIAny* r, const char* s) {
  TVMFFIByteArray b = {s, strlen(s)};
  return TVMFFIStringFromByteArray(&b, r);
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_testing_dll_schema_id_int(void* h, const TVMFFIAny* args,
                                                           int32_t n, TVMFFIAny* r) {
  return tvmffi_testing__schema_id_int(h, args, n, r);
}

TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_testing_dll_schema_id_int(void* h, const TVMFFIAny* args,
                                                                     int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)n;
  return ret_str(r,
                 "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{"
                 "\\\"return\\\":[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":"
                 "\\\"int\\\"}]}}\"}");
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_testing_dll_test_add_with_docstring(void* h, const TVMFFIAny* args,
                                                                     int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing_dll_test_add_with_docstring(0: int, 1: int) -> int";
  (void)h;
  if (arg_count(sig, n, 2) != 0) return -1;
  for (int i = 0; i < 2; ++i)
    if (args[i].type_index != kTVMFFIInt && args[i].type_index != kTVMFFIBool)
      return arg_mismatch(sig, i, "int", &args[i]);
  set_int(r, args[0].v_int64 + args[1].v_int64);
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_testing_dll_test_add_with_docstring(
    void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)n;
  return ret_str(r,
                 "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{"
                 "\\\"return\\\":[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":"
                 "\\\"int\\\"},{\\\"type\\\":\\\"int\\\"}]}}\"}");
}

TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_testing_dll_test_add_with_docstring(void* h,
                                                                          const TVMFFIAny* args,
                                                                          int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)n;
  return ret_str(r,
                 "Add two integers and return the sum.\n\n"
                 "Parameters\n----------\na : int\n    First integer\nb : int\n"
                 "    Second integer\n\nReturns\n-------\nresult : int\n    Sum of a and b");
}

/* ---- registration ---------------------------------------------------------- */

/* Registers `fn` (with `self` when non-NULL) under `name` with a type_schema
 * metadata built from the schema JSON.  Failures are reported, not fatal: a
 * second copy of the library must not abort the process. */
void tt_reg(const char* name, TVMFFISafeCallType fn, void* self, const char* doc,
            const char* schema) {
  tt_reg_meta(name, fn, self, doc, schema, NULL);
}

void tt_set_final(int32_t tindex, int final) {
  TVMFFIAny v;
  set_bool(&v, final);
  TVMFFIByteArray n = ba("__ffi_type_final__");
  if (TVMFFITypeRegisterAttr(tindex, &n, &v) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != NULL) TVMFFIObjectDecRef(err);
  }
}

/* __ffi_convert__ of a type (self: its index): what def_convert<TRef>() registers for a
 * non-nullable reference whose cast takes instances only. */
static int convert_to_type(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int32_t t = (int32_t)(intptr_t)self;
  const TVMFFITypeInfo* want = TVMFFIGetTypeInfo(t);
  char msg[256];
  if (n != 1) {
    snprintf(msg, sizeof msg, "%s.__ffi_convert__ expects 1 argument, got %d", want->type_key.data,
             (int)n);
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
    return -1;
  }
  const TVMFFITypeInfo* got = TVMFFIGetTypeInfo(args[0].type_index);
  if (got != NULL && args[0].type_index >= kTVMFFIStaticObjectBegin &&
      (got == want ||
       (got->type_depth > want->type_depth && got->type_ancestors[want->type_depth] == want)))
    return TVMFFIAnyViewToOwnedAny(&args[0], result);
  snprintf(msg, sizeof msg, "Cannot cast from `%s` to `%s`", got ? got->type_key.data : "?",
           want->type_key.data);
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return -1;
}

void tt_def_convert(int32_t tindex) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)tindex, convert_to_type, NULL, &f) != 0) return;
  TVMFFIAny v;
  v.type_index = kTVMFFIFunction;
  v.zero_padding = 0;
  v.v_obj = (TVMFFIObject*)f;
  TVMFFIByteArray n = ba("__ffi_convert__");
  if (TVMFFITypeRegisterAttr(tindex, &n, &v) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != NULL) TVMFFIObjectDecRef(err);
  }
  TVMFFIObjectDecRef(f);
}

void tt_reg_meta(const char* name, TVMFFISafeCallType fn, void* self, const char* doc,
                 const char* schema, const char* extra) {
  char meta[2048];
  size_t k = 0;
  const char* head = "{\"type_schema\":\"";
  memcpy(meta, head, strlen(head));
  k = strlen(head);
  for (const char* p = schema; *p && k + 4 < sizeof(meta); ++p) {
    if (*p == '"' || *p == '\\') meta[k++] = '\\';
    meta[k++] = *p;
  }
  snprintf(meta + k, sizeof(meta) - k, "\"%s%s}", extra ? "," : "", extra ? extra : "");
  TVMFFIObjectHandle f = NULL;
  /* With self non-NULL the function receives self (a fixture entry). */
  if (TVMFFIFunctionCreate(self, fn, NULL, &f) != 0) goto fail;
  TVMFFIMethodInfo info;
  memset(&info, 0, sizeof(info));
  info.name = ba(name);
  info.doc = ba(doc);
  info.metadata = ba(meta);
  info.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  info.method.type_index = kTVMFFIFunction;
  info.method.v_obj = (TVMFFIObject*)f;
  int rc = TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0);
  TVMFFIObjectDecRef(f);
  if (rc == 0) return;
fail:;
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
    fprintf(stderr, "libtvm_ffi_testing: cannot register %s: %s\n", name, c->message.data);
    TVMFFIObjectDecRef(err);
  }
}

/* {"type":"ffi.Function","named_args":{"return":[ret],"params":[...]}}: the first
 * parameter is P(t), the others ARG(t). */
#define SCHEMA(ret, params)                                                 \
  "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"" ret \
  "\"}],"                                                                   \
  "\"params\":[" params "]}}"
#define P(t) "{\"type\":\"" t "\"}"
#define ARG(t) "," P(t)
#define PACKED_SCHEMA "{\"type\":\"ffi.Function\"}"

__attribute__((constructor)) static void testing_init(void) {
  /* Another copy of this library (loaded from another path) is active: keep
   * its registrations, whose code stays mapped, rather than ours, which may
   * be unloaded again. */
  TVMFFIByteArray probe = ba("testing.add_one");
  TVMFFIObjectHandle existing = NULL;
  if (TVMFFIFunctionGetGlobal(&probe, &existing) == 0 && existing != NULL) {
    TVMFFIObjectDecRef(existing);
    return;
  }
  tt_reg("testing.test_raise_error", TestRaiseError, NULL, "Raises an error of the given kind.",
         SCHEMA("None", P("ffi.String") ARG("ffi.String")));
  tt_reg("testing.add_one", add_one, NULL, "Returns x + 1.", SCHEMA("int", P("int")));
  /* packed (any arguments): a schema without "args", as C++ def_packed registers them */
  tt_reg("testing.nop", nop, NULL, "Ignores its arguments.", PACKED_SCHEMA);
  tt_reg("testing.echo", echo, NULL, "Returns its first argument.", PACKED_SCHEMA);
  tt_reg("testing.apply", TestApply, NULL, "Calls f(*args).", PACKED_SCHEMA);
  tt_reg("testing.run_check_signal", run_check_signal, NULL,
         "Sleeps nsec seconds, checking for signals every second.", SCHEMA("None", P("int")));
  tt_reg("testing.object_use_count", object_use_count, NULL, "Strong count of an object.",
         SCHEMA("int", P("ffi.Object")));
  tt_reg("testing.make_unregistered_object", make_unregistered_object, NULL,
         "An object whose type has no Python class.", SCHEMA("ffi.Object", ""));
  tt_reg("testing.get_add_one_c_symbol", get_add_one_c_symbol, NULL,
         "Address of a raw safe-call function computing x + 1.", SCHEMA("int", ""));
  tt_reg("testing.get_mlir_add_one_c_symbol", get_mlir_add_one_c_symbol, NULL,
         "Address of an MLIR-packed wrapper computing x + 1.", SCHEMA("int", ""));
  tt_reg("testing.optional_tensor_view_has_value", optional_tensor_view_has_value, NULL,
         "Whether an optional tensor argument was given.", SCHEMA("bool", P("Any")));
  tt_reg("testing.make_array_with_tensor", make_array_with_tensor, NULL, "Array[t]",
         SCHEMA("ffi.Array", P("ffi.Tensor")));
  tt_reg("testing.make_array_with_mixed", make_array_with_mixed, NULL, "Array[t, x, \"hello\"]",
         SCHEMA("ffi.Array", P("ffi.Tensor") ARG("Any")));
  tt_reg("testing.make_nested_array_with_tensor", make_nested_array_with_tensor, NULL,
         "Array[Array[t, 42], t]", SCHEMA("ffi.Array", P("ffi.Tensor")));
  tt_reg("testing.make_list_with_tensor", make_list_with_tensor, NULL, "List[t, x]",
         SCHEMA("ffi.List", P("ffi.Tensor") ARG("Any")));
  tt_reg("testing.make_map_with_tensor", make_map_with_tensor, NULL,
         "Map{tensor: t, value: 42, name: test}", SCHEMA("ffi.Map", P("ffi.Tensor")));
  tt_reg("testing.make_dict_with_tensor", make_dict_with_tensor, NULL, "Dict{tensor: t, value: 42}",
         SCHEMA("ffi.Dict", P("ffi.Tensor")));
  tt_reg("testing.make_empty_array_with_tensor_input", make_empty_array_with_tensor_input, NULL,
         "An empty Array.", SCHEMA("ffi.Array", P("ffi.Tensor")));
  tt_reg("testing.make_nested_map_with_tensor", make_nested_map_with_tensor, NULL,
         "Map{array: Array[t1, t2], map: Map{t: t1}, scalar: 99}",
         SCHEMA("ffi.Map", P("ffi.Tensor") ARG("ffi.Tensor")));
  tvmffi_testing__schema_init();
  tvmffi_testing__objects_init();
  tvmffi_testing__fixtures_init();
  tvmffi_testing__enums_init();
  register_unregistered_types();
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_testing.add_one", (void*)add_one_c);
}
