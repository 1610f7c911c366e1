/*
 * test_type.c -- the type table: static entries, key lookup, index
 * allocation (reserved slots, overflow, depth/ancestors, query mode), the
 * IsInstance rule C++ headers apply to it, type_key_hash, unknown indices, refused
 * registrations, subclasses of the runtime's own types.
 */
#include "check.h"

static TVMFFIByteArray ba(const char* s) { return check_ba(s); }

static int32_t alloc(const char* key, int32_t depth, int32_t slots, int32_t overflow,
                     int32_t parent) {
  TVMFFIByteArray k = ba(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, slots, overflow, parent);
}

/* The IsInstance test of C++ headers (docs/abi.md §12.2) for a non-final T with
 * `slots` reserved child slots: only the public table is used. */
static int is_instance(int32_t t, int32_t T, int32_t slots) {
  if (T == kTVMFFIObject) return t >= kTVMFFIStaticObjectBegin;
  if (t >= T && t <= T + slots) return 1;
  if (t <= T) return 0;
  const TVMFFITypeInfo* ti = TVMFFIGetTypeInfo(t);
  const TVMFFITypeInfo* Ti = TVMFFIGetTypeInfo(T);
  return ti->type_depth > Ti->type_depth && ti->type_ancestors[Ti->type_depth]->type_index == T;
}

static void test_static_table(void) {
  static const char* pods[] = {"None",
                               "int",
                               "bool",
                               "float",
                               "void*",
                               "DataType",
                               "Device",
                               "DLTensor*",
                               "const char*",
                               "TVMFFIByteArray*",
                               "ObjectRValueRef",
                               "ffi.SmallStr",
                               "ffi.SmallBytes"};
  for (int32_t i = 0; i < 13; ++i) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(i);
    CHECK_EQ_INT(info->type_index, i);
    CHECK_EQ_INT(info->type_depth, 0);
    CHECK_EQ_STR(info->type_key.data, pods[i]);
    CHECK_EQ_INT(info->type_key.size, strlen(pods[i]));
    int32_t idx = -5;
    TVMFFIByteArray k = ba(pods[i]);
    CHECK_OK(TVMFFITypeKeyToIndex(&k, &idx));
    CHECK_EQ_INT(idx, i);
  }
  const TVMFFITypeInfo* obj = TVMFFIGetTypeInfo(kTVMFFIObject);
  CHECK_EQ_STR(obj->type_key.data, "ffi.Object");
  CHECK_EQ_INT(obj->type_depth, 0);
  CHECK(obj->metadata != NULL);
  CHECK_EQ_INT(obj->metadata->total_size, 24);
  CHECK(obj->metadata->creator == NULL);
  static const struct {
    const char* key;
    int32_t index;
  } objs[] = {{"ffi.String", 65},         {"ffi.Bytes", 66}, {"ffi.Error", 67},
              {"ffi.Function", 68},       {"ffi.Shape", 69}, {"ffi.Tensor", 70},
              {"ffi.Array", 71},          {"ffi.Map", 72},   {"ffi.Module", 73},
              {"ffi.OpaquePyObject", 74}, {"ffi.List", 75},  {"ffi.Dict", 76}};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(objs[i].index);
    CHECK_EQ_STR(info->type_key.data, objs[i].key);
    CHECK_EQ_INT(info->type_depth, 1);
    CHECK(info->type_ancestors[0] == obj);
    /* C++ binaries re-register built-ins with their static index: same answer. */
    TVMFFIByteArray k = ba(objs[i].key);
    CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&k, objs[i].index, 1, 0, 0, kTVMFFIObject),
                 objs[i].index);
    CHECK(TVMFFIGetTypeInfo(objs[i].index) == info); /* stable pointer */
  }
}

static void test_key_to_index_errors(void) {
  int32_t idx = 1234;
  TVMFFIByteArray k = ba("test.NoSuchType");
  CHECK_RAISED(TVMFFITypeKeyToIndex(&k, &idx), "InternalError", "test.NoSuchType");
  CHECK_EQ_INT(idx, 1234); /* untouched on failure */
  CHECK_RAISED(TVMFFITypeKeyToIndex(NULL, &idx), "ValueError", "");
  /* Exact byte match: a prefix of a key is not the key. */
  TVMFFIByteArray prefix = {"ffi.Objec", 9};
  CHECK_RAISED(TVMFFITypeKeyToIndex(&prefix, &idx), "InternalError", "");
  /* Keys are byte ranges: the bytes after `size` do not matter. */
  TVMFFIByteArray cut = {"ffi.ObjectXYZ", 10};
  CHECK_OK(TVMFFITypeKeyToIndex(&cut, &idx));
  CHECK_EQ_INT(idx, kTVMFFIObject);
}

static void test_hash(void) {
  /* Values of libstdc++ std::hash<std::string_view>. */
  static const struct {
    const char* key;
    uint64_t hash;
  } cases[] = {{"ffi.Object", 3720555700325843206ULL},
               {"None", 18116513903021958570ULL},
               {"int", 12597418120160561823ULL},
               {"ffi.String", 11312986287260453238ULL},
               {"ffi.Function", 12948442202541698621ULL}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    int32_t idx;
    TVMFFIByteArray k = ba(cases[i].key);
    CHECK_OK(TVMFFITypeKeyToIndex(&k, &idx));
    if (TVMFFIGetTypeInfo(idx)->type_key_hash != cases[i].hash)
      FAIL("hash of %s: %llu", cases[i].key,
           (unsigned long long)TVMFFIGetTypeInfo(idx)->type_key_hash);
  }
  /* Tail lengths 0, 3 and multiples of 8 on new keys. */
  static const struct {
    const char* key;
    uint64_t hash;
  } dyn[] = {{"a", 4993892634952068459ULL},
             {"12345678", 10113836418918046885ULL},
             {"testing.TestIntPair", 17875834007609212959ULL},
             {"exactly16bytes!!", 11917477844971618394ULL}};
  for (size_t i = 0; i < sizeof(dyn) / sizeof(dyn[0]); ++i) {
    int32_t idx = alloc(dyn[i].key, 1, 0, 1, kTVMFFIObject);
    CHECK(idx >= kTVMFFIDynObjectBegin);
    CHECK(TVMFFIGetTypeInfo(idx)->type_key_hash == dyn[i].hash);
  }
}

static void test_alloc(void) {
  TVMFFIByteArray k = ba("test.Absent");
  /* Query mode never registers. */
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, -2), -2);
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, -2), -2);
  int32_t idx;
  CHECK_RAISED(TVMFFITypeKeyToIndex(&k, &idx), "InternalError", "");

  /* P reserves 3 child slots: P, A, B, B.child fill the block [p, p+3]. */
  int32_t p = alloc("test.P", 1, 3, 1, kTVMFFIObject);
  CHECK(p >= kTVMFFIDynObjectBegin);
  TVMFFIByteArray pk = ba("test.P");
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&pk, -2, 1, 0, 0, -2), p); /* query finds it */
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&pk, -1, 7, 9, 0, 3), p);  /* args ignored */
  int32_t a = alloc("test.P.A", 2, 0, 1, p);
  int32_t b = alloc("test.P.B", 2, 1, 1, p);
  int32_t bc = alloc("test.P.B.C", 3, 0, 1, b);
  CHECK_EQ_INT(a, p + 1);
  CHECK_EQ_INT(b, p + 2);
  CHECK_EQ_INT(bc, p + 3);
  /* P's block is full: the next child overflows to the global counter. */
  int32_t c = alloc("test.P.C", 2, 0, 1, p);
  CHECK(c > p + 3);
  int32_t next_root = alloc("test.Root", 0, 0, 1, -1);
  CHECK_EQ_INT(next_root, c + 1);
  CHECK_EQ_INT(TVMFFIGetTypeInfo(next_root)->type_depth, 0);
  CHECK(TVMFFIGetTypeInfo(next_root)->type_ancestors == NULL);

  const TVMFFITypeInfo* ci = TVMFFIGetTypeInfo(bc);
  CHECK_EQ_INT(ci->type_depth, 3);
  CHECK_EQ_INT(ci->type_ancestors[0]->type_index, kTVMFFIObject);
  CHECK_EQ_INT(ci->type_ancestors[1]->type_index, p);
  CHECK_EQ_INT(ci->type_ancestors[2]->type_index, b);
  CHECK_EQ_STR(ci->type_key.data, "test.P.B.C");
  CHECK_EQ_INT(ci->num_fields, 0);
  CHECK(ci->metadata == NULL);

  /* The IsInstance rule holds on what was allocated. */
  CHECK(is_instance(a, p, 3));
  CHECK(is_instance(bc, p, 3));
  CHECK(is_instance(c, p, 3)); /* overflowed: through the ancestor table */
  CHECK(is_instance(bc, b, 1));
  CHECK(!is_instance(a, b, 1));
  CHECK(!is_instance(c, b, 1));
  CHECK(!is_instance(next_root, p, 3));
  CHECK(is_instance(c, kTVMFFIObject, 0));
  CHECK(!is_instance(p, a, 0));

  /* A parent without overflow hands its child no overflow either, and its
   * children stay inside its block. */
  int32_t q = alloc("test.Q", 1, 1, 0, kTVMFFIObject);
  int32_t r = alloc("test.Q.R", 2, 0, 1, q);
  CHECK_EQ_INT(r, q + 1);
  CHECK(is_instance(r, q, 1));

  /* A static index in the dynamic range is honoured and skipped later. */
  int32_t base = alloc("test.Probe", 1, 0, 1, kTVMFFIObject);
  TVMFFIByteArray sk = ba("test.Static");
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&sk, base + 1, 1, 0, 0, kTVMFFIObject), base + 1);
  int32_t after = alloc("test.AfterStatic", 1, 0, 1, kTVMFFIObject);
  CHECK_EQ_INT(after, base + 2);
  /* Pointers stay put while the table grows. */
  const TVMFFITypeInfo* pinfo = TVMFFIGetTypeInfo(p);
  char key[64];
  for (int i = 0; i < 3000; ++i) {
    snprintf(key, sizeof(key), "test.Many%d", i);
    int32_t m = alloc(key, 1, 0, 1, kTVMFFIObject);
    CHECK_EQ_INT(TVMFFIGetTypeInfo(m)->type_index, m);
  }
  CHECK(TVMFFIGetTypeInfo(p) == pinfo);
  CHECK_EQ_STR(pinfo->type_key.data, "test.P");
  for (int i = 0; i < 3000; i += 7) {
    snprintf(key, sizeof(key), "test.Many%d", i);
    TVMFFIByteArray mk = ba(key);
    CHECK_OK(TVMFFITypeKeyToIndex(&mk, &idx));
    CHECK_EQ_STR(TVMFFIGetTypeInfo(idx)->type_key.data, key);
  }
}

/* An unregistered index can come from data (an object a kernel returned):
 * NULL and a RuntimeError, never the end of the process. */
static int info_of(int32_t index) { return TVMFFIGetTypeInfo(index) == NULL ? -1 : 0; }

static void test_unknown_info(void) {
  CHECK_RAISED(info_of(100), "RuntimeError", "Cannot find type info for type_index=100");
  CHECK_RAISED(info_of(-7), "RuntimeError", "Cannot find type info for type_index=-7");
  CHECK_RAISED(info_of(INT32_MAX), "RuntimeError", "type_index=2147483647");
  CHECK_OK(info_of(kTVMFFIObject));
}

/* alloc() must be refused: -1, error `kind` mentioning `needle` raised, nothing
 * registered under `key`, and the process goes on (the reference runtime exits). */
static void expect_refused(const char* key, int32_t depth, int32_t slots, int32_t overflow,
                           int32_t parent, const char* kind, const char* needle) {
  int32_t got = alloc(key, depth, slots, overflow, parent);
  CHECK_EQ_INT(got, -1);
  CHECK_RAISED(-1, kind, needle);
  TVMFFIByteArray k = ba(key);
  int32_t idx;
  CHECK_RAISED(TVMFFITypeKeyToIndex(&k, &idx), "InternalError", key);
}

/* Misuse by a library registering its types: an error the caller can handle. */
static void test_refused(void) {
  int32_t q = alloc("test.F.Q", 1, 1, 0, kTVMFFIObject);
  int32_t qa = alloc("test.F.Q.A", 2, 0, 1, q); /* asks for overflow, gets none */
  CHECK_EQ_INT(qa, q + 1);
  /* block full, overflow disabled */
  expect_refused("test.F.Q.B", 2, 0, 1, q, "TypeError", "Reach maximum number of sub-classes");
  expect_refused("test.F.Q.A.X", 3, 0, 1, qa, "TypeError", "Reach maximum number of sub-classes");
  expect_refused("test.F.Depth", 2, 0, 1, kTVMFFIObject, "ValueError", "type_depth");
  expect_refused("test.F.RootDepth", 1, 0, 1, -1, "ValueError", "type_depth");
  expect_refused("test.F.Orphan", 1, 0, 1, 99, "ValueError", "parent");
  expect_refused("test.F.MyString", 2, 0, 1, kTVMFFIStr, "TypeError",
                 "Reach maximum number of sub-classes");
  expect_refused("test.F.Slots", 1, -1, 1, kTVMFFIObject, "ValueError", "num_child_slots");
  TVMFFIByteArray k = ba("test.F.Static");
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&k, kTVMFFIArray, 1, 0, 0, kTVMFFIObject), -1);
  CHECK_RAISED(-1, "ValueError", "already taken");
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(NULL, -1, 1, 0, 1, kTVMFFIObject), -1);
  CHECK_RAISED(-1, "ValueError", "type_key must not be NULL");
  /* a refusal takes no slot: the next dynamic type lands where it would have */
  int32_t after = alloc("test.F.After", 1, 0, 1, kTVMFFIObject);
  CHECK(after >= kTVMFFIDynObjectBegin);
  CHECK_EQ_STR(TVMFFIGetTypeInfo(after)->type_key.data, "test.F.After");
}

/* The types the runtime itself creates take subclasses as upstream's do (no
 * reserved slots, overflow allowed): a library's C++ class deriving from
 * ffi.StructuralVisitor registers with the parent's index.  The built-in
 * depth-1 objects (ffi.Array, ffi.Module, ...) take none, as upstream. */
static void test_runtime_types_subclassable(void) {
  static const char* const parents[] = {"ffi.StructuralVisitor",
                                        "ffi.StructuralMutator",
                                        "ffi.StructuralKey",
                                        "ffi.reflection.AccessPath",
                                        "ffi.reflection.AccessStep",
                                        "ffi.VisitErrorContext",
                                        "ffi.VisitInterrupt",
                                        "ffi.EnumState",
                                        "ffi.Enum"};
  for (size_t i = 0; i < sizeof(parents) / sizeof(parents[0]); ++i) {
    TVMFFIByteArray pk = ba(parents[i]);
    int32_t p;
    CHECK_OK(TVMFFITypeKeyToIndex(&pk, &p));
    const TVMFFITypeInfo* pi = TVMFFIGetTypeInfo(p);
    char key[96];
    for (int j = 0; j < 3; ++j) { /* more than one: past any reserved block */
      snprintf(key, sizeof(key), "test.sub%d.%s", j, parents[i]);
      int32_t c = alloc(key, pi->type_depth + 1, 0, 1, p);
      if (c < 0) FAIL("subclassing %s was refused", parents[i]);
      const TVMFFITypeInfo* ci = TVMFFIGetTypeInfo(c);
      CHECK(ci->type_ancestors[pi->type_depth] == pi);
    }
  }
  expect_refused("test.sub.Array", 2, 0, 1, kTVMFFIArray, "TypeError", "ffi.Array");
  expect_refused("test.sub.Module", 2, 0, 1, kTVMFFIModule, "TypeError", "ffi.Module");
}

int main(void) {
  test_static_table();
  test_key_to_index_errors();
  test_hash();
  test_alloc();
  test_unknown_info();
  test_refused();
  test_runtime_types_subclassable();
  CHECK_SLOT_CLEAN();
  printf("test_type: ok\n");
  return 0;
}
