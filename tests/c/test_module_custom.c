/*
 * test_module_custom.c -- ffi.Module.from_symbol_lookup(kind, lookup): a
 * library module over a symbol callback (c/src/module_custom.c), as the ORC
 * JIT add-on uses it.  Construction steps (context symbols,
 * __tvm_ffi__library_ctx), function lookup and lifetimes, errors raised by
 * or returned from the callback, argument checks.
 */
#include <string.h>

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include "check.h"

static void* g_library_ctx;     /* __tvm_ffi__library_ctx of the fake library */
static void* g_ctx_slot;        /* a registered context symbol */
static int g_lookup_freed;      /* the lookup function's deleter ran */
static int g_mode;              /* 0 normal, 1 raise, 2 return an int */

static int add_one(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK(n == 1 && args[0].type_index == kTVMFFIInt);
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 + 1;
  return 0;
}

static int lookup(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK(n == 1);
  CHECK_EQ_INT(args[0].type_index, kTVMFFIRawStr); /* the runtime passes plain C strings */
  const char* name = args[0].v_c_str;
  if (g_mode == 1) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "lookup exploded");
    return -1;
  }
  result->zero_padding = 0;
  if (g_mode == 2) {
    result->type_index = kTVMFFIInt;
    result->v_int64 = 5;
    return 0;
  }
  void* p = NULL;
  if (strcmp(name, "__tvm_ffi_add_one") == 0) p = (void*)add_one;
  if (strcmp(name, "__tvm_ffi__library_ctx") == 0) p = &g_library_ctx;
  if (strcmp(name, "test_module_custom_ctx") == 0) p = &g_ctx_slot;
  result->type_index = p ? kTVMFFIOpaquePtr : kTVMFFINone;
  result->v_ptr = p;
  return 0;
}

static void lookup_free(void* self) {
  (void)self;
  g_lookup_freed = 1;
}

static TVMFFIAny obj_arg(TVMFFIObjectHandle h, int32_t type_index) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = type_index;
  a.v_obj = (TVMFFIObject*)h;
  return a;
}

static TVMFFIAny str_arg(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

/* ffi.ModuleGetFunction(m, name): returns the rc; *out is the result. */
static int get_function(TVMFFIObjectHandle m, const char* name, TVMFFIAny* out) {
  TVMFFIAny args[2] = {obj_arg(m, kTVMFFIModule), str_arg(name)};
  return check_call_global("ffi.ModuleGetFunction", args, 2, out);
}

int main(void) {
  static int token;
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("test_module_custom_ctx", &token));
  TVMFFIObjectHandle fn = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, lookup, lookup_free, &fn));

  TVMFFIAny args[2] = {str_arg("custom.kind"), obj_arg(fn, kTVMFFIFunction)}, r;
  CHECK_OK(check_call_global("ffi.Module.from_symbol_lookup", args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIModule);
  TVMFFIObjectHandle mod = r.v_obj;
  TVMFFIObjectDecRef(fn); /* the module holds its own reference */
  CHECK(!g_lookup_freed);

  /* construction wrote the module token and the registered context symbol */
  CHECK(g_library_ctx == (char*)mod - 8); /* the C++ object address */
  CHECK(g_ctx_slot == &token);

  TVMFFIAny ka = obj_arg(mod, kTVMFFIModule);
  CHECK_OK(check_call_global("ffi.ModuleGetKind", &ka, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIStr); /* longer than a small string */
  CHECK_EQ_BYTES(*(TVMFFIByteArray*)((char*)r.v_obj + 24), "custom.kind");
  check_any_release(&r);

  /* functions: found, absent, and the lifetime chain function -> module -> lookup */
  CHECK_OK(get_function(mod, "add_one", &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  TVMFFIObjectHandle f = r.v_obj;
  CHECK_OK(get_function(mod, "absent", &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  TVMFFIObjectDecRef(mod);
  CHECK(!g_lookup_freed);
  TVMFFIAny x;
  memset(&x, 0, sizeof(x));
  x.type_index = kTVMFFIInt;
  x.v_int64 = 41;
  memset(&r, 0, sizeof(r));
  CHECK_OK(TVMFFIFunctionCall(f, &x, 1, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  TVMFFIObjectDecRef(f);
  CHECK(g_lookup_freed); /* the last function dropped the module, the module its lookup */

  /* a lookup that raises: the error propagates; ImplementsFunction stays quiet */
  g_lookup_freed = 0;
  g_library_ctx = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, lookup, lookup_free, &fn));
  args[1] = obj_arg(fn, kTVMFFIFunction);
  CHECK_OK(check_call_global("ffi.Module.from_symbol_lookup", args, 2, &r));
  mod = r.v_obj;
  g_mode = 1;
  CHECK_RAISED(get_function(mod, "add_one", &r), "ValueError", "lookup exploded");
  TVMFFIAny ia[2] = {obj_arg(mod, kTVMFFIModule), str_arg("add_one")};
  CHECK_OK(check_call_global("ffi.ModuleImplementsFunction", ia, 2, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 0);
  g_mode = 2;
  CHECK_RAISED(get_function(mod, "add_one", &r), "TypeError", "expected an opaque pointer");
  g_mode = 0;
  TVMFFIObjectDecRef(mod);
  TVMFFIObjectDecRef(fn);
  CHECK(g_lookup_freed);

  /* a lookup raising during construction fails the construction cleanly */
  g_mode = 1;
  CHECK_OK(TVMFFIFunctionCreate(NULL, lookup, lookup_free, &fn));
  args[1] = obj_arg(fn, kTVMFFIFunction);
  CHECK_RAISED(check_call_global("ffi.Module.from_symbol_lookup", args, 2, &r), "ValueError",
               "lookup exploded");
  g_mode = 0;

  /* argument checks */
  TVMFFIAny bad[2] = {str_arg(""), obj_arg(fn, kTVMFFIFunction)};
  CHECK_RAISED(check_call_global("ffi.Module.from_symbol_lookup", bad, 2, &r), "ValueError",
               "non-empty");
  bad[0] = str_arg("k");
  bad[1] = str_arg("not a function");
  CHECK_RAISED(check_call_global("ffi.Module.from_symbol_lookup", bad, 2, &r), "TypeError",
               "ffi.Module.from_symbol_lookup");
  CHECK_RAISED(check_call_global("ffi.Module.from_symbol_lookup", bad, 1, &r), "TypeError", "");
  TVMFFIObjectDecRef(fn);
  printf("test_module_custom: ok\n");
  return 0;
}
