/*
 * apache_kernel_needed.c -- a kernel built against the apache-tvm-ffi headers
 * carries NEEDED libtvm_ffi.so.  Dlopened into a process that already uses
 * our runtime, it must bind to ours, never map a second copy: otherwise its
 * static-init globals would land in a registry nobody reads.
 *
 *   apache_kernel_needed OUR_LIBTVM_FFI.so KERNEL.so [OUR_LIBTVM_FFI_CXX.so]
 *
 * This program does not link libtvm_ffi: it dlopens ours by absolute path
 * (RTLD_LOCAL, as a Python extension module would be), and
 * test_apache_kernel.sh runs it with LD_LIBRARY_PATH pointing at the
 * apache wheel's lib directory, so a search by file name would find the
 * other copy.  Only the SONAME match keeps the kernel on ours.  A kernel
 * that uses upstream's out-of-line C++ API (a ModuleObj subclass) also needs
 * the C++ ABI library, which is then dlopened RTLD_GLOBAL in between, as
 * `import tvm_ffi` does (docs/cxx-abi.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define FAIL(...)                                         \
  do {                                                    \
    fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                         \
    fprintf(stderr, "\n");                                \
    exit(1);                                              \
  } while (0)

typedef int (*get_global_fn)(const TVMFFIByteArray*, TVMFFIObjectHandle*);
typedef int (*call_fn)(TVMFFIObjectHandle, TVMFFIAny*, int32_t, TVMFFIAny*);
typedef int (*decref_fn)(TVMFFIObjectHandle);

struct scan {
  int count;
  char paths[8][PATH_MAX];
};

/* Collects every mapped object whose file name is libtvm_ffi.so*. */
static int note_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct scan* s = data;
  const char* base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libtvm_ffi.so", 13) != 0) return 0;
  if (s->count < 8) {
    if (!realpath(info->dlpi_name, s->paths[s->count]))
      snprintf(s->paths[s->count], PATH_MAX, "%s", info->dlpi_name);
  }
  s->count++;
  return 0;
}

static void* must_sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) FAIL("dlsym(%s): %s", name, dlerror());
  return p;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s OUR_LIBTVM_FFI.so KERNEL.so [OUR_LIBTVM_FFI_CXX.so]\n", argv[0]);
    return 2;
  }
  char ours_real[PATH_MAX];
  if (!realpath(argv[1], ours_real)) FAIL("%s: not found", argv[1]);
  void* ours = dlopen(ours_real, RTLD_NOW | RTLD_LOCAL);
  if (!ours) FAIL("dlopen(%s): %s", ours_real, dlerror());
  get_global_fn get_global = (get_global_fn)must_sym(ours, "TVMFFIFunctionGetGlobal");
  call_fn call = (call_fn)must_sym(ours, "TVMFFIFunctionCall");
  decref_fn decref = (decref_fn)must_sym(ours, "TVMFFIObjectDecRef");

  const char* name = "compat.apache_kernel.mul_int";
  TVMFFIByteArray ba = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (get_global(&ba, &f) != 0 || f != NULL) FAIL("%s registered before the kernel loaded", name);

  if (argc == 4 && !dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL))
    FAIL("dlopen(%s): %s", argv[3], dlerror());
  void* kernel = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!kernel) FAIL("dlopen(%s): %s", argv[2], dlerror());

  struct scan s;
  memset(&s, 0, sizeof s);
  dl_iterate_phdr(note_object, &s);
  if (s.count != 1) {
    for (int i = 0; i < s.count && i < 8; ++i) fprintf(stderr, "  mapped: %s\n", s.paths[i]);
    FAIL("%d copies of libtvm_ffi.so are mapped, expected exactly ours", s.count);
  }
  if (strcmp(s.paths[0], ours_real) != 0)
    FAIL("the mapped libtvm_ffi.so is %s, expected %s", s.paths[0], ours_real);

  /* symbol lookups through the kernel's dependency scope end in our library */
  if (dlsym(kernel, "TVMFFIErrorSetRaised") != must_sym(ours, "TVMFFIErrorSetRaised"))
    FAIL("the kernel's TVMFFIErrorSetRaised is not ours");

  /* the kernel's TVM_FFI_STATIC_INIT_BLOCK ran against our registry */
  if (get_global(&ba, &f) != 0 || f == NULL) FAIL("%s is not in our registry", name);
  TVMFFIAny args[2], r;
  memset(args, 0, sizeof args);
  memset(&r, 0, sizeof r);
  args[0].type_index = args[1].type_index = kTVMFFIInt;
  args[0].v_int64 = 6;
  args[1].v_int64 = -7;
  if (call(f, args, 2, &r) != 0) FAIL("calling %s failed", name);
  if (r.type_index != kTVMFFIInt || r.v_int64 != -42)
    FAIL("%s(6, -7) gave type %d value %lld", name, r.type_index, (long long)r.v_int64);
  decref(f);
  printf("kernel NEEDED libtvm_ffi.so bound to %s (one copy mapped)\n", ours_real);
  /* The kernel stays loaded: the registry holds its function until exit. */
  return 0;
}
