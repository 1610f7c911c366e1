/*
 * test_module.c -- library modules (docs/abi.md §13, §14.3, §11.4): loading,
 * function lookup and calls, metadata/doc, load errors, format dispatch and
 * custom loaders, imports and cycles, TVMFFIEnvModLookupFromImports order
 * and caching, context symbols, __tvm_ffi__library_bin, and lifetimes
 * (the library stays mapped while a function from it lives).
 *
 * Kernels come from tests/c/kernels, built into $TVMFFI_TEST_KERNEL_DIR.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* ---- helpers ------------------------------------------------------------ */

static char g_dir[1024];
static char g_tmp[1024];

static const char* kernel(const char* name) {
  static char buf[8][1200];
  static int next;
  char* p = buf[next++ % 8];
  snprintf(p, sizeof(buf[0]), "%s/%s.so", g_dir, name);
  return p;
}

static TVMFFIAny v_none(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  return v;
}
static TVMFFIAny v_bool(int x) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIBool;
  v.v_int64 = x;
  return v;
}

/* Text of an owned or view string value. */
static const char* str_of(const TVMFFIAny* v) {
  static char small[8];
  if (v->type_index == kTVMFFISmallStr) {
    memcpy(small, v->v_bytes, v->small_str_len);
    small[v->small_str_len] = '\0';
    return small;
  }
  if (v->type_index == kTVMFFIStr) return TVMFFIBytesGetByteArrayPtr(v->v_obj)->data;
  if (v->type_index == kTVMFFIRawStr) return v->v_c_str;
  FAIL("expected a string, got type index %d", v->type_index);
}

static int load(const char* path, TVMFFIObjectHandle* out) {
  TVMFFIAny a = check_any_cstr(path), r;
  int rc = check_call_global("ffi.ModuleLoadFromFile", &a, 1, &r);
  if (rc == 0) {
    CHECK_EQ_INT(r.type_index, kTVMFFIModule);
    *out = r.v_obj;
  }
  return rc;
}

static TVMFFIObjectHandle load_ok(const char* path) {
  TVMFFIObjectHandle m = NULL;
  CHECK_OK(load(path, &m));
  CHECK_EQ_INT(check_use_count(m), 1);
  return m;
}

/* ffi.ModuleGetFunction(m, name, query_imports): new reference or NULL. */
static TVMFFIObjectHandle get_fn(TVMFFIObjectHandle m, const char* name, int query) {
  TVMFFIAny a[3] = {check_any_obj(m), check_any_cstr(name), v_bool(query)}, r;
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", a, 3, &r));
  if (r.type_index == kTVMFFINone) return NULL;
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  return r.v_obj;
}

static int call(TVMFFIObjectHandle f, TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  *r = v_none();
  return TVMFFIFunctionCall(f, args, n, r);
}

/* Calls m.<name>(args) and returns the int result. */
static int64_t call_int(TVMFFIObjectHandle m, const char* name, TVMFFIAny* args, int32_t n) {
  TVMFFIObjectHandle f = get_fn(m, name, 0);
  if (f == NULL) FAIL("function %s not found", name);
  TVMFFIAny r;
  CHECK_OK(call(f, args, n, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  TVMFFIObjectDecRef(f);
  return r.v_int64;
}

/* 1 while `path` is mapped in the process. */
static int is_mapped(const char* path) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) return 0;
  dlclose(h);
  return 1;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
}

static int64_t times_two(int64_t x) { return 2 * x; }

/* ---- cases -------------------------------------------------------------- */

static void test_load_and_call(void) {
  /* kadd depends on libc, whose data symbols dlsym also finds through kadd's
   * handle: a context symbol named like one must not be written into libc */
  char** libc_var = (char**)dlsym(RTLD_DEFAULT, "program_invocation_short_name");
  CHECK(libc_var != NULL);
  char* before = *libc_var;
  static int marker;
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("program_invocation_short_name", &marker));
  TVMFFIObjectHandle m = load_ok(kernel("kadd"));
  CHECK(*libc_var == before);
  TVMFFIAny a[3], r;

  a[0] = check_any_obj(m);
  CHECK_OK(check_call_global("ffi.ModuleGetKind", a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "library");
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetPropertyMask", a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 3);

  /* ints */
  a[0] = check_any_int(3);
  a[1] = check_any_int(4);
  CHECK_EQ_INT(call_int(m, "add_int", a, 2), 7);
  a[1] = v_bool(1);
  CHECK_EQ_INT(call_int(m, "add_int", a, 2), 4);
  CHECK_EQ_INT(call_int(m, "main", a, 0), 42);

  /* strings: raw, small and heap forms in, a heap String out */
  TVMFFIObjectHandle greet = get_fn(m, "greet", 0);
  CHECK(greet != NULL);
  a[0] = check_any_cstr("bob");
  CHECK_OK(call(greet, a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "hello, bob");
  check_any_release(&r);
  TVMFFIByteArray small = check_ba("al"), big = check_ba("a rather long name");
  CHECK_OK(TVMFFIStringFromByteArray(&small, &a[0]));
  CHECK_EQ_INT(a[0].type_index, kTVMFFISmallStr);
  CHECK_OK(call(greet, a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "hello, al");
  check_any_release(&r);
  CHECK_OK(TVMFFIStringFromByteArray(&big, &a[0]));
  CHECK_EQ_INT(a[0].type_index, kTVMFFIStr);
  CHECK_OK(call(greet, a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "hello, a rather long name");
  check_any_release(&r);
  check_any_release(&a[0]);
  a[0] = check_any_int(1);
  CHECK_RAISED(call(greet, a, 1, &r), "TypeError", "expected a str");
  TVMFFIObjectDecRef(greet);

  /* tensors */
  float xs[4] = {1, 2, 3, 4}, ys[4] = {0};
  int64_t shape[1] = {4};
  DLTensor x = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor y = {ys, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  TVMFFIObjectHandle add_one = get_fn(m, "add_one", 0);
  CHECK(add_one != NULL);
  a[0] = v_none();
  a[0].type_index = kTVMFFIDLTensorPtr;
  a[0].v_ptr = &x;
  a[1] = a[0];
  a[1].v_ptr = &y;
  CHECK_OK(call(add_one, a, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  for (int i = 0; i < 4; ++i) CHECK(ys[i] == xs[i] + 1.0f);
  /* the library function checks the result slot was initialised */
  TVMFFIObjectHandle dummy = get_fn(m, "main", 0);
  r = check_any_obj(dummy);
  CHECK_RAISED(TVMFFIFunctionCall(add_one, a, 2, &r), "ValueError", "non-object kind");
  TVMFFIObjectDecRef(dummy);
  TVMFFIObjectDecRef(add_one);

  /* library functions receive handle == NULL; errors propagate */
  TVMFFIObjectHandle f = get_fn(m, "handle_is_null", 0);
  CHECK_OK(call(f, a, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 1);
  TVMFFIObjectDecRef(f);
  f = get_fn(m, "fail", 0);
  a[0] = check_any_cstr("boom from kernel");
  CHECK_RAISED(call(f, a, 1, &r), "ValueError", "boom from kernel");
  TVMFFIObjectDecRef(f);

  /* absent symbols: None, not an error */
  CHECK(get_fn(m, "missing", 0) == NULL);
  CHECK(get_fn(m, "missing", 1) == NULL);
  a[0] = check_any_obj(m);
  a[1] = check_any_cstr("add_int");
  a[2] = v_bool(0);
  CHECK_OK(check_call_global("ffi.ModuleImplementsFunction", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 1);
  a[1] = check_any_cstr("missing");
  CHECK_OK(check_call_global("ffi.ModuleImplementsFunction", a, 3, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  /* query_imports may be omitted */
  a[1] = check_any_cstr("add_int");
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", a, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  check_any_release(&r);

  /* metadata and doc */
  a[1] = check_any_cstr("add_int");
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r));
  CHECK(strstr(str_of(&r), "\"type_schema\"") != NULL);
  CHECK(strstr(str_of(&r), "ffi.Function") != NULL);
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_STR(str_of(&r), "Adds two integers.");
  check_any_release(&r);
  a[1] = check_any_cstr("add_one");
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  a[1] = check_any_cstr("greet"); /* its metadata symbol returns an int */
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r), "TypeError",
               "__tvm_ffi__metadata_greet");

  /* unsupported operations */
  CHECK_OK(check_call_global("ffi.ModuleInspectSource", a, 1, &r));
  CHECK_EQ_STR(str_of(&r), "");
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.ModuleGetWriteFormats", a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(r.v_obj)->size, 0);
  check_any_release(&r);
  a[1] = check_any_cstr("/tmp/out.so");
  a[2] = check_any_cstr("so");
  CHECK_RAISED(check_call_global("ffi.ModuleWriteToFile", a, 3, &r), "RuntimeError",
               "Module[library] does not support WriteToFile");

  /* bad arguments */
  a[0] = check_any_int(1);
  a[1] = check_any_cstr("add_int");
  a[2] = v_bool(0);
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 3, &r), "TypeError", "");
  a[0] = check_any_obj(m);
  a[1] = check_any_int(5);
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 3, &r), "TypeError", "");
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 1, &r), "TypeError", "");
  a[1] = check_any_cstr("add_int");
  a[2] = check_any_cstr("yes");
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 3, &r), "TypeError", "");

  CHECK_EQ_INT(check_use_count(m), 1);
  TVMFFIObjectDecRef(m);
}

static void test_load_errors(void) {
  TVMFFIObjectHandle m = NULL;
  char path[1200];
  snprintf(path, sizeof(path), "%s/does_not_exist.so", g_tmp);
  CHECK_RAISED(load(path, &m), "InternalError", "Failed to load dynamic shared library");
  CHECK_RAISED(load(path, &m), "InternalError", path);
  /* a text file is not a shared object: the message names the file */
  snprintf(path, sizeof(path), "%s/not_a_library.so", g_tmp);
  write_file(path, "this is not an ELF file\n");
  CHECK_RAISED(load(path, &m), "InternalError", "not_a_library.so");
  CHECK_RAISED(load("libnoext", &m), "RuntimeError", "Failed to get file format from libnoext");
  CHECK_RAISED(load("nosuchlib_for_tvmffi.so", &m), "InternalError",
               "use ./nosuchlib_for_tvmffi.so for a file here");
  CHECK_RAISED(load("x.unknownext", &m), "RuntimeError",
               "Loader for `.unknownext` files is not registered");
  CHECK_RAISED(load("x.unknownext", &m), "RuntimeError", "ffi.Module.load_from_file.unknownext");
  TVMFFIAny a = check_any_int(3), r;
  CHECK_RAISED(check_call_global("ffi.ModuleLoadFromFile", &a, 1, &r), "TypeError", "");
  CHECK_RAISED(check_call_global("ffi.ModuleLoadFromFile", &a, 0, &r), "TypeError", "");
  /* the dlopen loader directly, as examples/stable_c_abi does: empty format */
  TVMFFIAny la[2] = {check_any_cstr(kernel("kadd")), v_none()};
  TVMFFIByteArray empty = check_ba("");
  CHECK_OK(TVMFFIStringFromByteArray(&empty, &la[1]));
  CHECK_OK(check_call_global("ffi.Module.load_from_file.so", la, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIModule);
  check_any_release(&r);
  la[0] = check_any_cstr(""); /* dlopen("") would be the main program */
  CHECK_RAISED(check_call_global("ffi.Module.load_from_file.so", la, 2, &r), "ValueError", "empty");
}

/* Paths that exist but are no regular file are refused before any loader reads them: a FIFO
 * blocked dlopen forever, a device or directory gave the loader's confusing message (issue 22
 * item 6).  The alarm ends a regression that blocks. */
static void test_load_special_files(void) {
  char fifo[1200], dir[1200], zero[1200], null[1200], link[1200], other[1200];
  snprintf(fifo, sizeof(fifo), "%s/fifo.so", g_tmp);
  snprintf(dir, sizeof(dir), "%s/dir.so", g_tmp);
  snprintf(zero, sizeof(zero), "%s/zero.so", g_tmp);
  snprintf(null, sizeof(null), "%s/null.dylib", g_tmp);
  snprintf(link, sizeof(link), "%s/to_fifo.so", g_tmp);
  snprintf(other, sizeof(other), "%s/fifo.unknownext", g_tmp);
  CHECK(mkfifo(fifo, 0600) == 0 && mkfifo(other, 0600) == 0);
  CHECK(mkdir(dir, 0700) == 0);
  CHECK(symlink("/dev/zero", zero) == 0 && symlink("/dev/null", null) == 0);
  CHECK(symlink(fifo, link) == 0);
  alarm(20);
  TVMFFIObjectHandle m = NULL;
  CHECK_RAISED(load(fifo, &m), "RuntimeError", "it is a FIFO");
  CHECK_RAISED(load(link, &m), "RuntimeError", "it is a FIFO");
  CHECK_RAISED(load(other, &m), "RuntimeError", "it is a FIFO"); /* before the loader lookup */
  CHECK_RAISED(load(dir, &m), "RuntimeError", "it is a directory");
  CHECK_RAISED(load(zero, &m), "RuntimeError", "it is a character device");
  CHECK_RAISED(load(null, &m), "RuntimeError", "null.dylib");
  /* the dlopen loader called directly checks too */
  TVMFFIAny la[2] = {check_any_cstr(fifo), v_none()}, r;
  CHECK_RAISED(check_call_global("ffi.Module.load_from_file.so", la, 1, &r), "RuntimeError",
               "Failed to load dynamic shared library");
  la[0] = check_any_cstr(dir);
  CHECK_RAISED(check_call_global("ffi.Module.load_from_file.so", la, 1, &r), "RuntimeError",
               "a module is loaded from a regular file");
  alarm(0);
  CHECK(unlink(fifo) == 0 && unlink(other) == 0 && rmdir(dir) == 0);
  CHECK(unlink(zero) == 0 && unlink(null) == 0 && unlink(link) == 0);
}

/* Symbols under function names that are data, and a read-only module-token
 * slot: refused with errors where calling or writing them crashed (issue 22
 * item 7). */
static void test_data_symbols(void) {
  TVMFFIObjectHandle m = load_ok(kernel("kdatasym"));
  TVMFFIObjectHandle ok = get_fn(m, "ok", 0);
  TVMFFIAny r;
  CHECK_OK(call(ok, NULL, 0, &r));
  CHECK_EQ_INT(r.v_int64, 7);
  TVMFFIObjectDecRef(ok);
  TVMFFIAny a[3] = {check_any_obj(m), check_any_cstr("data_fn"), v_bool(0)};
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 3, &r), "TypeError",
               "__tvm_ffi_data_fn of the library is data, not a function");
  CHECK_OK(check_call_global("ffi.ModuleImplementsFunction", a, 3, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r), "TypeError",
               "__tvm_ffi__metadata_data_fn");
  a[1] = check_any_cstr("ok");
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunctionMetadata", a, 3, &r), "TypeError",
               "__tvm_ffi__metadata_ok of the library is data");
  CHECK_RAISED(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r), "TypeError",
               "__tvm_ffi__doc_ok");
  TVMFFIObjectDecRef(m);
  CHECK_RAISED(load(kernel("kroctx"), &m), "RuntimeError",
               "__tvm_ffi__library_ctx, which the runtime writes to, is read-only");
}

static void foreign_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* An object of type index 73 made elsewhere is a C++ ModuleObj subclass: its
 * own operations go through the C++ ABI library; when that cannot be loaded
 * the call fails with an error naming it, and the object is never called. */
static void test_foreign_module(void) {
  setenv("TVM_FFI_CXX_LIBRARY", "/nonexistent/libtvm_ffi_cxx.so", 1);
  TVMFFIObject* fake = (TVMFFIObject*)calloc(1, 64);
  fake->combined_ref_count = UINT64_C(0x100000001);
  fake->type_index = kTVMFFIModule;
  fake->deleter = foreign_deleter;
  TVMFFIAny a[3] = {check_any_obj(fake), check_any_cstr("f"), v_bool(0)}, r;
  /* Under ASan libstdc++ is in the process from the start, so an earlier load
   * already brought the C++ library in; this fake has no C++ vtable and must
   * not reach it then. */
  void* cxx = dlopen("libtvm_ffi_cxx.so", RTLD_LAZY | RTLD_NOLOAD);
  if (cxx != NULL) {
    dlclose(cxx);
    fprintf(stderr,
            "test_foreign_module: C++ ABI library already loaded, "
            "not-found checks skipped\n");
  } else {
    CHECK_RAISED(check_call_global("ffi.ModuleGetFunction", a, 3, &r), "RuntimeError",
                 "libtvm_ffi_cxx.so");
    CHECK_RAISED(check_call_global("ffi.ModuleGetKind", a, 1, &r), "RuntimeError",
                 "libtvm_ffi_cxx.so");
  }
  TVMFFIObjectHandle out = NULL;
  CHECK_RAISED(TVMFFIEnvModLookupFromImports(fake, "f", &out), "ValueError", "");
  /* importing needs only the header and imports_, but this one has none */
  TVMFFIObjectDecRef(fake);
  unsetenv("TVM_FFI_CXX_LIBRARY");
}

static void test_format_mapping(void) {
  const char* exts[] = {"dso", "dylib", "dll"};
  for (int i = 0; i < 3; ++i) {
    char link[1200];
    snprintf(link, sizeof(link), "%s/kadd_copy.%s", g_tmp, exts[i]);
    unlink(link);
    CHECK(symlink(kernel("kadd"), link) == 0);
    TVMFFIObjectHandle m = load_ok(link);
    TVMFFIAny a[2] = {check_any_int(20), check_any_int(22)};
    CHECK_EQ_INT(call_int(m, "add_int", a, 2), 42);
    TVMFFIObjectDecRef(m);
    unlink(link);
  }
}

/* ---- a loader for the made-up ".fake" format ---------------------------- */

static char g_fake_path[256], g_fake_format[32];
static int g_fake_calls;

static int fake_loader(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  g_fake_calls++;
  CHECK_EQ_INT(n, 2);
  snprintf(g_fake_path, sizeof(g_fake_path), "%s", str_of(&args[0]));
  snprintf(g_fake_format, sizeof(g_fake_format), "%s", str_of(&args[1]));
  TVMFFIAny a = check_any_cstr(kernel("kadd"));
  return check_call_global("ffi.ModuleLoadFromFile", &a, 1, result);
}

static int bad_loader(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  result->type_index = kTVMFFIInt;
  result->v_int64 = 1;
  return 0;
}

static void set_global(const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  TVMFFIByteArray b = check_ba(name);
  CHECK_OK(TVMFFIFunctionCreate(NULL, fn, NULL, &f));
  CHECK_OK(TVMFFIFunctionSetGlobal(&b, f, 1));
  TVMFFIObjectDecRef(f);
}

static void remove_global(const char* name) {
  TVMFFIAny a = check_any_cstr(name), r;
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
  CHECK_EQ_INT(r.v_int64, 1);
}

static void test_custom_loader(void) {
  set_global("ffi.Module.load_from_file.fake", fake_loader);
  TVMFFIObjectHandle m = load_ok("/some/dir.d/model.fake");
  CHECK_EQ_INT(g_fake_calls, 1);
  CHECK_EQ_STR(g_fake_path, "/some/dir.d/model.fake");
  CHECK_EQ_STR(g_fake_format, "fake");
  TVMFFIAny a[2] = {check_any_int(1), check_any_int(2)};
  CHECK_EQ_INT(call_int(m, "add_int", a, 2), 3);
  TVMFFIObjectDecRef(m);
  remove_global("ffi.Module.load_from_file.fake");

  set_global("ffi.Module.load_from_file.bad", bad_loader);
  CHECK_RAISED(load("x.bad", &m), "TypeError", "expected ffi.Module");
  remove_global("ffi.Module.load_from_file.bad");
}

/* Reads the reflected field ffi.Module.imports_ (offset 24) like Python does. */
static TVMFFIObjectHandle read_imports(TVMFFIObjectHandle m) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(kTVMFFIModule);
  for (int32_t i = 0; i < info->num_fields; ++i) {
    const TVMFFIFieldInfo* fi = &info->fields[i];
    if (fi->name.size == 8 && memcmp(fi->name.data, "imports_", 8) == 0) {
      CHECK_EQ_INT(fi->offset, 24);
      TVMFFIAny r = v_none();
      CHECK_OK(fi->getter((char*)m + fi->offset, &r));
      CHECK_EQ_INT(r.type_index, kTVMFFIArray);
      CHECK(*(void**)((char*)m + 24) == r.v_obj); /* the ABI offset holds the array */
      return r.v_obj;
    }
  }
  FAIL("ffi.Module has no reflected field imports_");
}

static int64_t num_imports(TVMFFIObjectHandle m) {
  TVMFFIObjectHandle arr = read_imports(m);
  int64_t n = TVMFFISeqGetCellPtr(arr)->size;
  TVMFFIObjectDecRef(arr);
  return n;
}

static void import_module(TVMFFIObjectHandle m, TVMFFIObjectHandle other) {
  TVMFFIAny a[2] = {check_any_obj(m), check_any_obj(other)}, r;
  CHECK_OK(check_call_global("ffi.ModuleImportModule", a, 2, &r));
}

static void test_imports(void) {
  TVMFFIObjectHandle A = load_ok(kernel("kadd"));
  TVMFFIObjectHandle B = load_ok(kernel("kctx"));
  TVMFFIObjectHandle C = load_ok(kernel("kadd")); /* a second module over kadd */
  TVMFFIAny a[3], r;

  CHECK_EQ_INT(num_imports(B), 0);
  import_module(B, A);
  CHECK_EQ_INT(num_imports(B), 1);
  CHECK_EQ_INT(check_use_count(A), 2); /* B's imports hold A */
  TVMFFIObjectHandle arr = read_imports(B);
  const TVMFFIAny* items = (const TVMFFIAny*)TVMFFISeqGetCellPtr(arr)->data;
  CHECK(items[0].v_obj == A);
  TVMFFIObjectDecRef(arr);

  /* the module's own symbol wins; imports only with query_imports */
  a[0] = check_any_int(1);
  a[1] = check_any_int(2);
  CHECK_EQ_INT(call_int(B, "add_int", a, 2), 1003);
  CHECK(get_fn(B, "greet", 0) == NULL);
  TVMFFIObjectHandle g = get_fn(B, "greet", 1);
  CHECK(g != NULL);
  TVMFFIObjectDecRef(g);
  a[0] = check_any_obj(B);
  a[1] = check_any_cstr("greet");
  a[2] = v_bool(1);
  CHECK_OK(check_call_global("ffi.ModuleImplementsFunction", a, 3, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  a[1] = check_any_cstr("add_int");
  /* B's add_int has no doc symbol: the miss continues into the imports */
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_STR(str_of(&r), "Adds two integers.");
  check_any_release(&r);
  a[2] = v_bool(0);
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  a[2] = v_bool(1);
  a[1] = check_any_cstr("add_one");
  CHECK_OK(check_call_global("ffi.ModuleGetFunctionDoc", a, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);

  /* depth first: C imports B, which imports A */
  import_module(C, B);
  g = get_fn(C, "lookup_call", 1);
  CHECK(g != NULL);
  TVMFFIObjectDecRef(g);

  /* cycles, including importing oneself */
  a[0] = check_any_obj(A);
  a[1] = check_any_obj(C);
  CHECK_RAISED(check_call_global("ffi.ModuleImportModule", a, 2, &r), "RuntimeError",
               "Cyclic dependency detected during import");
  a[1] = check_any_obj(A);
  CHECK_RAISED(check_call_global("ffi.ModuleImportModule", a, 2, &r), "RuntimeError",
               "Cyclic dependency detected during import");
  CHECK_EQ_INT(num_imports(A), 0);
  a[1] = check_any_int(1);
  CHECK_RAISED(check_call_global("ffi.ModuleImportModule", a, 2, &r), "TypeError", "");

  /* a diamond is not a cycle */
  import_module(C, A);
  CHECK_EQ_INT(num_imports(C), 2);

  a[0] = check_any_obj(C);
  CHECK_OK(check_call_global("ffi.ModuleClearImports", a, 1, &r));
  CHECK_EQ_INT(num_imports(C), 0);
  CHECK(get_fn(C, "lookup_call", 1) == NULL);

  TVMFFIObjectDecRef(C);
  TVMFFIObjectDecRef(B);
  CHECK_EQ_INT(check_use_count(A), 1);
  TVMFFIObjectDecRef(A);
}

static int triple(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  CHECK_EQ_INT(n, 1);
  result->type_index = kTVMFFIInt;
  result->v_int64 = 3 * args[0].v_int64;
  return 0;
}

static void test_lookup_from_imports(void) {
  TVMFFIObjectHandle A = load_ok(kernel("kadd"));
  TVMFFIObjectHandle B = load_ok(kernel("kctx"));
  import_module(B, A);
  TVMFFIObjectHandle lookup_call = get_fn(B, "lookup_call", 0);
  TVMFFIObjectHandle lookup_handle = get_fn(B, "lookup_handle", 0);
  TVMFFIAny a[3], r;

  /* the imported add_int, not B's own (own symbols are not searched) */
  a[0] = check_any_cstr("add_int");
  a[1] = check_any_int(1);
  a[2] = check_any_int(2);
  CHECK_OK(call(lookup_call, a, 3, &r));
  CHECK_EQ_INT(r.v_int64, 3);

  /* cached: the same borrowed handle every time, owned by B */
  CHECK_OK(call(lookup_handle, a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIOpaquePtr);
  void* h1 = r.v_ptr;
  CHECK_OK(call(lookup_handle, a, 1, &r));
  CHECK(r.v_ptr == h1);
  CHECK_EQ_INT(check_use_count(h1), 1);

  /* imports come before the global registry */
  set_global("greet", triple);
  a[0] = check_any_cstr("greet");
  a[1] = check_any_cstr("x");
  CHECK_OK(call(lookup_call, a, 2, &r));
  CHECK_EQ_STR(str_of(&r), "hello, x");
  check_any_release(&r);
  remove_global("greet");

  /* then the registry; the result stays cached after removal */
  set_global("modtest.triple", triple);
  a[0] = check_any_cstr("modtest.triple");
  a[1] = check_any_int(5);
  CHECK_OK(call(lookup_call, a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 15);
  remove_global("modtest.triple");
  CHECK_OK(call(lookup_call, a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 15);

  a[0] = check_any_cstr("no_such_function");
  CHECK_RAISED(call(lookup_call, a, 1, &r), "RuntimeError",
               "Cannot find function no_such_function in the imported modules or global "
               "registry");

  TVMFFIObjectHandle out = NULL;
  CHECK_RAISED(TVMFFIEnvModLookupFromImports(NULL, "add_int", &out), "ValueError",
               "__tvm_ffi__library_ctx");
  CHECK_RAISED(TVMFFIEnvModLookupFromImports(A, NULL, &out), "ValueError", "");
  CHECK(out == NULL);

  TVMFFIObjectDecRef(lookup_call);
  TVMFFIObjectDecRef(lookup_handle);
  TVMFFIObjectDecRef(B);
  CHECK_EQ_INT(check_use_count(A), 1);
  TVMFFIObjectDecRef(A);
}

/* Context symbols are registered before anything loads kctx (see main). */
static void test_context_symbols(void) {
  TVMFFIObjectHandle B = load_ok(kernel("kctx"));
  TVMFFIAny a[1], r;
  a[0] = check_any_int(21);
  CHECK_EQ_INT(call_int(B, "call_helper", a, 1), 42);
  /* the token in __tvm_ffi__library_ctx is the C++ object address, handle - 8 */
  TVMFFIObjectHandle f = get_fn(B, "get_ctx", 0);
  CHECK_OK(call(f, a, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIOpaquePtr);
  CHECK(r.v_ptr == (char*)B - 8);
  TVMFFIObjectDecRef(f);
  /* registered after loading: the loaded library is not updated */
  static int marker;
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("kctx_unset", &marker));
  f = get_fn(B, "get_unset", 0);
  CHECK_OK(call(f, a, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  TVMFFIObjectDecRef(f);
  CHECK_RAISED(TVMFFIEnvModRegisterContextSymbol(NULL, &marker), "ValueError", "");

  /* one file loaded twice: one library instance, one ctx slot; the newest
   * module's token wins, and when it dies the slot falls back to B */
  TVMFFIObjectHandle B2 = load_ok(kernel("kctx"));
  f = get_fn(B, "get_ctx", 0);
  CHECK_OK(call(f, a, 0, &r));
  CHECK(r.v_ptr == (char*)B2 - 8);
  TVMFFIObjectDecRef(B2);
  CHECK_OK(call(f, a, 0, &r));
  CHECK(r.v_ptr == (char*)B - 8);
  TVMFFIObjectHandle lookup = get_fn(B, "lookup_call", 0);
  a[0] = check_any_cstr("no_such_function");
  CHECK_RAISED(call(lookup, a, 1, &r), "RuntimeError", "Cannot find function");
  TVMFFIObjectDecRef(lookup);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(B);
}

/* ffi.Module.load_from_bytes.testpath: the payload names a kernel file. */
static int load_testpath(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  CHECK_EQ_INT(n, 1);
  CHECK(args[0].type_index == kTVMFFIBytes || args[0].type_index == kTVMFFISmallBytes);
  TVMFFIByteArray b = args[0].type_index == kTVMFFIBytes
                          ? *TVMFFIBytesGetByteArrayPtr(args[0].v_obj)
                          : TVMFFISmallBytesGetContentByteArray(&args[0]);
  char path[1300];
  snprintf(path, sizeof(path), "%s/%.*s", g_dir, (int)b.size, b.data);
  TVMFFIAny a = check_any_cstr(path);
  return check_call_global("ffi.ModuleLoadFromFile", &a, 1, result);
}

static void test_library_bin(void) {
  TVMFFIObjectHandle m = NULL;
  CHECK_RAISED(load(kernel("kbin"), &m), "RuntimeError",
               "Library binary embeds a {testpath} module but loader "
               "ffi.Module.load_from_bytes.testpath is not registered");
  CHECK(!is_mapped(kernel("kbin"))); /* nothing leaked the failed load */
  set_global("ffi.Module.load_from_bytes.testpath", load_testpath);
  m = load_ok(kernel("kbin"));
  CHECK_EQ_INT(num_imports(m), 1);
  TVMFFIAny a[2] = {check_any_int(40), check_any_int(2)};
  CHECK_EQ_INT(call_int(m, "call_imported", a, 2), 42);
  TVMFFIObjectHandle g = get_fn(m, "greet", 1);
  CHECK(g != NULL);
  TVMFFIObjectDecRef(g);
  TVMFFIObjectDecRef(m);
  CHECK(!is_mapped(kernel("kbin")));
  remove_global("ffi.Module.load_from_bytes.testpath");

  CHECK_RAISED(load(kernel("kbadbin"), &m), "RuntimeError",
               "Corrupt library binary: import tree indptr must start at 0");
  CHECK_RAISED(load(kernel("kbinlong"), &m), "RuntimeError",
               "Corrupt library binary: unexpected end of blob");
  CHECK(!is_mapped(kernel("kbinlong")));
}

static void test_lifetime(void) {
  const char* path = kernel("kadd");
  CHECK(!is_mapped(path));
  TVMFFIObjectHandle m = load_ok(path);
  CHECK(is_mapped(path));
  TVMFFIObjectHandle f = get_fn(m, "add_int", 0);
  CHECK_EQ_INT(check_use_count(m), 2); /* the function holds the module */
  TVMFFIObjectDecRef(m);
  CHECK(is_mapped(path));
  TVMFFIAny a[2] = {check_any_int(2), check_any_int(3)}, r;
  CHECK_OK(call(f, a, 2, &r));
  CHECK_EQ_INT(r.v_int64, 5);
  TVMFFIObjectDecRef(f);
  CHECK(!is_mapped(path)); /* dlclose after the last function went */

  /* the keep-alive set holds one reference, once */
  m = load_ok(path);
  a[0] = check_any_obj(m);
  CHECK_OK(check_call_global("ffi.ModuleGlobalsAdd", a, 1, &r));
  CHECK_EQ_INT(check_use_count(m), 2);
  CHECK_OK(check_call_global("ffi.ModuleGlobalsAdd", a, 1, &r));
  CHECK_EQ_INT(check_use_count(m), 2);
  CHECK_OK(check_call_global("ffi.ModuleGlobalsRemove", a, 1, &r));
  CHECK_EQ_INT(check_use_count(m), 1);
  CHECK_OK(check_call_global("ffi.ModuleGlobalsRemove", a, 1, &r));
  CHECK_EQ_INT(check_use_count(m), 1);
  TVMFFIObjectDecRef(m);
  CHECK(!is_mapped(path));
}

/* ---- concurrency: lookups and calls race with import-list swaps --------- */

typedef struct {
  TVMFFIObjectHandle B; /* kctx importing kadd */
  int failures;
} race_ctx;

static void* race_worker(void* p) {
  race_ctx* ctx = (race_ctx*)p;
  TVMFFIObjectHandle lookup_call = get_fn(ctx->B, "lookup_call", 0);
  for (int i = 0; i < 2000; ++i) {
    TVMFFIAny a[3] = {check_any_cstr("add_int"), check_any_int(i), check_any_int(1)}, r;
    if (call(lookup_call, a, 3, &r) != 0 || r.v_int64 != i + 1) ctx->failures++;
    TVMFFIObjectHandle g = get_fn(ctx->B, "greet", 1);
    if (g == NULL) ctx->failures++;
    TVMFFIObjectDecRef(g);
  }
  TVMFFIObjectDecRef(lookup_call);
  return NULL;
}

static void test_concurrent_lookups(void) {
  TVMFFIObjectHandle A = load_ok(kernel("kadd"));
  TVMFFIObjectHandle B = load_ok(kernel("kctx"));
  TVMFFIObjectHandle C = load_ok(kernel("kadd"));
  import_module(B, A);
  race_ctx ctx = {B, 0};
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) CHECK(pthread_create(&th[i], NULL, race_worker, &ctx) == 0);
  for (int i = 0; i < 300; ++i) {
    import_module(B, C); /* B's list is swapped while the workers walk it */
    TVMFFIAny a = check_any_obj(C), r;
    CHECK_OK(check_call_global("ffi.ModuleClearImports", &a, 1, &r));
    CHECK(num_imports(B) >= 2);
  }
  for (int i = 0; i < 4; ++i) CHECK(pthread_join(th[i], NULL) == 0);
  CHECK_EQ_INT(ctx.failures, 0);
  CHECK_EQ_INT(num_imports(B), 301);
  TVMFFIObjectDecRef(B);
  CHECK_EQ_INT(check_use_count(A), 1);
  CHECK_EQ_INT(check_use_count(C), 1);
  TVMFFIObjectDecRef(C);
  TVMFFIObjectDecRef(A);
}

int main(void) {
  const char* dir = getenv("TVMFFI_TEST_KERNEL_DIR");
  snprintf(g_dir, sizeof(g_dir), "%s", dir ? dir : "tests/c/kernels/.libs");
  if (g_dir[0] != '/') { /* dlopen needs a path with a slash to skip the search */
    char cwd[512];
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    char full[2048];
    snprintf(full, sizeof(full), "%s/%s", cwd, g_dir);
    CHECK(strlen(full) < sizeof(g_dir));
    memcpy(g_dir, full, strlen(full) + 1);
  }
  snprintf(g_tmp, sizeof(g_tmp), "/tmp/tvmffi_test_module.XXXXXX");
  CHECK(mkdtemp(g_tmp) != NULL);
  /* before kctx is loaded anywhere: every later load gets the helper */
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("kctx_helper", (void*)times_two));

  test_load_and_call();
  test_load_errors();
  test_load_special_files();
  test_data_symbols();
  test_format_mapping();
  test_foreign_module();
  test_custom_loader();
  test_imports();
  test_lookup_from_imports();
  test_context_symbols();
  test_library_bin();
  test_concurrent_lookups();
  test_lifetime();

  char cmd[1200];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
  CHECK(system(cmd) == 0);
  printf("test_module: ok\n");
  return 0;
}
