/*
 * test_orcjit_c.c -- the ORC JIT add-on driven from plain C through the
 * public API only: load libtvm_ffi_orcjit.so as a module (registers the .o
 * loader), load .o files with ffi.ModuleLoadFromFile, call, check errors
 * and lifetimes, and ffi.Module.from_symbol_lookup's argument checks.
 *
 * usage: test_orcjit_c LIBTVM_FFI_ORCJIT.so TEST_FUNCS.o TEST_ERROR.o
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvm/ffi/c_api.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static TVMFFIByteArray ba(const char* s) {
  TVMFFIByteArray b = {s, strlen(s)};
  return b;
}

static TVMFFIAny str_arg(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static TVMFFIAny int_arg(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray n = ba(name);
  TVMFFIObjectHandle f = NULL;
  CHECK(TVMFFIFunctionGetGlobal(&n, &f) == 0 && f != NULL);
  return f;
}

/* The slot must be clean after every successful call. */
static void check_clean(void) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e == NULL);
}

/* The last call failed with `kind` and a message containing `needle`. */
static void check_raised(const char* kind, const char* needle) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(e);
  if (c->kind.size != strlen(kind) || memcmp(c->kind.data, kind, c->kind.size) != 0 ||
      strstr(c->message.data, needle) == NULL) {
    fprintf(stderr, "expected %s containing '%s', got %.*s: %.*s\n", kind, needle,
            (int)c->kind.size, c->kind.data, (int)c->message.size, c->message.data);
    exit(1);
  }
  TVMFFIObjectDecRef(e);
}

/* ffi.ModuleLoadFromFile(path): 0 and *out, or the error left raised. */
static int load(const char* path, TVMFFIObjectHandle* out) {
  TVMFFIObjectHandle f = global("ffi.ModuleLoadFromFile");
  TVMFFIAny a = str_arg(path), r;
  memset(&r, 0, sizeof(r));
  int rc = TVMFFIFunctionCall(f, &a, 1, &r);
  TVMFFIObjectDecRef(f);
  if (rc == 0) {
    CHECK(r.type_index == kTVMFFIModule);
    *out = r.v_obj;
  }
  return rc;
}

static TVMFFIObjectHandle get_function(TVMFFIObjectHandle mod, const char* name) {
  TVMFFIObjectHandle f = global("ffi.ModuleGetFunction");
  TVMFFIAny args[2], r;
  memset(args, 0, sizeof(args));
  memset(&r, 0, sizeof(r));
  args[0].type_index = kTVMFFIModule;
  args[0].v_obj = (TVMFFIObject*)mod;
  args[1] = str_arg(name);
  CHECK(TVMFFIFunctionCall(f, args, 2, &r) == 0);
  TVMFFIObjectDecRef(f);
  check_clean();
  if (r.type_index == kTVMFFINone) return NULL;
  CHECK(r.type_index == kTVMFFIFunction);
  return r.v_obj;
}

int main(int argc, char** argv) {
  CHECK(argc == 4);
  TVMFFIObjectHandle addon = NULL, mod = NULL, emod = NULL;
  CHECK(load(argv[1], &addon) == 0);
  check_clean();

  CHECK(load(argv[2], &mod) == 0);
  check_clean();
  TVMFFIObjectHandle add = get_function(mod, "test_add");
  CHECK(add != NULL);
  CHECK(get_function(mod, "no_such_function") == NULL);
  CHECK(get_function(mod, "__tvm_ffi_test_add") == NULL); /* names are unprefixed */
  /* the function keeps the module (and its JIT code) alive */
  TVMFFIObjectDecRef(mod);
  TVMFFIAny args[2] = {int_arg(40), int_arg(2)}, r;
  memset(&r, 0, sizeof(r));
  CHECK(TVMFFIFunctionCall(add, args, 2, &r) == 0);
  check_clean();
  CHECK(r.type_index == kTVMFFIInt && r.v_int64 == 42);
  TVMFFIObjectDecRef(add);

  /* errors raised by JIT code keep their kind and message */
  CHECK(load(argv[3], &emod) == 0);
  TVMFFIObjectHandle err = get_function(emod, "test_error");
  memset(&r, 0, sizeof(r));
  CHECK(TVMFFIFunctionCall(err, NULL, 0, &r) != 0);
  check_raised("ValueError", "test error");
  TVMFFIObjectDecRef(err);
  TVMFFIObjectDecRef(emod);

  CHECK(load("/nonexistent/dir/x.o", &mod) != 0);
  check_raised("IOError", "Failed to read object file: /nonexistent/dir/x.o");

  /* the runtime hook the add-on builds on checks its arguments */
  TVMFFIObjectHandle fsl = global("ffi.Module.from_symbol_lookup");
  TVMFFIAny bad[2] = {str_arg("orcjit"), int_arg(1)};
  memset(&r, 0, sizeof(r));
  CHECK(TVMFFIFunctionCall(fsl, bad, 2, &r) != 0);
  check_raised("TypeError", "ffi.Module.from_symbol_lookup");
  CHECK(TVMFFIFunctionCall(fsl, bad, 1, &r) != 0);
  check_raised("TypeError", "");
  TVMFFIObjectDecRef(fsl);
  TVMFFIObjectDecRef(addon);
  printf("test_orcjit_c: ok\n");
  return 0;
}
