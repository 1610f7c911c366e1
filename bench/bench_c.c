/*
 * bench/bench_c.c -- ns per operation of the C ABI, for comparing runtimes.
 *
 *   LD_LIBRARY_PATH=<dir with a libtvm_ffi.so> bench_c [iterations]
 *
 * Links libtvm_ffi.so by SONAME and carries no rpath, so the same binary
 * runs on our library or on the apache-tvm-ffi wheel's: LD_LIBRARY_PATH
 * picks.  Prints "# library <path>" and then one "<case>\t<ns>" line per
 * case (bench/run-bench.sh joins two runs into a table).  Each figure is
 * the best of several repeats of process CPU time per operation, so other
 * processes on a shared machine disturb it less.  Prints figures; never a
 * timed test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tvm/ffi/c_api.h>

enum { kRepeats = 5 };

static long g_iters = 1000000;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char* what) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err) {
    TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
    fprintf(stderr, "bench_c: %s: %s: %s\n", what, c->kind.data, c->message.data);
  } else {
    fprintf(stderr, "bench_c: %s failed\n", what);
  }
  exit(1);
}

/* Best-of-kRepeats ns per call of body(ctx).  body runs iters/10 + kRepeats *
 * iters times: run-bench.sh divides callgrind counts by that. */
static double measure(void (*body)(void*), void* ctx) {
  long warm = g_iters / 10;
  for (long i = 0; i < warm; ++i) body(ctx);
  double best = 0;
  for (int r = 0; r < kRepeats; ++r) {
    double t0 = now_ns();
    for (long i = 0; i < g_iters; ++i) body(ctx);
    double ns = (now_ns() - t0) / (double)g_iters;
    if (r == 0 || ns < best) best = ns;
  }
  return best;
}

static int nop(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self, (void)args, (void)n;
  result->type_index = kTVMFFINone;
  return 0;
}

static TVMFFIObjectHandle g_nop;

static void call0(void* ctx) {
  (void)ctx;
  TVMFFIAny r;
  r.type_index = kTVMFFINone;
  r.zero_padding = 0;
  r.v_int64 = 0;
  if (TVMFFIFunctionCall(g_nop, NULL, 0, &r) != 0) die("call");
}

static void call3(void* ctx) {
  TVMFFIAny* args = ctx;
  TVMFFIAny r;
  r.type_index = kTVMFFINone;
  r.zero_padding = 0;
  r.v_int64 = 0;
  if (TVMFFIFunctionCall(g_nop, args, 3, &r) != 0) die("call");
}

static void function_create_free(void* ctx) {
  (void)ctx;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, nop, NULL, &f) != 0) die("TVMFFIFunctionCreate");
  TVMFFIObjectDecRef(f);
}

static void string_create_free(void* ctx) {
  TVMFFIAny s;
  if (TVMFFIStringFromByteArray(ctx, &s) != 0) die("TVMFFIStringFromByteArray");
  if (s.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(s.v_obj);
}

static void global_lookup(void* ctx) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(ctx, &f) != 0 || f == NULL) die("TVMFFIFunctionGetGlobal");
  TVMFFIObjectDecRef(f);
}

static void no_delete(DLManagedTensorVersioned* self) { (void)self; }

static void tensor_from_dlpack(void* ctx) {
  TVMFFIObjectHandle t = NULL;
  if (TVMFFITensorFromDLPackVersioned(ctx, 0, 0, &t) != 0) die("TVMFFITensorFromDLPackVersioned");
  TVMFFIObjectDecRef(t);
}

static void error_raise_move(void* ctx) {
  (void)ctx;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "benchmark error");
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) die("TVMFFIErrorMoveFromRaised");
  TVMFFIObjectDecRef(err);
}

static void dtype_parse(void* ctx) {
  DLDataType dt;
  if (TVMFFIDataTypeFromString(ctx, &dt) != 0) die("TVMFFIDataTypeFromString");
}

int main(int argc, char** argv) {
  if (argc > 1) g_iters = atol(argv[1]);
  if (g_iters < 10) g_iters = 10;
  Dl_info info;
  if (dladdr((void*)&TVMFFIFunctionCall, &info) && info.dli_fname)
    printf("# library %s\n", info.dli_fname);

  if (TVMFFIFunctionCreate(NULL, nop, NULL, &g_nop) != 0) die("TVMFFIFunctionCreate");
  TVMFFIAny args[3];
  memset(args, 0, sizeof args);
  for (int i = 0; i < 3; ++i) {
    args[i].type_index = kTVMFFIInt;
    args[i].v_int64 = i;
  }
  TVMFFIByteArray text = {"sixteen bytes...", 16}; /* past the small-string size */
  TVMFFIByteArray name = {"bench.c.nop", 11};
  if (TVMFFIFunctionSetGlobal(&name, g_nop, 1) != 0) die("TVMFFIFunctionSetGlobal");
  int64_t shape[2] = {4, 4};
  float data[16] = {0};
  DLManagedTensorVersioned mt;
  memset(&mt, 0, sizeof mt);
  mt.version.major = DLPACK_MAJOR_VERSION;
  mt.version.minor = DLPACK_MINOR_VERSION;
  mt.deleter = no_delete;
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 2;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  TVMFFIByteArray dtype = {"float32", 7};

  printf("call_0_args\t%.2f\n", measure(call0, NULL));
  printf("call_3_args\t%.2f\n", measure(call3, args));
  printf("function_create_free\t%.2f\n", measure(function_create_free, NULL));
  printf("string_create_free_16B\t%.2f\n", measure(string_create_free, &text));
  printf("global_lookup\t%.2f\n", measure(global_lookup, &name));
  printf("tensor_from_dlpack_free\t%.2f\n", measure(tensor_from_dlpack, &mt));
  printf("dtype_parse\t%.2f\n", measure(dtype_parse, &dtype));
  /* fewer rounds: raising captures a backtrace in both runtimes */
  g_iters = g_iters / 20 > 10 ? g_iters / 20 : 10;
  printf("error_raise_move_free\t%.2f\n", measure(error_raise_move, NULL));
  TVMFFIObjectDecRef(g_nop);
  return 0;
}
