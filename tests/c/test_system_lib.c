/*
 * test_system_lib.c -- the system library (docs/abi.md §13.7, §11.4): symbols
 * registered with TVMFFIEnvModRegisterSystemLibSymbol from static
 * initialisers, ffi.SystemLib with and without prefix, context symbols and
 * __tvm_ffi__library_ctx through the symbol table; a kernel carrying
 * NEEDED libtvm_ffi.so binds to this process's runtime; and the testing
 * library (linked in) registers its globals and __tvm_ffi_testing.add_one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include "check.h"

int TVMFFITestingDummyTarget(void); /* from libtvm_ffi_testing.so */

static TVMFFIAny v_none(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  return v;
}

static const char* str_of(const TVMFFIAny* v) {
  static char small[8];
  if (v->type_index == kTVMFFISmallStr) {
    memcpy(small, v->v_bytes, v->small_str_len);
    small[v->small_str_len] = '\0';
    return small;
  }
  if (v->type_index == kTVMFFIStr) return TVMFFIBytesGetByteArrayPtr(v->v_obj)->data;
  FAIL("expected a string, got type index %d", v->type_index);
}

/* ---- statically registered symbols -------------------------------------- */

static int sys_add(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  CHECK_EQ_INT(n, 2);
  r->type_index = kTVMFFIInt;
  r->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}
static int sys_sub(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  CHECK_EQ_INT(n, 2);
  r->type_index = kTVMFFIInt;
  r->v_int64 = args[0].v_int64 - args[1].v_int64;
  return 0;
}
static int sys_mul(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  CHECK_EQ_INT(n, 2);
  r->type_index = kTVMFFIInt;
  r->v_int64 = args[0].v_int64 * args[1].v_int64;
  return 0;
}
static int sys_handle_is_null(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)args;
  (void)n;
  r->type_index = kTVMFFIBool;
  r->v_int64 = h == NULL;
  return 0;
}
static int sys_doc(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)n;
  TVMFFIByteArray b = check_ba("Multiplies two integers.");
  return TVMFFIStringFromByteArray(&b, r);
}

static void* g_ctx_token;  /* plays __tvm_ffi__library_ctx of prefix "sl." */
static void* g_ctx_helper; /* a context-symbol variable of prefix "sl." */
static int g_helper_value;

/* Runs from a static initialiser, as generated system-lib code does. */
__attribute__((constructor)) static void register_symbols(void) {
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sl.add", (void*)sys_add);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_plain_mul", (void*)sys_mul);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sl.handle_is_null", (void*)sys_handle_is_null);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__doc_plain_mul", (void*)sys_doc);
  TVMFFIEnvModRegisterSystemLibSymbol("sl.__tvm_ffi__library_ctx", (void*)&g_ctx_token);
  TVMFFIEnvModRegisterSystemLibSymbol("sl.helper_slot", (void*)&g_ctx_helper);
}

static TVMFFIObjectHandle system_lib(const char* prefix) {
  TVMFFIAny a = check_any_cstr(prefix), r;
  CHECK_OK(check_call_global("ffi.SystemLib", &a, prefix ? 1 : 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIModule);
  return r.v_obj;
}

static TVMFFIObjectHandle get_fn(TVMFFIObjectHandle m, const char* name) {
  TVMFFIAny a[3] = {check_any_obj(m), check_any_cstr(name), v_none()}, r;
  a[2].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", a, 3, &r));
  if (r.type_index == kTVMFFINone) return NULL;
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  return r.v_obj;
}

static int64_t call2(TVMFFIObjectHandle f, int64_t x, int64_t y) {
  TVMFFIAny a[2] = {check_any_int(x), check_any_int(y)}, r = v_none();
  CHECK_OK(TVMFFIFunctionCall(f, a, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  return r.v_int64;
}

static void test_prefixes(void) {
  /* context symbols must be registered before the module is built */
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("helper_slot", &g_helper_value));
  TVMFFIObjectHandle sl = system_lib("sl.");
  CHECK(g_ctx_token == (char*)sl - 8); /* the token is the C++ object address */
  CHECK(g_ctx_helper == &g_helper_value);

  /* prefix + name first, then the bare name */
  TVMFFIObjectHandle f = get_fn(sl, "add");
  CHECK(f != NULL);
  CHECK_EQ_INT(call2(f, 2, 3), 5);
  TVMFFIObjectDecRef(f);
  f = get_fn(sl, "plain_mul");
  CHECK(f != NULL);
  CHECK_EQ_INT(call2(f, 6, 7), 42);
  TVMFFIObjectDecRef(f);
  f = get_fn(sl, "handle_is_null");
  TVMFFIAny r = v_none();
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  TVMFFIObjectDecRef(f);
  CHECK(get_fn(sl, "missing") == NULL);

  /* without a prefix only bare names resolve */
  TVMFFIObjectHandle plain = system_lib(NULL);
  CHECK(plain != sl);
  CHECK(get_fn(plain, "add") == NULL);
  f = get_fn(plain, "sl.add");
  CHECK(f != NULL);
  TVMFFIObjectDecRef(f);

  /* one module per prefix, for the whole process */
  TVMFFIObjectHandle again = system_lib("sl.");
  CHECK(again == sl);
  TVMFFIObjectDecRef(again);
  again = system_lib("");
  CHECK(again == plain);
  TVMFFIObjectDecRef(again);

  /* kind, doc through the table, symbols registered after creation */
  TVMFFIAny a[3] = {check_any_obj(plain), check_any_cstr("plain_mul"), v_none()};
  a[2].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_STR(str_of(&r), "Multiplies two integers.");
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetKind", a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "library");
  check_any_release(&r);
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sl.late", (void*)sys_add));
  f = get_fn(sl, "late");
  CHECK(f != NULL);
  CHECK_EQ_INT(call2(f, 1, 1), 2);
  TVMFFIObjectDecRef(f);
  /* re-registration with another address warns and replaces */
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sl.late", (void*)sys_sub));
  f = get_fn(sl, "late");
  CHECK_EQ_INT(call2(f, 5, 1), 4);
  TVMFFIObjectDecRef(f);
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol(NULL, (void*)sys_sub));

  TVMFFIAny bad = check_any_int(1);
  CHECK_RAISED(check_call_global("ffi.SystemLib", &bad, 1, &r), "TypeError", "");
  TVMFFIAny two[2] = {check_any_cstr("a"), check_any_cstr("b")};
  CHECK_RAISED(check_call_global("ffi.SystemLib", two, 2, &r), "TypeError", "");

  TVMFFIObjectDecRef(plain);
  TVMFFIObjectDecRef(sl);
}

static int count_runtime(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  const char* slash = strrchr(info->dlpi_name, '/');
  const char* base = slash ? slash + 1 : info->dlpi_name;
  if (strcmp(base, "libtvm_ffi.so") == 0) ++*(int*)data;
  return 0;
}

/* kstatic.so carries NEEDED libtvm_ffi.so; its constructor registers a global
 * and a system-lib symbol, which must land in our runtime, not a second copy. */
static void test_needed_runtime_binds_to_ours(void) {
  char path[1200];
  const char* dir = getenv("TVMFFI_TEST_KERNEL_DIR");
  char cwd[512];
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  if (dir == NULL) dir = "tests/c/kernels/.libs";
  if (dir[0] == '/')
    snprintf(path, sizeof(path), "%s/kstatic.so", dir);
  else
    snprintf(path, sizeof(path), "%s/%s/kstatic.so", cwd, dir);
  TVMFFIAny a = check_any_cstr(path), r;
  CHECK_OK(check_call_global("ffi.ModuleLoadFromFile", &a, 1, &r));
  TVMFFIObjectHandle m = r.v_obj;
  /* keep the code of the registered functions mapped */
  a = check_any_obj(m);
  CHECK_OK(check_call_global("ffi.ModuleGlobalsAdd", &a, 1, &r));

  int copies = 0;
  dl_iterate_phdr(count_runtime, &copies);
  CHECK_EQ_INT(copies, 1);

  TVMFFIByteArray name = check_ba("kstatic.hello");
  TVMFFIObjectHandle hello = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&name, &hello));
  CHECK(hello != NULL);
  TVMFFIAny args[2] = {check_any_int(1), check_any_int(2)};
  r = v_none();
  CHECK_OK(TVMFFIFunctionCall(hello, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 7002);
  TVMFFIObjectDecRef(hello);

  TVMFFIObjectHandle ks = system_lib("kstatic.");
  TVMFFIObjectHandle f = get_fn(ks, "sys_add");
  CHECK(f != NULL);
  CHECK_EQ_INT(call2(f, 40, 2), 42);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(ks);
  TVMFFIObjectDecRef(m);
}

/* The testing library is linked in: its constructor registered testing.*. */
static void test_testing_library(void) {
  CHECK_EQ_INT(TVMFFITestingDummyTarget(), 0);
  TVMFFIObjectHandle t = system_lib("testing.");
  TVMFFIObjectHandle f = get_fn(t, "add_one");
  CHECK(f != NULL);
  TVMFFIAny a[2] = {check_any_int(41), v_none()}, r = v_none();
  CHECK_OK(TVMFFIFunctionCall(f, a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(t);

  CHECK_OK(check_call_global("testing.add_one", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  a[0] = check_any_cstr("x");
  CHECK_RAISED(check_call_global("testing.add_one", a, 1, &r), "TypeError",
               "Mismatched type on argument #0 when calling: `testing.add_one(0: int) -> int`."
               " Expected `int` but got `const char*`");
  a[0] = check_any_cstr("ValueError");
  a[1] = check_any_cstr("raised on purpose");
  CHECK_RAISED(check_call_global("testing.test_raise_error", a, 2, &r), "ValueError",
               "raised on purpose");
  /* errors raised through apply keep their kind and the raise-site frame */
  TVMFFIByteArray rn = check_ba("testing.test_raise_error");
  TVMFFIObjectHandle raiser = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&rn, &raiser));
  TVMFFIAny ap[3] = {check_any_obj(raiser), check_any_cstr("KeyError"),
                     check_any_cstr("through apply")};
  CHECK_EQ_INT(check_call_global("testing.apply", ap, 3, &r), -1);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err != NULL);
  CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(err)->kind, "KeyError");
  CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(err)->message, "through apply");
  CHECK(strstr(TVMFFIErrorGetCellPtr(err)->backtrace.data, "TestRaiseError") != NULL);
  TVMFFIObjectDecRef(err);
  TVMFFIObjectDecRef(raiser);
  ap[0] = check_any_int(1);
  CHECK_RAISED(check_call_global("testing.apply", ap, 1, &r), "TypeError",
               "Expected `ffi.Function` but got `int`");
  CHECK_RAISED(check_call_global("testing.apply", ap, 0, &r), "TypeError", "");
  CHECK_RAISED(check_call_global("testing.echo", ap, 0, &r), "TypeError", "at least 1");
  ap[0] = check_any_int(1);
  ap[1] = check_any_cstr("m");
  CHECK_RAISED(check_call_global("testing.test_raise_error", ap, 2, &r), "TypeError",
               "argument #0");
  CHECK_RAISED(check_call_global("testing.test_raise_error", ap, 1, &r), "TypeError",
               "Expected 2 but got 1 arguments");

  a[0] = check_any_int(5);
  CHECK_OK(check_call_global("testing.echo", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 5);
  CHECK_OK(check_call_global("testing.nop", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);

  /* apply(f, x) calls f(x) */
  TVMFFIByteArray name = check_ba("testing.add_one");
  TVMFFIObjectHandle add_one = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&name, &add_one));
  a[0] = check_any_obj(add_one);
  a[1] = check_any_int(9);
  CHECK_OK(check_call_global("testing.apply", a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 10);
  CHECK_OK(check_call_global("testing.object_use_count", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 2); /* ours and the registry's */
  TVMFFIObjectDecRef(add_one);

  /* the raw C symbol wrapped with ffi.FunctionFromExternC-style creation */
  CHECK_OK(check_call_global("testing.get_add_one_c_symbol", a, 0, &r));
  TVMFFISafeCallType raw = (TVMFFISafeCallType)(intptr_t)r.v_int64;
  a[0] = check_any_int(1);
  r = v_none();
  CHECK_OK(raw(NULL, a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 2);

  /* the MLIR-packed wrapper of the same */
  CHECK_OK(check_call_global("testing.get_mlir_add_one_c_symbol", a, 0, &r));
  void (*packed_fn)(void**) = (void (*)(void**))(intptr_t)r.v_int64;
  {
    void* handle = NULL;
    TVMFFIAny arg = check_any_int(41), res = v_none();
    const TVMFFIAny* argp = &arg;
    int32_t nargs = 1;
    TVMFFIAny* resp = &res;
    int rc = -7;
    void* slots[5] = {&handle, &argp, &nargs, &resp, &rc};
    packed_fn(slots);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(res.v_int64, 42);
  }

  /* an object of a type that only reflection knows */
  CHECK_OK(check_call_global("testing.make_unregistered_object", a, 0, &r));
  CHECK(r.type_index >= kTVMFFIDynObjectBegin);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(r.type_index);
  CHECK_EQ_BYTES(info->type_key, "testing.TestUnregisteredObject");
  CHECK_EQ_INT(info->type_depth, 2);
  CHECK_EQ_BYTES(info->type_ancestors[1]->type_key, "testing.TestUnregisteredBaseObject");
  CHECK_EQ_INT(info->num_fields, 1);
  TVMFFIAny fv = v_none();
  CHECK_OK(info->fields[0].getter((char*)r.v_obj + info->fields[0].offset, &fv));
  CHECK_EQ_INT(fv.v_int64, 42);
  CHECK_EQ_INT(info->num_methods, 1);
  TVMFFIAny self = r, mr = v_none();
  CHECK_OK(TVMFFIFunctionCall(info->methods[0].method.v_obj, &self, 1, &mr));
  CHECK_EQ_INT(mr.v_int64, 44);
  check_any_release(&r);

  /* optional tensor argument */
  a[0] = v_none();
  CHECK_OK(check_call_global("testing.optional_tensor_view_has_value", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 0);
  int64_t shape[1] = {1};
  float data[1] = {0};
  DLTensor dl = {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  a[0].type_index = kTVMFFIDLTensorPtr;
  a[0].v_ptr = &dl;
  CHECK_OK(check_call_global("testing.optional_tensor_view_has_value", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  a[0] = check_any_int(3);
  CHECK_RAISED(check_call_global("testing.optional_tensor_view_has_value", a, 1, &r), "TypeError",
               "Mismatched type on argument #0");

  /* schema fixtures carry their type_schema metadata */
  a[0] = check_any_cstr("testing.schema_id_int");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", a, 1, &r));
  CHECK(strstr(str_of(&r), "type_schema") != NULL);
  check_any_release(&r);
  a[0] = check_any_int(7);
  CHECK_OK(check_call_global("testing.schema_id_int", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 7);
  a[0] = check_any_cstr("float32");
  CHECK_OK(check_call_global("testing.schema_id_dtype", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDataType);
  CHECK_EQ_INT(r.v_dtype.code, kDLFloat);
  CHECK_EQ_INT(r.v_dtype.bits, 32);
}

/* The testing library is also a kernel library: its __tvm_ffi_testing_dll_*
 * exports carry metadata and doc symbols. */
static void test_testing_library_exports(void) {
  Dl_info info;
  CHECK(dladdr((void*)TVMFFITestingDummyTarget, &info) != 0 && info.dli_fname != NULL);
  TVMFFIAny a[3] = {check_any_cstr(info.dli_fname), v_none(), v_none()}, r;
  CHECK_OK(check_call_global("ffi.ModuleLoadFromFile", a, 1, &r));
  TVMFFIObjectHandle m = r.v_obj;
  TVMFFIObjectHandle f = get_fn(m, "testing_dll_test_add_with_docstring");
  CHECK(f != NULL);
  CHECK_EQ_INT(call2(f, 20, 22), 42);
  TVMFFIObjectDecRef(f);
  a[0] = check_any_obj(m);
  a[1] = check_any_cstr("testing_dll_test_add_with_docstring");
  a[2].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK(strstr(str_of(&r), "Add two integers") != NULL);
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r));
  CHECK(strstr(str_of(&r), "\"type_schema\"") != NULL);
  check_any_release(&r);
  a[1] = check_any_cstr("testing_dll_schema_id_int");
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r));
  CHECK(strstr(str_of(&r), "int") != NULL);
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  f = get_fn(m, "testing_dll_schema_id_int");
  TVMFFIAny x = check_any_cstr("no");
  r = v_none();
  CHECK_RAISED(TVMFFIFunctionCall(f, &x, 1, &r), "TypeError", "Expected `int`");
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(m);

  /* A second copy under another path loads quietly: its constructor keeps
   * the first copy's registrations and leaves no error in the slot. */
  char copy[256], cmd[1024];
  snprintf(copy, sizeof(copy), "/tmp/tvmffi_testing_copy_%d.so", (int)getpid());
  snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", info.dli_fname, copy);
  CHECK(system(cmd) == 0);
  a[0] = check_any_cstr(copy);
  CHECK_OK(check_call_global("ffi.ModuleLoadFromFile", a, 1, &r));
  CHECK_SLOT_CLEAN();
  a[0] = check_any_int(1);
  TVMFFIAny r2;
  CHECK_OK(check_call_global("testing.add_one", a, 1, &r2));
  CHECK_EQ_INT(r2.v_int64, 2);
  check_any_release(&r); /* unloads the copy */
  TVMFFIObjectHandle t = system_lib("testing.");
  f = get_fn(t, "add_one"); /* still the first copy's code */
  TVMFFIAny one = check_any_int(1);
  r2 = v_none();
  CHECK_OK(TVMFFIFunctionCall(f, &one, 1, &r2));
  CHECK_EQ_INT(r2.v_int64, 2);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(t);
  unlink(copy);
}

static void noop_dl_deleter(DLManagedTensor* self) { (void)self; }

static TVMFFIObjectHandle make_tensor(float* data, int64_t* shape, DLManagedTensor* mt) {
  memset(mt, 0, sizeof(*mt));
  mt->dl_tensor.data = data;
  mt->dl_tensor.device.device_type = kDLCPU;
  mt->dl_tensor.ndim = 1;
  mt->dl_tensor.dtype.code = kDLFloat;
  mt->dl_tensor.dtype.bits = 32;
  mt->dl_tensor.dtype.lanes = 1;
  mt->dl_tensor.shape = shape;
  mt->deleter = noop_dl_deleter;
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(mt, 0, 0, &t));
  return t;
}

static int64_t seq_size(const TVMFFIAny* v) { return TVMFFISeqGetCellPtr(v->v_obj)->size; }
static const TVMFFIAny* seq_at(const TVMFFIAny* v, int64_t i) {
  return (const TVMFFIAny*)TVMFFISeqGetCellPtr(v->v_obj)->data + i;
}

static TVMFFIAny map_get(const TVMFFIAny* m, const char* key) {
  TVMFFIAny a[2] = {*m, check_any_cstr(key)}, r;
  CHECK_OK(check_call_global(m->type_index == kTVMFFIMap ? "ffi.MapGetItem" : "ffi.DictGetItem", a,
                             2, &r));
  return r;
}

static void test_testing_containers(void) {
  float d1[2] = {1, 2}, d2[2] = {3, 4};
  int64_t shape[1] = {2};
  DLManagedTensor m1, m2;
  TVMFFIObjectHandle t1 = make_tensor(d1, shape, &m1), t2 = make_tensor(d2, shape, &m2);
  TVMFFIAny a[2] = {check_any_obj(t1), check_any_int(5)}, r, x;

  CHECK_OK(check_call_global("testing.make_array_with_tensor", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  CHECK_EQ_INT(seq_size(&r), 1);
  CHECK(seq_at(&r, 0)->v_obj == t1);
  CHECK_EQ_INT(check_use_count(t1), 2);
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(t1), 1);

  CHECK_OK(check_call_global("testing.make_array_with_mixed", a, 2, &r));
  CHECK_EQ_INT(seq_size(&r), 3);
  CHECK_EQ_INT(seq_at(&r, 1)->v_int64, 5);
  CHECK_EQ_STR(str_of(seq_at(&r, 2)), "hello");
  check_any_release(&r);

  CHECK_OK(check_call_global("testing.make_nested_array_with_tensor", a, 1, &r));
  CHECK_EQ_INT(seq_size(&r), 2);
  CHECK_EQ_INT(seq_at(&r, 0)->type_index, kTVMFFIArray);
  CHECK_EQ_INT(seq_at(seq_at(&r, 0), 1)->v_int64, 42);
  CHECK(seq_at(&r, 1)->v_obj == t1);
  check_any_release(&r);

  CHECK_OK(check_call_global("testing.make_list_with_tensor", a, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIList);
  CHECK_EQ_INT(seq_size(&r), 2);
  check_any_release(&r);

  CHECK_OK(check_call_global("testing.make_map_with_tensor", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIMap);
  x = map_get(&r, "value");
  CHECK_EQ_INT(x.v_int64, 42);
  x = map_get(&r, "name");
  CHECK_EQ_STR(str_of(&x), "test");
  check_any_release(&x);
  x = map_get(&r, "tensor");
  CHECK(x.v_obj == t1);
  check_any_release(&x);
  check_any_release(&r);

  CHECK_OK(check_call_global("testing.make_dict_with_tensor", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDict);
  x = map_get(&r, "value");
  CHECK_EQ_INT(x.v_int64, 42);
  check_any_release(&r);

  CHECK_OK(check_call_global("testing.make_empty_array_with_tensor_input", a, 1, &r));
  CHECK_EQ_INT(seq_size(&r), 0);
  check_any_release(&r);

  a[1] = check_any_obj(t2);
  CHECK_OK(check_call_global("testing.make_nested_map_with_tensor", a, 2, &r));
  x = map_get(&r, "scalar");
  CHECK_EQ_INT(x.v_int64, 99);
  x = map_get(&r, "array");
  CHECK(seq_at(&x, 1)->v_obj == t2);
  check_any_release(&x);
  x = map_get(&r, "map");
  TVMFFIAny y = map_get(&x, "t");
  CHECK(y.v_obj == t1);
  check_any_release(&y);
  check_any_release(&x);
  check_any_release(&r);

  a[0] = check_any_int(1);
  CHECK_RAISED(check_call_global("testing.make_array_with_tensor", a, 1, &r), "TypeError",
               "Expected `ffi.Tensor` but got `int`");
  a[0] = check_any_obj(t1);
  a[1] = check_any_int(1);
  CHECK_RAISED(check_call_global("testing.make_nested_map_with_tensor", a, 2, &r), "TypeError",
               "argument #1");
  CHECK_EQ_INT(check_use_count(t1), 1);
  CHECK_EQ_INT(check_use_count(t2), 1);
  TVMFFIObjectDecRef(t1);
  TVMFFIObjectDecRef(t2);
}

/* Typed identities: conversions and element checks of C++ signatures. */
static void test_schema_fixtures(void) {
  TVMFFIAny a[4], r;
  a[0] = check_any_cstr("cuda:1");
  CHECK_OK(check_call_global("testing.schema_id_device", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDevice);
  CHECK_EQ_INT(r.v_device.device_type, kDLCUDA);
  CHECK_EQ_INT(r.v_device.device_id, 1);
  a[0] = check_any_cstr("cpu");
  CHECK_OK(check_call_global("testing.schema_id_device", a, 1, &r));
  CHECK_EQ_INT(r.v_device.device_type, kDLCPU);
  CHECK_EQ_INT(r.v_device.device_id, 0);
  a[0] = check_any_cstr("llvm");
  CHECK_RAISED(check_call_global("testing.schema_id_device", a, 1, &r), "ValueError",
               "Unknown device: llvm");
  a[0] = check_any_cstr("cpu:");
  CHECK_RAISED(check_call_global("testing.schema_id_device", a, 1, &r), "ValueError",
               "Invalid device index");

  a[0] = check_any_int(3);
  CHECK_OK(check_call_global("testing.schema_id_float", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFloat);
  CHECK(r.v_float64 == 3.0);
  a[0] = v_none();
  CHECK_OK(check_call_global("testing.schema_id_opt_int", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  a[0] = check_any_cstr("a long string argument");
  CHECK_OK(check_call_global("testing.schema_id_variant_int_str", a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "a long string argument");
  check_any_release(&r);

  /* Array -> List conversion with element checks */
  a[0] = check_any_int(1);
  a[1] = check_any_int(2);
  TVMFFIAny arr;
  CHECK_OK(check_call_global("ffi.Array", a, 2, &arr));
  a[0] = arr;
  CHECK_OK(check_call_global("testing.schema_id_list_int", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIList);
  CHECK_EQ_INT(seq_size(&r), 2);
  CHECK_EQ_INT(seq_at(&r, 1)->v_int64, 2);
  check_any_release(&r);
  CHECK_OK(check_call_global("testing.schema_id_arr_int", a, 1, &r));
  CHECK(r.v_obj == arr.v_obj); /* already the right type: same object */
  check_any_release(&r);
  CHECK_RAISED(check_call_global("testing.schema_id_arr_str", a, 1, &r), "TypeError",
               "Expected `Array<str>` but got `ffi.Array`");
  check_any_release(&arr);

  /* Map -> Dict with key/value checks */
  a[0] = check_any_cstr("k");
  a[1] = check_any_int(7);
  TVMFFIAny map;
  CHECK_OK(check_call_global("ffi.Map", a, 2, &map));
  a[0] = map;
  CHECK_OK(check_call_global("testing.schema_id_dict_str_int", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDict);
  TVMFFIAny x = map_get(&r, "k");
  CHECK_EQ_INT(x.v_int64, 7);
  check_any_release(&r);
  CHECK_RAISED(check_call_global("testing.schema_id_map_str_str", a, 1, &r), "TypeError",
               "Map<str, str>");
  check_any_release(&map);

  /* DLTensor* comes back as a view into the argument */
  int64_t shape[1] = {3};
  float data[3] = {0};
  DLTensor dl = {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  a[0] = v_none();
  a[0].type_index = kTVMFFIDLTensorPtr;
  a[0].v_ptr = &dl;
  CHECK_OK(check_call_global("testing.schema_id_dltensor", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDLTensorPtr);
  CHECK(r.v_ptr == &dl);

  a[0] = check_any_int(1);
  a[1] = check_any_cstr("x");
  CHECK_OK(check_call_global("testing.schema_packed", a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  CHECK_RAISED(check_call_global("testing.schema_no_args", a, 1, &r), "TypeError",
               "Expected 0 but got 1 arguments");
}

static int32_t type_index_of(const char* key) {
  TVMFFIByteArray k = check_ba(key);
  int32_t idx = -1;
  CHECK_OK(TVMFFITypeKeyToIndex(&k, &idx));
  return idx;
}

static const TVMFFIFieldInfo* field_of(int32_t tindex, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tindex);
  for (int32_t i = 0; i < info->num_fields; ++i)
    if (info->fields[i].name.size == strlen(name) &&
        memcmp(info->fields[i].name.data, name, strlen(name)) == 0)
      return &info->fields[i];
  FAIL("type %d has no field %s", tindex, name);
}

static TVMFFIObjectHandle method_of(int32_t tindex, const char* name, int64_t* flags) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tindex);
  for (int32_t i = 0; i < info->num_methods; ++i)
    if (info->methods[i].name.size == strlen(name) &&
        memcmp(info->methods[i].name.data, name, strlen(name)) == 0) {
      *flags = info->methods[i].flags;
      return info->methods[i].method.v_obj;
    }
  FAIL("type %d has no method %s", tindex, name);
}

static TVMFFIAny get_field(TVMFFIObjectHandle obj, const TVMFFIFieldInfo* f) {
  TVMFFIAny r = v_none();
  CHECK_OK(f->getter((char*)obj + f->offset, &r));
  return r;
}

/* Reflected fixtures: TestIntPair, TestObjectBase/Derived. */
static void test_object_fixtures(void) {
  int32_t pair = type_index_of("testing.TestIntPair");
  int64_t flags = 0;
  TVMFFIObjectHandle init = method_of(pair, "__ffi_init__", &flags);
  CHECK(flags & kTVMFFIFieldFlagBitMaskIsStaticMethod);
  TVMFFIAny a[2] = {check_any_int(3), check_any_int(4)}, r = v_none();
  CHECK_OK(TVMFFIFunctionCall(init, a, 2, &r));
  CHECK_EQ_INT(r.type_index, pair);
  TVMFFIObjectHandle p = r.v_obj;
  CHECK_EQ_INT(get_field(p, field_of(pair, "a")).v_int64, 3);
  CHECK_EQ_BYTES(field_of(pair, "b")->doc, "Field `b`");
  CHECK(!(field_of(pair, "a")->flags & kTVMFFIFieldFlagBitMaskWritable));
  TVMFFIObjectHandle sum = method_of(pair, "sum", &flags);
  a[0] = check_any_obj(p);
  r = v_none();
  CHECK_OK(TVMFFIFunctionCall(sum, a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 7);
  CHECK_OK(check_call_global("testing.TestIntPairSum", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 7);
  a[0] = check_any_int(1);
  CHECK_RAISED(check_call_global("testing.TestIntPairSum", a, 1, &r), "TypeError",
               "Expected `testing.TestIntPair` but got `int`");
  TVMFFIByteArray attr = check_ba("__ffi_init__");
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&attr);
  CHECK(col != NULL && col->size > pair && col->data[pair].v_obj == init);
  CHECK_EQ_INT(check_use_count(p), 1);
  TVMFFIObjectDecRef(p);

  int32_t base = type_index_of("testing.TestObjectBase");
  int32_t derived = type_index_of("testing.TestObjectDerived");
  const TVMFFITypeInfo* dinfo = TVMFFIGetTypeInfo(derived);
  CHECK_EQ_INT(dinfo->type_depth, 2);
  CHECK(dinfo->type_ancestors[1]->type_index == base);
  TVMFFIObjectHandle o = NULL;
  CHECK_OK(dinfo->metadata->creator(&o));
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(o), derived);
  const TVMFFIFieldInfo* fi64 = field_of(base, "v_i64");
  CHECK(fi64->flags & kTVMFFIFieldFlagBitMaskHasDefault);
  CHECK_EQ_INT(fi64->default_value_or_factory.v_int64, 10);
  CHECK_EQ_INT(get_field(o, fi64).v_int64, 10);
  CHECK(get_field(o, field_of(base, "v_f64")).v_float64 == 10.0);
  r = get_field(o, field_of(base, "v_str"));
  CHECK_EQ_STR(str_of(&r), "hello");
  check_any_release(&r);
  /* setters: type checked; containers are held and released */
  TVMFFIAny v = check_any_int(32);
  CHECK_OK(((TVMFFIFieldSetter)fi64->setter)((char*)o + fi64->offset, &v));
  TVMFFIObjectHandle add = method_of(base, "add_i64", &flags);
  a[0] = check_any_obj(o);
  a[1] = check_any_int(10);
  r = v_none();
  CHECK_OK(TVMFFIFunctionCall(add, a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  const TVMFFIFieldInfo* fmap = field_of(derived, "v_map");
  v = check_any_cstr("not a map");
  CHECK_RAISED(((TVMFFIFieldSetter)fmap->setter)((char*)o + fmap->offset, &v), "TypeError",
               "ffi.Map");
  TVMFFIAny m;
  CHECK_OK(check_call_global("ffi.Map", NULL, 0, &m));
  CHECK_OK(((TVMFFIFieldSetter)fmap->setter)((char*)o + fmap->offset, &m));
  CHECK_EQ_INT(check_use_count(m.v_obj), 2);
  v = check_any_cstr("a longer string value");
  const TVMFFIFieldInfo* fstr = field_of(base, "v_str");
  CHECK_OK(((TVMFFIFieldSetter)fstr->setter)((char*)o + fstr->offset, &v));
  r = get_field(o, fstr);
  CHECK_EQ_STR(str_of(&r), "a longer string value");
  check_any_release(&r);
  TVMFFIObjectDecRef(o);
  CHECK_EQ_INT(check_use_count(m.v_obj), 1);
  check_any_release(&m);
}

static int fake_check_signals(void) { return -1; }
static void* fake_gil_ensure(void) { return NULL; }
static void fake_gil_release(void* s) { (void)s; }

static void test_run_check_signal(void) {
  TVMFFIAny a = check_any_int(0), r;
  CHECK_OK(check_call_global("testing.run_check_signal", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  /* a frontend reporting a pending signal: EnvErrorAlreadySet after 1 s */
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Ensure", (void*)fake_gil_ensure));
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Release", (void*)fake_gil_release));
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", (void*)fake_check_signals));
  a = check_any_int(3);
  CHECK_RAISED(check_call_global("testing.run_check_signal", &a, 1, &r), "EnvErrorAlreadySet", "");
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", NULL));
}

int main(void) {
  test_prefixes();
  test_needed_runtime_binds_to_ours();
  test_testing_library();
  test_testing_library_exports();
  test_testing_containers();
  test_schema_fixtures();
  test_object_fixtures();
  test_run_check_signal();
  printf("test_system_lib: ok\n");
  return 0;
}
