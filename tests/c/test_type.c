/*
 * test_type.c -- the type table: static entries, key lookup, index
 * allocation (reserved slots, overflow, depth/ancestors, query mode), the
 * IsInstance rule C++ headers apply to it, type_key_hash, unknown indices, fatal misuse.
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/wait.h>
#include <unistd.h>

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

/* Runs fn in a child process: it must exit with 255 and print `needle`. */
static void expect_fatal(void (*fn)(void), const char* needle) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    fn();
    _exit(0); /* not fatal: the parent reports it */
  }
  close(fds[1]);
  char buf[4096], sink[512];
  size_t n = 0;
  ssize_t got;
  /* Drain everything (a child writing to a closed pipe would die of SIGPIPE). */
  while ((got = read(fds[0], n < sizeof(buf) - 1 ? buf + n : sink,
                     n < sizeof(buf) - 1 ? sizeof(buf) - 1 - n : sizeof(sink))) > 0)
    if (n < sizeof(buf) - 1) n += (size_t)got;
  buf[n] = '\0';
  close(fds[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 255)
    FAIL("expected exit 255 with \"%s\", got status %d, stderr \"%s\"", needle, status, buf);
  if (strstr(buf, needle) == NULL) FAIL("stderr \"%s\" lacks \"%s\"", buf, needle);
}

static void fatal_no_overflow(void) {
  int32_t q = alloc("test.F.Q", 1, 1, 0, kTVMFFIObject);
  alloc("test.F.Q.A", 2, 0, 1, q);
  alloc("test.F.Q.B", 2, 0, 1, q); /* block full, overflow disabled */
}
static void fatal_inherited_no_overflow(void) {
  int32_t q = alloc("test.F.Q", 1, 1, 0, kTVMFFIObject);
  int32_t a = alloc("test.F.Q.A", 2, 0, 1, q); /* asks for overflow, gets none */
  alloc("test.F.Q.A.X", 3, 0, 1, a);
}
static void fatal_depth(void) { alloc("test.F.Depth", 2, 0, 1, kTVMFFIObject); }
static void fatal_root_depth(void) { alloc("test.F.RootDepth", 1, 0, 1, -1); }
static void fatal_parent(void) { alloc("test.F.Orphan", 1, 0, 1, 99); }
static void fatal_static_taken(void) {
  TVMFFIByteArray k = ba("test.F.Static");
  TVMFFITypeGetOrAllocIndex(&k, kTVMFFIArray, 1, 0, 0, kTVMFFIObject);
}
static void fatal_final_builtin_child(void) { alloc("test.F.MyString", 2, 0, 1, kTVMFFIStr); }

/* An unregistered index can come from data (an object a kernel returned):
 * NULL and a RuntimeError, never the end of the process. */
static int info_of(int32_t index) { return TVMFFIGetTypeInfo(index) == NULL ? -1 : 0; }

static void test_unknown_info(void) {
  CHECK_RAISED(info_of(100), "RuntimeError", "Cannot find type info for type_index=100");
  CHECK_RAISED(info_of(-7), "RuntimeError", "Cannot find type info for type_index=-7");
  CHECK_RAISED(info_of(INT32_MAX), "RuntimeError", "type_index=2147483647");
  CHECK_OK(info_of(kTVMFFIObject));
}

/* Misuse by a library registering its types is a programming error, fatal as upstream. */
static void test_fatal(void) {
  expect_fatal(fatal_no_overflow, "Reach maximum number of sub-classes");
  expect_fatal(fatal_inherited_no_overflow, "Reach maximum number of sub-classes");
  expect_fatal(fatal_depth, "type_depth");
  expect_fatal(fatal_root_depth, "type_depth");
  expect_fatal(fatal_parent, "parent");
  expect_fatal(fatal_static_taken, "already taken");
  expect_fatal(fatal_final_builtin_child, "Reach maximum number of sub-classes");
}

int main(void) {
  test_static_table();
  test_key_to_index_errors();
  test_hash();
  test_alloc();
  test_unknown_info();
  test_fatal();
  CHECK_SLOT_CLEAN();
  printf("test_type: ok\n");
  return 0;
}
