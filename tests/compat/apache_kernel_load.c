/*
 * apache_kernel_load.c -- loads apache_kernel.so (C++, built against the
 * headers of one apache-tvm-ffi 0.1.x release) through OUR runtime and calls
 * every export: tensors in and out, ints, floats, strings, callbacks into our
 * function objects, arrays and maps laid out by either side, the kernel's
 * static-init global, errors that come back with kind, message and a
 * backtrace naming the kernel's source file and line, an object type's
 * reflected fields, a C++ module, the C++ API (JSON, structural equality,
 * Error::what), from 0.1.10 map keys with the kernel's own hash/equal hooks
 * (ffi.Functions, 0.1.15's native adapters), from 0.1.13 its C++ subclass of
 * ffi.StructuralVisitor and, from 0.1.14, big integers; with --peers, two
 * hook_peer.cc libraries of different releases in one process.  The kernel's `release_patch` export says which
 * release built it.
 *
 *   apache_kernel_load KERNEL.so SOURCE_BASENAME THROW_LINE
 *
 * Run by test_apache_kernel.sh, which builds the kernel.
 */
#include <stdint.h>
#include <tvm/ffi/extra/c_container.h>

#include "check.h"

static TVMFFIAny any_none(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof v);
  return v;
}
static TVMFFIAny any_int(int64_t x) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIInt;
  v.v_int64 = x;
  return v;
}
static TVMFFIAny any_float(double x) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIFloat;
  v.v_float64 = x;
  return v;
}
static TVMFFIAny any_cstr(const char* s) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}
static TVMFFIAny any_obj(TVMFFIObjectHandle h) {
  TVMFFIAny v = any_none();
  v.type_index = TVMFFIObjectGetTypeIndex(h);
  v.v_obj = (TVMFFIObject*)h;
  return v;
}
static TVMFFIAny any_dltensor(DLTensor* t) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIDLTensorPtr;
  v.v_ptr = t;
  return v;
}

/* Calls `f` with a fresh result slot. */
static int call(TVMFFIObjectHandle f, TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  *result = any_none();
  return TVMFFIFunctionCall(f, args, n, result);
}

/* Text of a String result, small or heap. */
static TVMFFIByteArray str_of(const TVMFFIAny* v) {
  if (v->type_index == kTVMFFISmallStr) return TVMFFISmallBytesGetContentByteArray(v);
  CHECK_EQ_INT(v->type_index, kTVMFFIStr);
  return *TVMFFIBytesGetByteArrayPtr(v->v_obj);
}

static TVMFFIObjectHandle g_module;

static TVMFFIObjectHandle get_function(const char* name) {
  TVMFFIAny args[3] = {any_obj(g_module), any_cstr(name), any_none()};
  args[2].type_index = kTVMFFIBool;
  args[2].v_int64 = 0;
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", args, 3, &r));
  if (r.type_index != kTVMFFIFunction) FAIL("kernel does not export %s", name);
  return r.v_obj;
}

/* A malloc-backed DLPack allocator, so TVMFFIEnvTensorAlloc works here. */
static void free_managed(DLManagedTensorVersioned* mt) {
  free(mt->dl_tensor.data);
  free(mt->dl_tensor.shape);
  free(mt);
}
static int malloc_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
                        void (*set_error)(void*, const char*, const char*)) {
  DLManagedTensorVersioned* mt = calloc(1, sizeof *mt);
  int64_t* shape = calloc((size_t)proto->ndim + 1, sizeof *shape);
  size_t count = 1;
  for (int i = 0; i < proto->ndim; ++i) {
    shape[i] = proto->shape[i];
    count *= (size_t)proto->shape[i];
  }
  void* data = malloc(count * ((proto->dtype.bits * proto->dtype.lanes + 7u) / 8u) + 1);
  if (!mt || !shape || !data) {
    free(mt), free(shape), free(data);
    set_error(error_ctx, "RuntimeError", "out of memory");
    return -1;
  }
  mt->version.major = DLPACK_MAJOR_VERSION;
  mt->version.minor = DLPACK_MINOR_VERSION;
  mt->deleter = free_managed;
  mt->dl_tensor = *proto;
  mt->dl_tensor.data = data;
  mt->dl_tensor.shape = shape;
  mt->dl_tensor.strides = NULL;
  mt->dl_tensor.byte_offset = 0;
  *out = mt;
  return 0;
}

/* A DLPack-imported ffi.Tensor over caller memory. */
static int g_dlpack_deleted;
static void note_deleted(DLManagedTensorVersioned* mt) {
  (void)mt;
  ++g_dlpack_deleted;
}

static void test_add_one(void) {
  TVMFFIObjectHandle f = get_function("add_one");
  float xs[5] = {0, 1, 2.5f, -4, 100};
  float ys[5] = {0};
  int64_t shape[1] = {5};
  DLTensor x = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  /* y arrives as an ffi.Tensor object imported from DLPack */
  DLManagedTensorVersioned ymt;
  memset(&ymt, 0, sizeof ymt);
  ymt.version.major = DLPACK_MAJOR_VERSION;
  ymt.version.minor = DLPACK_MINOR_VERSION;
  ymt.deleter = note_deleted;
  ymt.dl_tensor = x;
  ymt.dl_tensor.data = ys;
  TVMFFIObjectHandle y = NULL;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(&ymt, 0, 0, &y));
  TVMFFIAny args[2] = {any_dltensor(&x), any_obj(y)}, r;
  CHECK_OK(call(f, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  for (int i = 0; i < 5; ++i)
    if (ys[i] != xs[i] + 1.0f) FAIL("add_one: y[%d] = %g, expected %g", i, ys[i], xs[i] + 1.0f);
  CHECK_EQ_INT(check_use_count(y), 1); /* the kernel kept no reference */

  /* the kernel's own TVM_FFI_THROW(TypeError) */
  int32_t is[5] = {0};
  DLTensor xi = x;
  xi.data = is;
  xi.dtype.code = kDLInt;
  args[0] = any_dltensor(&xi);
  CHECK_RAISED(call(f, args, 2, &r), "TypeError", "add_one: expected float32 tensors");
  /* the typed wrapper's argument check names the export */
  args[0] = any_int(3);
  CHECK_RAISED(call(f, args, 2, &r), "TypeError", "add_one");
  /* wrong arity */
  CHECK_RAISED(call(f, args, 1, &r), "TypeError", "add_one");

  CHECK_EQ_INT(g_dlpack_deleted, 0);
  TVMFFIObjectDecRef(y);
  CHECK_EQ_INT(g_dlpack_deleted, 1);
  TVMFFIObjectDecRef(f);
}

static void test_iota(void) {
  TVMFFIObjectHandle f = get_function("iota");
  TVMFFIAny arg = any_int(4), r;
  /* no allocator installed: our RuntimeError travels through the C++ kernel */
  CHECK_RAISED(call(f, &arg, 1, &r), "RuntimeError", "");
  DLPackManagedTensorAllocator prev = NULL;
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(malloc_alloc, 0, &prev));
  CHECK(prev == NULL);
  CHECK_OK(call(f, &arg, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFITensor);
  DLTensor* t = TVMFFITensorGetDLTensorPtr(r.v_obj);
  CHECK_EQ_INT(t->ndim, 1);
  CHECK_EQ_INT(t->shape[0], 4);
  CHECK_EQ_INT(t->dtype.code, kDLFloat);
  CHECK_EQ_INT(t->dtype.bits, 32);
  for (int i = 0; i < 4; ++i) CHECK(((float*)t->data)[i] == (float)i);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  check_any_release(&r);
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL));
  TVMFFIObjectDecRef(f);
}

static void test_scalars(void) {
  TVMFFIObjectHandle add_int = get_function("add_int");
  TVMFFIAny args[2] = {any_int(40), any_int(2)}, r;
  CHECK_OK(call(add_int, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 42);
  args[0] = any_int(INT64_MIN + 2);
  args[1] = any_int(-2);
  CHECK_OK(call(add_int, args, 2, &r));
  CHECK(r.v_int64 == INT64_MIN);
  args[1] = any_cstr("two");
  CHECK_RAISED(call(add_int, args, 2, &r), "TypeError", "add_int");
  TVMFFIObjectDecRef(add_int);

  TVMFFIObjectHandle scale = get_function("scale");
  args[0] = any_float(1.5);
  args[1] = any_float(-4.0);
  CHECK_OK(call(scale, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFloat);
  CHECK(r.v_float64 == -6.0);
  args[0] = any_int(3); /* int widens to a float parameter */
  CHECK_OK(call(scale, args, 2, &r));
  CHECK(r.v_float64 == -12.0);
  TVMFFIObjectDecRef(scale);
}

/* Int or BigInt of the given words (the runtime builds the object). */
static TVMFFIAny any_words(const int64_t* w, size_t n) {
  TVMFFIByteArray bytes = {(const char*)w, n * sizeof(int64_t)};
  TVMFFIAny v;
  CHECK_OK(TVMFFIBigIntFromByteArray(&bytes, &v));
  return v;
}

static void test_big_ints(void) {
  TVMFFIObjectHandle f = get_function("big_mul_add");
  const int64_t two100[] = {0, INT64_C(1) << 36};       /* 2^100 */
  const int64_t neg_two64[] = {0, -1};                   /* -2^64 */
  const int64_t two100_plus5[] = {5, INT64_C(1) << 36}; /* 2^100 + 5 */
  TVMFFIAny args[3] = {any_words(two100, 2), any_int(-3), any_words(neg_two64, 2)}, r;
  CHECK_EQ_INT(args[0].type_index, kTVMFFIBigInt);
  CHECK_OK(call(f, args, 3, &r)); /* 2^100 * -3 - 2^64, an object of the kernel's headers */
  CHECK_EQ_INT(r.type_index, kTVMFFIBigInt);
  const int64_t want[] = {0, (int64_t)((uint64_t)-3 << 36) - 1};
  TVMFFIByteArray got = TVMFFIBigIntGetContentByteArray(&r);
  CHECK_EQ_INT(got.size, sizeof want);
  CHECK(memcmp(got.data, want, sizeof want) == 0);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  TVMFFIObjectDecRef(r.v_obj); /* freed by the kernel's deleter */
  TVMFFIObjectDecRef(args[2].v_obj);
  args[1] = any_int(-1); /* 2^100 * -1 + (2^100 + 5): the kernel demotes it to an Int */
  args[2] = any_words(two100_plus5, 2);
  CHECK_OK(call(f, args, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 5);
  CHECK_EQ_INT(check_use_count(args[0].v_obj), 1); /* the kernel kept no reference */
  TVMFFIObjectDecRef(args[0].v_obj);
  TVMFFIObjectDecRef(args[2].v_obj);
  TVMFFIObjectDecRef(f);
}

static void test_strings(void) {
  TVMFFIObjectHandle greet = get_function("greet");
  TVMFFIAny arg = any_cstr("world"), r;
  CHECK_OK(call(greet, &arg, 1, &r));
  CHECK_EQ_BYTES(str_of(&r), "hello, world!");
  check_any_release(&r);
  /* a heap String made by our runtime, read by the kernel */
  TVMFFIByteArray long_name = check_ba("a rather long name, well past the small-string size");
  TVMFFIAny s;
  CHECK_OK(TVMFFIStringFromByteArray(&long_name, &s));
  CHECK_EQ_INT(s.type_index, kTVMFFIStr);
  CHECK_OK(call(greet, &s, 1, &r));
  CHECK_EQ_BYTES(str_of(&r), "hello, a rather long name, well past the small-string size!");
  CHECK_EQ_INT(r.type_index, kTVMFFIStr);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  CHECK_EQ_INT(check_use_count(s.v_obj), 1);
  check_any_release(&r);
  TVMFFIObjectDecRef(greet);

  TVMFFIObjectHandle str_len = get_function("str_len");
  CHECK_OK(call(str_len, &s, 1, &r));
  CHECK_EQ_INT(r.v_int64, (int64_t)long_name.size);
  check_any_release(&s);
  /* a small string (inline in the Any) */
  TVMFFIByteArray hi = check_ba("hi");
  CHECK_OK(TVMFFIStringFromByteArray(&hi, &s));
  CHECK_EQ_INT(s.type_index, kTVMFFISmallStr);
  CHECK_OK(call(str_len, &s, 1, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  TVMFFIObjectDecRef(str_len);
}

static void test_error(const char* source, int line) {
  TVMFFIObjectHandle fail = get_function("fail");
  TVMFFIAny arg = any_int(7), r;
  CHECK(call(fail, &arg, 1, &r) == -1);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err != NULL);
  CHECK_SLOT_CLEAN();
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(err), kTVMFFIError);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
  CHECK_EQ_BYTES(c->kind, "ValueError");
  CHECK_EQ_BYTES(c->message, "compat kernel failed with code 7");
  /* the TVM_FFI_THROW site comes first: "  File "<path>/SOURCE", line N, in ..." */
  char want[512];
  snprintf(want, sizeof want, "%s\", line %d, in ", source, line);
  if (c->backtrace.data == NULL || strstr(c->backtrace.data, want) == NULL)
    FAIL("backtrace lacks [%s]:\n%.*s", want, (int)c->backtrace.size,
         c->backtrace.data ? c->backtrace.data : "");
  if (strncmp(c->backtrace.data, "  File \"", 8) != 0)
    FAIL("backtrace is not in frame-line form:\n%s", c->backtrace.data);
  printf("error from the apache-built kernel: %.*s: %.*s\n%s", (int)c->kind.size, c->kind.data,
         (int)c->message.size, c->message.data, c->backtrace.data);
  CHECK_EQ_INT(check_use_count(err), 1);
  TVMFFIObjectDecRef(err);
  TVMFFIObjectDecRef(fail);
}

/* Function objects of our runtime, called from the kernel's C++ code. */
static int twice(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "twice: expected one int");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 2 * args[0].v_int64;
  return 0;
}
static int missing_key(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self, (void)args, (void)n, (void)result;
  TVMFFIErrorSetRaisedFromCStr("KeyError", "raised by the host's callback");
  return -1;
}

static void test_callbacks(void) {
  TVMFFIObjectHandle apply = get_function("apply");
  TVMFFIObjectHandle cb = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, twice, NULL, &cb));
  TVMFFIAny args[2] = {any_obj(cb), any_int(20)}, r;
  CHECK_OK(call(apply, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 41);
  CHECK_EQ_INT(check_use_count(cb), 1);
  TVMFFIObjectDecRef(cb);
  /* our error crosses the kernel's C++ exception path and comes back whole */
  CHECK_OK(TVMFFIFunctionCreate(NULL, missing_key, NULL, &cb));
  args[0] = any_obj(cb);
  CHECK_RAISED(call(apply, args, 2, &r), "KeyError", "raised by the host's callback");
  TVMFFIObjectDecRef(cb);
  TVMFFIObjectDecRef(apply);
}

static int64_t array_item(TVMFFIObjectHandle a, int64_t i) {
  TVMFFIAny args[2] = {any_obj(a), any_int(i)}, r;
  CHECK_OK(check_call_global("ffi.ArrayGetItem", args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  return r.v_int64;
}

static void test_arrays(void) {
  TVMFFIObjectHandle make = get_function("make_array"), sum = get_function("sum_array");
  /* laid out by the kernel, read by our runtime */
  TVMFFIAny arg = any_int(6), r;
  CHECK_OK(call(make, &arg, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFIObjectHandle a = r.v_obj;
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(a)->size, 6);
  for (int64_t i = 0; i < 6; ++i) CHECK_EQ_INT(array_item(a, i), i * i);
  TVMFFIAny v = any_obj(a);
  CHECK_OK(check_call_global("ffi.ArraySize", &v, 1, &r));
  CHECK_EQ_INT(r.v_int64, 6);
  /* and handed back to the kernel */
  CHECK_OK(call(sum, &v, 1, &r));
  CHECK_EQ_INT(r.v_int64, 0 + 1 + 4 + 9 + 16 + 25);
  CHECK_EQ_INT(check_use_count(a), 1);
  TVMFFIObjectDecRef(a);
  /* made by our runtime, read by the kernel */
  TVMFFIAny items[3] = {any_int(5), any_int(-7), any_int(100)};
  CHECK_OK(check_call_global("ffi.Array", items, 3, &r));
  a = r.v_obj;
  v = any_obj(a);
  CHECK_OK(call(sum, &v, 1, &r));
  CHECK_EQ_INT(r.v_int64, 98);
  /* an element of the wrong type is the kernel's TypeError */
  TVMFFIAny mixed[2] = {any_int(1), any_cstr("two")};
  TVMFFIAny m;
  CHECK_OK(check_call_global("ffi.Array", mixed, 2, &m));
  CHECK_RAISED(call(sum, &m, 1, &r), "TypeError", "sum_array");
  check_any_release(&m);
  CHECK_EQ_INT(check_use_count(a), 1);
  TVMFFIObjectDecRef(a);
  TVMFFIObjectDecRef(make);
  TVMFFIObjectDecRef(sum);
}

/* Maps of both layouts (small and hashed) in both directions. */
static void test_maps(void) {
  TVMFFIObjectHandle make = get_function("make_map"), get = get_function("map_get");
  char key[16];
  for (int64_t n = 3; n <= 40; n += 37) {
    TVMFFIAny arg = any_int(n), r;
    CHECK_OK(call(make, &arg, 1, &r));
    CHECK_EQ_INT(r.type_index, kTVMFFIMap);
    TVMFFIObjectHandle kmap = r.v_obj;
    TVMFFIAny v = any_obj(kmap);
    CHECK_OK(check_call_global("ffi.MapSize", &v, 1, &r));
    CHECK_EQ_INT(r.v_int64, n);
    /* our map with the same content, built from views */
    TVMFFIAny kv[80];
    char keys[40][16];
    for (int64_t i = 0; i < n; ++i) {
      snprintf(keys[i], sizeof keys[i], "k%d", (int)i);
      kv[2 * i] = any_cstr(keys[i]);
      kv[2 * i + 1] = any_int(i * 10);
    }
    TVMFFIAny ours;
    CHECK_OK(check_call_global("ffi.Map", kv, (int32_t)(2 * n), &ours));
    for (int64_t i = 0; i < n; ++i) {
      snprintf(key, sizeof key, "k%d", (int)i);
      TVMFFIAny args[2] = {v, any_cstr(key)};
      CHECK_OK(check_call_global("ffi.MapGetItem", args, 2, &r)); /* ours reads theirs */
      CHECK_EQ_INT(r.v_int64, i * 10);
      args[0] = ours;
      CHECK_OK(call(get, args, 2, &r)); /* theirs reads ours */
      CHECK_EQ_INT(r.v_int64, i * 10);
    }
    TVMFFIAny args[2] = {ours, any_cstr("absent")};
    CHECK_RAISED(call(get, args, 2, &r), "KeyError", "map_get: no key absent");
    args[0] = v;
    CHECK_RAISED(check_call_global("ffi.MapGetItem", args, 2, &r), "KeyError", "");
    check_any_release(&ours);
    CHECK_EQ_INT(check_use_count(kmap), 1);
    TVMFFIObjectDecRef(kmap);
  }
  TVMFFIObjectDecRef(make);
  TVMFFIObjectDecRef(get);
}

/* Keys whose __any_hash__ / __any_equal__ hooks the kernel registered with
 * apache's headers (native adapters returning a TVMFFIAny): our maps call them
 * in that convention, results and errors both. */
static void test_custom_keys(void) {
  TVMFFIObjectHandle make = get_function("make_key"), lookup = get_function("key_lookup");
  TVMFFIAny keys[5], r; /* ids 8, 8, 11 (same hash as 8), 7, -1 */
  const int64_t ids[5] = {8, 8, 11, 7, -1};
  for (int i = 0; i < 5; ++i) {
    TVMFFIAny arg = any_int(ids[i]);
    CHECK_OK(call(make, &arg, 1, &keys[i]));
  }
  CHECK(keys[0].v_obj != keys[1].v_obj);
  uint64_t h;
  CHECK_OK(TVMFFIContainerAnyHash(&keys[0], &h));
  CHECK(h == TVMFFIContainerHashCombine((uint64_t)keys[0].type_index, 8 % 3));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&keys[0], &keys[1]), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&keys[0], &keys[2]), 0);
  /* our map {key 8: 1, key 11: 10, key 7: 8, 0: 0, ..., 4: 4}: hashed, not small */
  TVMFFIAny kv[16] = {keys[0], any_int(1), keys[2], any_int(10), keys[3], any_int(8)}, m;
  for (int i = 0; i < 5; ++i) kv[6 + 2 * i] = kv[7 + 2 * i] = any_int(i);
  CHECK_OK(check_call_global("ffi.Map", kv, 16, &m));
  TVMFFIAny q[2] = {m, keys[1]};
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r)); /* another object with id 8 */
  CHECK_EQ_INT(r.v_int64, 1);
  q[1] = keys[2];
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 10);
  CHECK_OK(call(lookup, q, 2, &r)); /* the kernel reads our map */
  CHECK_EQ_INT(r.v_int64, 10);
  q[1] = keys[1];
  CHECK_OK(call(lookup, q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  /* the hook's exception comes back as the lookup's error */
  q[1] = keys[4];
  CHECK_RAISED(check_call_global("ffi.MapGetItem", q, 2, &r), "ValueError",
               "compat key hash refused id -1");
  check_any_release(&m);
  for (int i = 0; i < 5; ++i) check_any_release(&keys[i]);
  TVMFFIObjectDecRef(make);
  TVMFFIObjectDecRef(lookup);
}

/* An object of the kernel's reflected type: our runtime reads its fields
 * through the getters the kernel's headers registered. */
/* The kernel's C++ subclass of ffi.StructuralVisitor, a type our runtime
 * creates, was registered when it loaded, under that parent. */
static void test_visitor_subclass(void) {
  TVMFFIObjectHandle parent = get_function("visitor_parent");
  TVMFFIAny r;
  CHECK_OK(call(parent, NULL, 0, &r));
  CHECK_EQ_BYTES(str_of(&r), "ffi.StructuralVisitor");
  check_any_release(&r);
  TVMFFIByteArray key = {"compat.apache_kernel.LineVisitor", 32};
  int32_t t;
  CHECK_OK(TVMFFITypeKeyToIndex(&key, &t));
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  CHECK_EQ_INT(info->type_depth, 2);
  CHECK_EQ_BYTES(info->type_ancestors[1]->type_key, "ffi.StructuralVisitor");
  TVMFFIObjectDecRef(parent);
}

static void test_point(void) {
  TVMFFIObjectHandle make = get_function("make_point");
  TVMFFIAny args[2] = {any_int(7), any_float(2.5)}, r;
  CHECK_OK(call(make, args, 2, &r));
  CHECK(r.type_index >= kTVMFFIStaticObjectBegin);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(r.type_index);
  CHECK(info != NULL);
  CHECK_EQ_BYTES(info->type_key, "compat.apache_kernel.Point");
  CHECK_EQ_INT(info->num_fields, 2);
  int seen = 0;
  for (int32_t i = 0; i < info->num_fields; ++i) {
    const TVMFFIFieldInfo* f = &info->fields[i];
    TVMFFIAny v = any_none();
    CHECK_OK(f->getter((char*)r.v_obj + f->offset, &v));
    if (f->name.size == 1 && f->name.data[0] == 'x') {
      CHECK_EQ_INT(v.type_index, kTVMFFIInt);
      CHECK_EQ_INT(v.v_int64, 7);
      seen |= 1;
    } else if (f->name.size == 1 && f->name.data[0] == 'y') {
      CHECK_EQ_INT(v.type_index, kTVMFFIFloat);
      CHECK(v.v_float64 == 2.5);
      seen |= 2;
    }
  }
  CHECK_EQ_INT(seen, 3);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  check_any_release(&r);
  TVMFFIObjectDecRef(make);
}

/* A module written in C++ (ModuleObj subclass) used through our runtime. */
static void test_cxx_module(void) {
  TVMFFIObjectHandle make = get_function("make_module");
  TVMFFIAny arg = any_int(3), m, r;
  CHECK_OK(call(make, &arg, 1, &m));
  CHECK_EQ_INT(m.type_index, kTVMFFIModule);
  CHECK_OK(check_call_global("ffi.ModuleGetKind", &m, 1, &r));
  CHECK_EQ_BYTES(str_of(&r), "compat_line");
  check_any_release(&r);
  TVMFFIAny q[3] = {m, any_cstr("scale"), any_none()};
  q[2].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", q, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  TVMFFIObjectHandle scale = r.v_obj;
  arg = any_int(14);
  CHECK_OK(call(scale, &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  TVMFFIObjectDecRef(scale);
  q[1] = any_cstr("fail");
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", q, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  TVMFFIObjectHandle fail = r.v_obj;
  CHECK_RAISED(call(fail, NULL, 0, &r), "IndexError", "compat_line module failed");
  TVMFFIObjectDecRef(fail);
  q[1] = any_cstr("nope");
  CHECK_OK(check_call_global("ffi.ModuleGetFunction", q, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  CHECK_EQ_INT(check_use_count(m.v_obj), 1);
  check_any_release(&m);
  TVMFFIObjectDecRef(make);
}

/* The C++ API the kernel calls out of line (libtvm_ffi_cxx.so): JSON with an
 * Optional<int> indent (by value up to 0.1.12, by reference after), structural
 * equality, and Error::what() through the Error vtable. */
static void test_cxx_api(void) {
  TVMFFIObjectHandle dump = get_function("json_dump"), eq = get_function("struct_eq");
  TVMFFIObjectHandle what = get_function("what_of");
  TVMFFIAny items[2] = {any_int(1), any_int(2)}, a, b, r;
  CHECK_OK(check_call_global("ffi.Array", items, 2, &a));
  TVMFFIAny args[2] = {a, any_int(-1)};
  CHECK_OK(call(dump, args, 2, &r));
  CHECK_EQ_BYTES(str_of(&r), "[1,2]");
  check_any_release(&r);
  args[1] = any_int(2);
  CHECK_OK(call(dump, args, 2, &r));
  CHECK_EQ_BYTES(str_of(&r), "[\n  1,\n  2\n]");
  check_any_release(&r);
  CHECK_OK(check_call_global("ffi.Array", items, 2, &b));
  args[1] = b;
  CHECK_OK(call(eq, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 1);
  check_any_release(&b);
  items[1] = any_int(3);
  CHECK_OK(check_call_global("ffi.Array", items, 2, &b));
  args[1] = b;
  CHECK_OK(call(eq, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  check_any_release(&b);
  check_any_release(&a);
  TVMFFIAny msg = any_cstr("thrown and caught by std::exception");
  CHECK_OK(call(what, &msg, 1, &r));
  TVMFFIByteArray text = str_of(&r);
  if (strstr(text.data, "thrown and caught by std::exception") == NULL)
    FAIL("what() = [%.*s]", (int)text.size, text.data);
  check_any_release(&r);
  TVMFFIObjectDecRef(dump);
  TVMFFIObjectDecRef(eq);
  TVMFFIObjectDecRef(what);
}

/* The kernel's TVM_FFI_STATIC_INIT_BLOCK registered into our registry. */
static void test_static_init_global(void) {
  TVMFFIAny args[2] = {any_int(6), any_int(7)}, r;
  CHECK_OK(check_call_global("compat.apache_kernel.mul_int", args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 42);
}

/* --peers: two hook_peer.cc libraries, an old release's (raw int64_t / bool
 * hooks, 0.1.9-0.1.14, as TVM 0.27 stores them) and a new one's (0.1.15's
 * TVMFFIAny adapters), in one process: maps built by either one's inline code
 * or by our runtime hold both libraries' keys, and lookups by either library
 * and by our runtime find them.  Each hook is called the way its own library
 * was built. */
static TVMFFIObjectHandle load_peer(const char* path) {
  TVMFFIAny arg = any_cstr(path), r;
  CHECK_OK(check_call_global("ffi.ModuleLoadFromFile", &arg, 1, &r));
  return r.v_obj;
}

static int64_t peer_call(TVMFFIObjectHandle mod, const char* name, TVMFFIAny* args, int32_t n,
                         TVMFFIAny* result) {
  g_module = mod;
  TVMFFIObjectHandle f = get_function(name);
  CHECK_OK(call(f, args, n, result));
  TVMFFIObjectDecRef(f);
  return result->v_int64;
}

static int test_peers(const char* old_path, const char* new_path) {
  TVMFFIObjectHandle peer[2] = {load_peer(old_path), load_peer(new_path)};
  TVMFFIAny r;
  int64_t patch[2] = {peer_call(peer[0], "release_patch", NULL, 0, &r),
                      peer_call(peer[1], "release_patch", NULL, 0, &r)};
  CHECK(patch[0] < 15 && patch[1] >= 15);
  /* keys[p] of peer p: ids 1, 4, 1, 7 (1, 4 and 7 collide, the first and third equal) */
  const int64_t ids[4] = {1, 4, 1, 7};
  TVMFFIAny keys[2][4];
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 4; ++i) {
      TVMFFIAny arg = any_int(ids[i]);
      peer_call(peer[p], "make_key", &arg, 1, &keys[p][i]);
    }
  }
  for (int builder = 0; builder < 2; ++builder) {
    /* [old 1, new 1, old 4, new 4, old 1 (again), new 7]: five distinct keys */
    TVMFFIAny items[6] = {keys[0][0], keys[1][0], keys[0][1], keys[1][1], keys[0][2], keys[1][3]};
    TVMFFIAny arr, m;
    CHECK_OK(check_call_global("ffi.Array", items, 6, &arr));
    peer_call(peer[builder], "key_map", &arr, 1, &m);
    CHECK_OK(check_call_global("ffi.MapSize", &m, 1, &r));
    CHECK_EQ_INT(r.v_int64, 5);
    for (int reader = 0; reader < 2; ++reader) {
      TVMFFIAny q[2] = {m, keys[0][2]}; /* old 1: its last Set was at 4 */
      CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), 4);
      q[1] = keys[1][2]; /* new 1 */
      CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), 1);
      q[1] = keys[0][3]; /* old 7: absent */
      CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), -1);
    }
    TVMFFIAny q[2] = {m, keys[1][3]};
    CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
    CHECK_EQ_INT(r.v_int64, 5);
    check_any_release(&m);
    check_any_release(&arr);
  }
  /* a map built by our runtime: {old 1: 10, new 1: 11, old 4: 12, 0..4} (hashed, not small) */
  TVMFFIAny kv[16] = {keys[0][0], any_int(10), keys[1][0], any_int(11), keys[0][1], any_int(12)};
  for (int i = 0; i < 5; ++i) kv[6 + 2 * i] = kv[7 + 2 * i] = any_int(i + 100);
  TVMFFIAny m;
  CHECK_OK(check_call_global("ffi.Map", kv, 16, &m));
  uint64_t h;
  CHECK_OK(TVMFFIContainerAnyHash(&keys[0][0], &h));
  CHECK(h == TVMFFIContainerHashCombine((uint64_t)keys[0][0].type_index, 1));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&keys[0][0], &keys[0][2]), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&keys[0][0], &keys[0][1]), 0);
  for (int reader = 0; reader < 2; ++reader) {
    TVMFFIAny q[2] = {m, keys[0][2]};
    CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), 10);
    q[1] = keys[1][2];
    CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), 11);
    q[1] = keys[1][3];
    CHECK_EQ_INT(peer_call(peer[reader], "key_lookup", q, 2, &r), -1);
  }
  check_any_release(&m);
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 4; ++i) check_any_release(&keys[p][i]);
    TVMFFIObjectDecRef(peer[p]);
  }
  CHECK_SLOT_CLEAN();
  printf("hook peers 0.1.%d and 0.1.%d: maps built by either hold both libraries' keys\n",
         (int)patch[0], (int)patch[1]);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "--peers") == 0) return test_peers(argv[2], argv[3]);
  if (argc != 4) {
    fprintf(stderr,
            "usage: %s KERNEL.so SOURCE_BASENAME THROW_LINE\n       %s --peers OLD.so NEW.so\n",
            argv[0], argv[0]);
    return 2;
  }
  TVMFFIAny arg = any_cstr(argv[1]), r;
  CHECK_OK(check_call_global("ffi.ModuleLoadFromFile", &arg, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIModule);
  g_module = r.v_obj;

  TVMFFIObjectHandle patch_of = get_function("release_patch");
  CHECK_OK(call(patch_of, NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  int64_t patch = r.v_int64;
  TVMFFIObjectDecRef(patch_of);

  test_add_one();
  test_iota();
  test_scalars();
  if (patch >= 14) test_big_ints();
  test_strings();
  test_error(argv[2], atoi(argv[3]));
  test_callbacks();
  test_arrays();
  test_maps();
  if (patch >= 10) test_custom_keys();
  if (patch >= 13) test_visitor_subclass();
  test_point();
  test_cxx_module();
  test_cxx_api();
  test_static_init_global();

  CHECK_EQ_INT(check_use_count(g_module), 1);
  TVMFFIObjectDecRef(g_module);
  CHECK_SLOT_CLEAN();
  printf("kernel built against apache-tvm-ffi 0.1.%d: all calls through our runtime passed%s\n",
         (int)patch, patch >= 10 ? "" : " (no hash/equal hooks before 0.1.10)");
  return 0;
}
