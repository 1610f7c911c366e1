/*
 * run_add_one.c -- loads the kernel library add_one_c.so through the runtime
 * and calls it from C:
 *
 *   run_add_one path/to/add_one_c.so
 *
 * Loading and lookup are global functions of the runtime
 * (ffi.ModuleLoadFromFile, ffi.ModuleGetFunction); every call goes through
 * TVMFFIFunctionCall.  A call that fails returns -1 and leaves an ffi.Error
 * in the thread-local slot, which the caller moves out and releases.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

/* Prints the raised error as "Kind: message" and releases it. */
static void print_raised_error(const char* what) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  printf("%s: %s: %s\n", what, cell->kind.data, cell->message.data);
  TVMFFIObjectDecRef(err);
}

/* Calls `f(args...)`; the result slot starts as None. */
static int call(TVMFFIObjectHandle f, TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  memset(result, 0, sizeof *result);
  return TVMFFIFunctionCall(f, args, num_args, result);
}

/* Calls the global function `name`. */
static int call_global(const char* name, TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  TVMFFIByteArray key = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&key, &f) != 0) return -1;
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "global function not found");
    return -1;
  }
  int rc = call(f, args, num_args, result);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Function `name` of `module` (a new reference), or NULL after raising. */
static TVMFFIObjectHandle get_function(TVMFFIObjectHandle module, const char* name) {
  TVMFFIAny args[3] = {{0}};
  args[0].type_index = kTVMFFIModule;
  args[0].v_obj = (TVMFFIObject*)module;
  args[1].type_index = kTVMFFIRawStr;
  args[1].v_c_str = name;
  args[2].type_index = kTVMFFIBool; /* query_imports */
  args[2].v_int64 = 0;
  TVMFFIAny fn;
  if (call_global("ffi.ModuleGetFunction", args, 3, &fn) != 0) return NULL;
  if (fn.type_index != kTVMFFIFunction) { /* None: no such export */
    const char* message[] = {"the library exports no function ", name};
    TVMFFIErrorSetRaisedFromCStrParts("AttributeError", message, 2);
    return NULL;
  }
  return fn.v_obj;
}

static void print_tensor(const char* label, const DLTensor* t) {
  printf("%s = [", label);
  for (int64_t i = 0; i < t->shape[0]; ++i)
    printf(i ? ", %g" : "%g", (double)((const float*)t->data)[i]);
  printf("]\n");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/add_one_c.so\n", argv[0]);
    return 2;
  }
  /* 1. Load the library: ffi.ModuleLoadFromFile(path) -> Module. */
  TVMFFIAny path = {0}, module;
  path.type_index = kTVMFFIRawStr;
  path.v_c_str = argv[1];
  if (call_global("ffi.ModuleLoadFromFile", &path, 1, &module) != 0) {
    print_raised_error("loading the library failed");
    return 1;
  }

  /* 2. Look up the exported functions. */
  TVMFFIObjectHandle add_one = get_function(module.v_obj, "add_one");
  TVMFFIObjectHandle always_fails = add_one ? get_function(module.v_obj, "always_fails") : NULL;
  if (always_fails == NULL) {
    print_raised_error("lookup failed");
    TVMFFIObjectDecRef(add_one);
    TVMFFIObjectDecRef(module.v_obj);
    return 1;
  }

  /* 3. Call add_one on two float32 tensors described by DLTensor. */
  float x_data[5] = {1, 2, 3, 4, 5}, y_data[5] = {0};
  int64_t shape[1] = {5};
  DLTensor x = {x_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor y = x;
  y.data = y_data;
  TVMFFIAny args[2] = {{0}}, result;
  args[0].type_index = args[1].type_index = kTVMFFIDLTensorPtr;
  args[0].v_ptr = &x;
  args[1].v_ptr = &y;
  int status = 0;
  print_tensor("x", &x);
  if (call(add_one, args, 2, &result) == 0) {
    print_tensor("add_one(x, y): y", &y);
  } else {
    print_raised_error("add_one failed");
    status = 1;
  }

  /* 4. A failing call: -1, and the error waits in the slot. */
  if (call(always_fails, NULL, 0, &result) != 0) {
    print_raised_error("always_fails()");
  } else {
    printf("always_fails() unexpectedly succeeded\n");
    status = 1;
  }

  /* Functions hold the module: the library is unloaded with the last of them. */
  TVMFFIObjectDecRef(add_one);
  TVMFFIObjectDecRef(always_fails);
  TVMFFIObjectDecRef(module.v_obj);
  return status;
}
