/*
 * test_structural.c -- ffi.StructuralEqual / StructuralHash /
 * GetFirstStructuralMismatch / StructuralKey / StructuralWalk and the
 * AccessPath type methods and repr (docs/abi.md §14.4): exact kinds, string forms, NaN,
 * containers, mismatch paths (missing items and keys), free variables bound
 * one-to-one (map_free_vars, def fields), SEqHashIgnore, Unsupported kinds,
 * structural keys as Map keys, walk order / SKIP / VisitInterrupt / def-region
 * kinds / a custom __s_visit__ hook, shared sub-graphs compared and hashed
 * once, argument errors and refcounts.
 */
#include <math.h>

#include "check.h"

/* ---- fixtures: stest.Var (FreeVar), stest.Fn (TreeNode, def field),
 *      stest.Dag (DAGNode), stest.Opaque (Unsupported), stest.Custom ------- */

typedef struct {
  TVMFFIObject header;
  TVMFFIAny f[3]; /* +24, +40, +56 */
} node;

static int g_live;
static int32_t t_var, t_fn, t_dag, t_opaque, t_custom, t_holder;

static void node_deleter(void* self, int flags) {
  node* n = (node*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    for (int i = 0; i < 3; ++i) check_any_release(&n->f[i]);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(self);
    --g_live;
  }
}

static int32_t new_type(const char* key, TVMFFISEqHashKind kind, int nfields, const char** names,
                        const int64_t* flags) {
  TVMFFIByteArray k = check_ba(key);
  int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)sizeof(node);
  md.structural_eq_hash_kind = kind;
  CHECK_OK(TVMFFITypeRegisterMetadata(idx, &md));
  for (int i = 0; i < nfields; ++i) {
    TVMFFIFieldInfo f;
    memset(&f, 0, sizeof(f));
    f.name = check_ba(names[i]);
    f.flags = flags[i];
    f.size = 16;
    f.alignment = 8;
    f.offset = 24 + 16 * i;
    f.getter = check_field_get_any;
    f.field_static_type_index = kTVMFFIAny;
    CHECK_OK(TVMFFITypeRegisterField(idx, &f));
  }
  return idx;
}

/* New node of type t with owned copies of up to three field views. */
static TVMFFIAny mk(int32_t t, TVMFFIAny a, TVMFFIAny b, TVMFFIAny c) {
  node* n = (node*)calloc(1, sizeof(node));
  CHECK(n != NULL);
  n->header.combined_ref_count = UINT64_C(0x100000001);
  n->header.type_index = t;
  n->header.deleter = node_deleter;
  ++g_live;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&a, &n->f[0]));
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&b, &n->f[1]));
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&c, &n->f[2]));
  return check_any_obj(n);
}

static TVMFFIAny none(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}
static TVMFFIAny flt(double d) {
  TVMFFIAny a = none();
  a.type_index = kTVMFFIFloat;
  a.v_float64 = d;
  return a;
}
static TVMFFIAny boolean(int b) {
  TVMFFIAny a = check_any_int(b);
  a.type_index = kTVMFFIBool;
  return a;
}
/* A variable named `name` (ignored by equality) of "type" ty. */
static TVMFFIAny var(const char* name, int64_t ty) {
  return mk(t_var, check_any_cstr(name), check_any_int(ty), none());
}

/* Owned container from views through the packed constructors. */
static TVMFFIAny container(const char* ctor, TVMFFIAny* items, int32_t n) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(ctor, items, n, &r));
  return r;
}
#define ARR(...) \
  arr_of((TVMFFIAny[]){__VA_ARGS__}, sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny))
static TVMFFIAny arr_of(TVMFFIAny* items, size_t n) {
  return container("ffi.Array", items, (int32_t)n);
}
#define MAP(...)                                   \
  container("ffi.Map", (TVMFFIAny[]){__VA_ARGS__}, \
            (int32_t)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)))

/* ---- calls ------------------------------------------------------------------- */

static int sequal(TVMFFIAny a, TVMFFIAny b, int map_free_vars) {
  TVMFFIAny args[4] = {a, b, boolean(map_free_vars), boolean(0)}, r;
  CHECK_OK(check_call_global("ffi.StructuralEqual", args, 4, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  return (int)r.v_int64;
}
static int64_t shash(TVMFFIAny a, int map_free_vars) {
  TVMFFIAny args[3] = {a, boolean(map_free_vars), boolean(0)}, r;
  CHECK_OK(check_call_global("ffi.StructuralHash", args, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  return r.v_int64;
}
/* Equal both ways and hash alike. */
static void same(TVMFFIAny a, TVMFFIAny b, int mfv) {
  CHECK(sequal(a, b, mfv));
  CHECK(sequal(b, a, mfv));
  CHECK_EQ_INT(shash(a, mfv), shash(b, mfv));
}
static void differ(TVMFFIAny a, TVMFFIAny b, int mfv) {
  CHECK(!sequal(a, b, mfv));
  CHECK(!sequal(b, a, mfv));
}

/* Calls method `name` of ffi.reflection.AccessPath. */
static int path_method(const char* name, TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  int32_t idx;
  TVMFFIByteArray key = check_ba("ffi.reflection.AccessPath");
  CHECK_OK(TVMFFITypeKeyToIndex(&key, &idx));
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(idx);
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (info->methods[i].name.size == strlen(name) &&
        memcmp(info->methods[i].name.data, name, strlen(name)) == 0) {
      memset(r, 0, sizeof(*r));
      return TVMFFIFunctionCall(info->methods[i].method.v_obj, args, n, r);
    }
  }
  FAIL("no method %s", name);
}

/* Steps of a path as "kind:key" text, e.g. "1:0 2:k" ('' for the root). */
static void path_text(TVMFFIAny path, char* out, size_t cap) {
  TVMFFIAny steps;
  CHECK_OK(path_method("_to_steps", &path, 1, &steps));
  CHECK_EQ_INT(steps.type_index, kTVMFFIArray);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(steps.v_obj);
  out[0] = '\0';
  for (int64_t i = 0; i < cell->size; ++i) {
    TVMFFIObject* step = ((TVMFFIAny*)cell->data)[i].v_obj;
    int32_t kind = *(int32_t*)((char*)step + 24);
    TVMFFIAny* key = (TVMFFIAny*)((char*)step + 32);
    char buf[64];
    if (key->type_index == kTVMFFIInt)
      snprintf(buf, sizeof(buf), "%s%d:%lld", i ? " " : "", kind, (long long)key->v_int64);
    else if (key->type_index == kTVMFFISmallStr)
      snprintf(buf, sizeof(buf), "%s%d:%.*s", i ? " " : "", kind, (int)key->small_str_len,
               key->v_bytes);
    else
      snprintf(buf, sizeof(buf), "%s%d:?", i ? " " : "", kind);
    strncat(out, buf, cap - strlen(out) - 1);
  }
  check_any_release(&steps);
}

/* First mismatch as "lhs | rhs" step texts, or "equal". */
static void mismatch(TVMFFIAny a, TVMFFIAny b, int mfv, const char* expect) {
  TVMFFIAny args[4] = {a, b, boolean(mfv), boolean(0)}, r;
  CHECK_OK(check_call_global("ffi.GetFirstStructuralMismatch", args, 4, &r));
  char got[256] = "equal";
  if (r.type_index != kTVMFFINone) {
    CHECK_EQ_INT(r.type_index, kTVMFFIArray);
    TVMFFIAny* pair = (TVMFFIAny*)TVMFFISeqGetCellPtr(r.v_obj)->data;
    char l[120], rr[120];
    path_text(pair[0], l, sizeof(l));
    path_text(pair[1], rr, sizeof(rr));
    snprintf(got, sizeof(got), "%s | %s", l, rr);
  }
  check_any_release(&r);
  CHECK_EQ_STR(got, expect);
}

/* ---- cases ------------------------------------------------------------------- */

static void test_values(void) {
  same(check_any_int(3), check_any_int(3), 0);
  differ(check_any_int(1), flt(1.0), 0);
  differ(check_any_int(1), boolean(1), 0);
  same(flt(NAN), flt(-NAN), 0);
  differ(flt(0.0), flt(-0.0), 0);
  same(none(), none(), 0);
  /* Raw, small and heap strings alike. */
  TVMFFIAny heap, small, bytes;
  TVMFFIByteArray long_s = check_ba("a string longer than seven bytes");
  CHECK_OK(TVMFFIStringFromByteArray(&long_s, &heap));
  same(heap, check_any_cstr("a string longer than seven bytes"), 0);
  TVMFFIByteArray short_s = check_ba("abc");
  CHECK_OK(TVMFFIStringFromByteArray(&short_s, &small));
  same(small, check_any_cstr("abc"), 0);
  differ(small, heap, 0);
  CHECK_OK(TVMFFIBytesFromByteArray(&short_s, &bytes));
  differ(bytes, small, 0);
  check_any_release(&heap);
}

static void test_containers(void) {
  TVMFFIAny a = ARR(check_any_int(1), check_any_cstr("x"));
  TVMFFIAny b = ARR(check_any_int(1), check_any_cstr("x"));
  TVMFFIAny c = ARR(check_any_int(1), check_any_cstr("y"), check_any_int(3));
  TVMFFIAny l = container("ffi.List", (TVMFFIAny[]){check_any_int(1), check_any_cstr("x")}, 2);
  same(a, b, 0);
  differ(a, l, 0);
  mismatch(a, b, 0, "equal");
  mismatch(a, c, 0, "1:1 | 1:1");
  mismatch(l, a, 0, " | ");
  TVMFFIAny short_a = ARR(check_any_int(1));
  mismatch(a, short_a, 0, "1:1 | 4:1");
  mismatch(short_a, a, 0, "4:1 | 1:1");
  /* Maps: iteration order does not matter; missing keys either side. */
  TVMFFIAny m1 = MAP(check_any_cstr("k"), check_any_int(1), check_any_cstr("j"), a);
  TVMFFIAny m2 = MAP(check_any_cstr("j"), b, check_any_cstr("k"), check_any_int(1));
  TVMFFIAny m3 = MAP(check_any_cstr("k"), check_any_int(1));
  TVMFFIAny m4 = MAP(check_any_cstr("k"), check_any_int(1), check_any_cstr("j"), c);
  same(m1, m2, 0);
  mismatch(m1, m3, 0, "2:j | 5:j");
  mismatch(m3, m1, 0, "5:j | 2:j");
  mismatch(m1, m4, 0, "2:j 1:1 | 2:j 1:1");
  TVMFFIAny nested1 = ARR(m1), nested2 = ARR(m4);
  mismatch(nested1, nested2, 0, "1:0 2:j 1:1 | 1:0 2:j 1:1");
  /* A self-containing List ends in RuntimeError, not a crash. */
  TVMFFIAny self1 = container("ffi.List", NULL, 0), self2 = container("ffi.List", NULL, 0);
  TVMFFIAny args[2] = {self1, self1};
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  args[0] = self2;
  args[1] = self2;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  CHECK(sequal(self1, self1, 0));
  TVMFFIAny eargs[4] = {self1, self2, boolean(0), boolean(0)};
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", eargs, 4, &r), "RuntimeError", "depth");
  CHECK_RAISED(check_call_global("ffi.StructuralHash", eargs + 1, 3, &r), "RuntimeError", "depth");
  CHECK_OK(check_call_global("ffi.ListClear", &self1, 1, &r));
  CHECK_OK(check_call_global("ffi.ListClear", &self2, 1, &r));
  TVMFFIAny all[] = {a, b, c, l, short_a, m1, m2, m3, m4, nested1, nested2, self1, self2};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    if (i < 9) CHECK_EQ_INT(check_use_count(all[i].v_obj) >= 1, 1);
    check_any_release(&all[i]);
  }
}

/* Array chains where each level holds the previous one twice: 2^depth paths,
 * so only memoised comparison and hashing finish. */
static TVMFFIAny doubling_chain(int depth, int64_t leaf) {
  TVMFFIAny cur = ARR(check_any_int(leaf));
  for (int i = 0; i < depth; ++i) {
    TVMFFIAny next = ARR(cur, cur);
    check_any_release(&cur);
    cur = next;
  }
  return cur;
}

static void test_shared_dags(void) {
  TVMFFIAny a = doubling_chain(64, 1), b = doubling_chain(64, 1), c = doubling_chain(64, 2);
  same(a, b, 0);
  same(a, b, 1);
  differ(a, c, 0);
  CHECK(shash(a, 0) != shash(c, 0));
  check_any_release(&a);
  check_any_release(&b);
  check_any_release(&c);
}

static void test_free_vars(void) {
  TVMFFIAny x = var("x", 1), y = var("y", 1), z = var("z", 1), w = var("w", 2);
  /* A variable equals itself; distinct ones only with map_free_vars. */
  same(x, x, 0);
  differ(x, y, 0);
  same(x, y, 1);
  differ(x, w, 1); /* fields still compared (the name is SEqHashIgnore) */
  /* One-to-one: x,x ~ y,y but not y,z; x,y not ~ z,z. */
  TVMFFIAny xx = ARR(x, x), yy = ARR(y, y), yz = ARR(y, z), xy = ARR(x, y), zz = ARR(z, z);
  same(xx, yy, 1);
  differ(xx, yz, 1);
  differ(xy, zz, 1);
  mismatch(xx, yz, 1, "1:1 | 1:1");
  /* A def field binds without map_free_vars: fn(x) = x ~ fn(y) = y. */
  TVMFFIAny px = ARR(x), py = ARR(y);
  TVMFFIAny fx = mk(t_fn, px, x, none()), fy = mk(t_fn, py, y, none());
  TVMFFIAny fyx = mk(t_fn, py, x, none());
  same(fx, fy, 0);
  differ(fx, fyx, 0);
  mismatch(fx, fyx, 0, "0:body | 0:body");
  /* Unbound use of a free variable outside the def field: identity only. */
  TVMFFIAny gx = mk(t_fn, px, z, none()), gy = mk(t_fn, py, w, none());
  differ(gx, gy, 0);
  /* DAG nodes: sharing must correspond. */
  TVMFFIAny d1 = mk(t_dag, check_any_int(1), none(), none());
  TVMFFIAny d2 = mk(t_dag, check_any_int(1), none(), none());
  TVMFFIAny d3 = mk(t_dag, check_any_int(1), none(), none());
  TVMFFIAny shared = ARR(d1, d1), split = ARR(d2, d3), shared2 = ARR(d2, d2);
  same(shared, shared2, 0);
  CHECK(!sequal(shared, split, 0)); /* d1 is bound to d2, so d1 vs d3 fails */
  TVMFFIAny all[] = {x,  y,  z,   w,  xx, yy, yz, xy, zz,     px,    py,
                     fx, fy, fyx, gx, gy, d1, d2, d3, shared, split, shared2};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(&all[i]);
}

/* A variable may hold another (stest.Var's "ty" field): a recursive def field
 * binds the nested variables too, a non-recursive one only the variable it
 * holds directly (stest.Holder: "rec" recursive, "simple" non-recursive). */
static void test_nested_free_vars(void) {
  TVMFFIAny m = var("m", 0), n = var("n", 0), p = var("p", 0), q = var("q", 0);
  TVMFFIAny a = mk(t_var, check_any_cstr("a"), m, none());
  TVMFFIAny b = mk(t_var, check_any_cstr("b"), n, none());
  TVMFFIAny c = mk(t_var, check_any_cstr("c"), p, none());
  TVMFFIAny d = mk(t_var, check_any_cstr("d"), q, none());
  TVMFFIAny s = var("s", 0), c0 = var("c0", 0), d0 = var("d0", 0);
  TVMFFIAny haa = mk(t_holder, a, a, none()), hbb = mk(t_holder, b, b, none());
  same(haa, hbb, 0); /* m binds to n inside the recursive field */
  TVMFFIAny hsc = mk(t_holder, s, c, none()), hsd = mk(t_holder, s, d, none());
  differ(hsc, hsd, 0); /* c binds to d, but p vs q is a use, unbound */
  mismatch(hsc, hsd, 0, "0:simple 0:ty | 0:simple 0:ty");
  same(hsc, hsd, 1); /* map_free_vars makes every position a pattern */
  TVMFFIAny hsc0 = mk(t_holder, s, c0, none()), hsd0 = mk(t_holder, s, d0, none());
  same(hsc0, hsd0, 0); /* the variable itself still binds */
  TVMFFIAny all[] = {m, n, p, q, a, b, c, d, s, c0, d0, haa, hbb, hsc, hsd, hsc0, hsd0};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(&all[i]);
}

static void test_unsupported_and_args(void) {
  TVMFFIAny o1 = mk(t_opaque, none(), none(), none()), o2 = mk(t_opaque, none(), none(), none());
  TVMFFIAny args[4] = {o1, o2, boolean(0), boolean(0)}, r;
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", args, 4, &r), "TypeError",
               "_type_s_eq_hash_kind is not set for type `stest.Opaque`");
  CHECK_RAISED(check_call_global("ffi.StructuralHash", args + 1, 3, &r), "TypeError",
               "StructuralHash is not supported");
  TVMFFIByteArray fname = check_ba("ffi.StructuralEqual");
  TVMFFIObjectHandle f;
  CHECK_OK(TVMFFIFunctionGetGlobal(&fname, &f));
  TVMFFIAny fa[4] = {check_any_obj(f), check_any_obj(f), boolean(0), boolean(0)};
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", fa, 4, &r), "TypeError",
               "Type metadata is not set for type `ffi.Function`");
  TVMFFIObjectDecRef(f);
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", args, 2, &r), "TypeError",
               "Expected 4 but got 2");
  args[2] = check_any_cstr("yes");
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", args, 4, &r), "TypeError", "argument #2");
  CHECK_RAISED(check_call_global("ffi.StructuralKeyEqual", args, 2, &r), "TypeError",
               "ffi.StructuralKey");
  check_any_release(&o1);
  check_any_release(&o2);
}

static void test_key(void) {
  TVMFFIAny a = ARR(check_any_int(1), check_any_cstr("s")),
            b = ARR(check_any_int(1), check_any_cstr("s"));
  TVMFFIAny ka, kb, r;
  CHECK_OK(check_call_global("ffi.StructuralKey", &a, 1, &ka));
  CHECK_OK(check_call_global("ffi.StructuralKey", &b, 1, &kb));
  TVMFFIAny both[2] = {ka, kb};
  CHECK_OK(check_call_global("ffi.StructuralKeyEqual", both, 2, &r));
  CHECK(r.v_int64 == 1);
  /* hash_i64 is the structural hash; the key works as a Map key. */
  CHECK_EQ_INT(*(int64_t*)((char*)ka.v_obj + 40), shash(a, 0));
  TVMFFIAny m = MAP(ka, check_any_int(7));
  TVMFFIAny get[2] = {m, kb};
  CHECK_OK(check_call_global("ffi.MapGetItem", get, 2, &r));
  CHECK_EQ_INT(r.v_int64, 7);
  TVMFFIAny all[] = {a, b, ka, kb, m};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(&all[i]);
}

/* ReprPrint(v) compared with `expect`. */
static void check_repr(TVMFFIAny v, const char* expect) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ReprPrint", &v, 1, &r));
  TVMFFIByteArray ba = r.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&r)
                                                       : *TVMFFIBytesGetByteArrayPtr(r.v_obj);
  char got[256];
  CHECK(ba.size < sizeof(got));
  memcpy(got, ba.data, ba.size);
  got[ba.size] = '\0';
  check_any_release(&r);
  CHECK_EQ_STR(got, expect);
}

static void test_access_path(void) {
  TVMFFIAny root, p1, p2, p3, r;
  CHECK_OK(path_method("_root", NULL, 0, &root));
  TVMFFIAny args[2] = {root, check_any_cstr("body")};
  CHECK_OK(path_method("_attr", args, 2, &p1));
  args[0] = p1;
  args[1] = check_any_int(3);
  CHECK_OK(path_method("_array_item", args, 2, &p2));
  args[1] = check_any_cstr("key");
  CHECK_OK(path_method("_map_item_missing", args, 2, &p3));
  char text[128];
  path_text(p2, text, sizeof(text));
  CHECK_EQ_STR(text, "0:body 1:3");
  path_text(p3, text, sizeof(text));
  CHECK_EQ_STR(text, "0:body 5:key");
  CHECK_EQ_INT(*(int32_t*)((char*)p2.v_obj + 40), 2); /* depth */
  TVMFFIAny pre[2] = {p1, p2};
  CHECK_OK(path_method("_is_prefix_of", pre, 2, &r));
  CHECK(r.v_int64 == 1);
  pre[0] = p2;
  pre[1] = p3;
  CHECK_OK(path_method("_is_prefix_of", pre, 2, &r));
  CHECK(r.v_int64 == 0);
  CHECK_OK(path_method("_path_equal", pre, 2, &r));
  CHECK(r.v_int64 == 0);
  /* Rebuilt independently, a path is equal step-wise. */
  TVMFFIAny q1, q2;
  args[0] = root;
  args[1] = check_any_cstr("body");
  CHECK_OK(path_method("_attr", args, 2, &q1));
  args[0] = q1;
  args[1] = check_any_int(3);
  CHECK_OK(path_method("_array_item", args, 2, &q2));
  pre[0] = p2;
  pre[1] = q2;
  CHECK_OK(path_method("_path_equal", pre, 2, &r));
  CHECK(r.v_int64 == 1);
  /* ReprPrint: attributes as .name, items [key], keys printed by ReprPrint */
  check_repr(root, "<root>");
  check_repr(p3, "<root>.body[<missing:\"key\">]");
  TVMFFIAny p4, p5;
  args[0] = p2;
  args[1] = check_any_cstr("k");
  CHECK_OK(path_method("_map_item", args, 2, &p4));
  args[0] = p4;
  args[1] = check_any_int(7);
  CHECK_OK(path_method("_array_item_missing", args, 2, &p5));
  check_repr(p5, "<root>.body[3][\"k\"][<missing:7>]");
  check_any_release(&p4);
  check_any_release(&p5);
  args[0] = root;
  args[1] = check_any_int(1);
  CHECK_RAISED(path_method("_attr", args, 2, &r), "TypeError", "Expected `str`");
  args[0] = check_any_int(1);
  CHECK_RAISED(path_method("_to_steps", args, 1, &r), "TypeError", "ffi.reflection.AccessPath");
  TVMFFIAny all[] = {root, p1, p2, p3, q1, q2};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(&all[i]);
}

/* ---- walk ---------------------------------------------------------------------- */

typedef struct {
  char log[512];
  int skip_arrays;     /* pre-order: return SKIP (1) for arrays */
  int64_t interrupt_at; /* return VisitInterrupt(value) for this int; -1 never */
} walk_log;

static int log_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  walk_log* w = (walk_log*)self;
  char buf[32];
  const TVMFFIAny* v = &args[0];
  if (v->type_index == kTVMFFIInt)
    snprintf(buf, sizeof(buf), "%lld", (long long)v->v_int64);
  else if (v->type_index == kTVMFFIArray)
    snprintf(buf, sizeof(buf), "A");
  else if (v->type_index == t_var)
    snprintf(buf, sizeof(buf), "V");
  else if (v->type_index == t_fn)
    snprintf(buf, sizeof(buf), "F");
  else
    snprintf(buf, sizeof(buf), "t%d", (int)v->type_index);
  if (n == 2) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%d", (int)args[1].v_int64);
  strncat(w->log, buf, sizeof(w->log) - strlen(w->log) - 2);
  strcat(w->log, " ");
  memset(result, 0, sizeof(*result));
  if (v->type_index == kTVMFFIInt && v->v_int64 == w->interrupt_at)
    return check_call_global("ffi.VisitInterrupt", (TVMFFIAny*)v, 1, result);
  if (w->skip_arrays && v->type_index == kTVMFFIArray) *result = check_any_int(1);
  return 0;
}

/* Walks root with one catch-all (or type-filtered) callback; returns the result. */
static TVMFFIAny walk(TVMFFIAny root, walk_log* w, int32_t type_index, int with_kind, int order) {
  TVMFFIObjectHandle f;
  CHECK_OK(TVMFFIFunctionCreate(w, log_cb, NULL, &f));
  TVMFFIAny pair = ARR(check_any_int(type_index), check_any_obj(f));
  TVMFFIAny entries = ARR(pair);
  TVMFFIAny none_entries = container("ffi.Array", NULL, 0);
  TVMFFIAny args[4] = {root, with_kind ? none_entries : entries, with_kind ? entries : none_entries,
                       check_any_int(order)};
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.StructuralWalk", args, 4, &r));
  check_any_release(&pair);
  check_any_release(&entries);
  check_any_release(&none_entries);
  TVMFFIObjectDecRef(f);
  return r;
}

static TVMFFIObjectHandle g_kept_visitor;

/* __s_visit__ hook of stest.Custom: visits field 0 only (and keeps the first
 * visitor it sees, to test its use after the walk). */
static int custom_visit(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 2);
  node* obj = (node*)args[0].v_obj;
  TVMFFIAny kargs[1] = {args[1]}, kind;
  CHECK_OK(check_call_global("ffi.StructuralVisitorDefRegionKind", kargs, 1, &kind));
  CHECK_EQ_INT(kind.v_int64, 0);
  if (g_kept_visitor == NULL) {
    g_kept_visitor = args[1].v_obj;
    TVMFFIObjectIncRef(g_kept_visitor);
  }
  TVMFFIAny vargs[2] = {args[1], obj->f[0]};
  return check_call_global("ffi.StructuralVisitorVisit", vargs, 2, result);
}

static void test_walk(void) {
  TVMFFIAny x = var("x", 1);
  TVMFFIAny inner = ARR(check_any_int(2), check_any_int(3));
  TVMFFIAny root = ARR(check_any_int(1), inner, none(), x);
  walk_log w = {"", 0, -1};
  TVMFFIAny r = walk(root, &w, -1, 0, 0);
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  CHECK_EQ_STR(w.log, "A 1 A 2 3 V 1 "); /* None and the ignored name skipped */
  memset(&w, 0, sizeof(w));
  w.interrupt_at = -1;
  r = walk(root, &w, -1, 0, 1);
  CHECK_EQ_STR(w.log, "1 2 3 A 1 V A ");
  memset(&w, 0, sizeof(w));
  w.interrupt_at = -1;
  r = walk(root, &w, kTVMFFIInt, 0, 0);
  CHECK_EQ_STR(w.log, "1 2 3 1 ");
  memset(&w, 0, sizeof(w));
  w.interrupt_at = -1;
  w.skip_arrays = 1;
  r = walk(inner, &w, -1, 0, 0);
  CHECK_EQ_STR(w.log, "A ");
  /* Interrupt: the walk stops and returns the VisitInterrupt with its value. */
  memset(&w, 0, sizeof(w));
  w.interrupt_at = 2;
  r = walk(root, &w, -1, 0, 0);
  CHECK_EQ_STR(w.log, "A 1 A 2 ");
  CHECK_EQ_INT(r.type_index, kTVMFFIVisitInterrupt);
  CHECK_EQ_INT(((TVMFFIAny*)((char*)r.v_obj + 24))->v_int64, 2);
  check_any_release(&r);
  /* Def-region kinds: Fn's params field is a recursive def region. */
  TVMFFIAny params = ARR(x);
  TVMFFIAny fn = mk(t_fn, params, x, none());
  memset(&w, 0, sizeof(w));
  w.interrupt_at = -1;
  r = walk(fn, &w, t_var, 1, 0);
  CHECK_EQ_STR(w.log, "V/1 V/0 ");
  /* Custom __s_visit__: only field 0 is visited. */
  TVMFFIAny custom = mk(t_custom, check_any_int(5), check_any_int(6), none());
  memset(&w, 0, sizeof(w));
  w.interrupt_at = -1;
  r = walk(custom, &w, kTVMFFIInt, 0, 0);
  CHECK_EQ_STR(w.log, "5 ");
  /* An interrupt raised below a custom hook propagates through it. */
  memset(&w, 0, sizeof(w));
  w.interrupt_at = 5;
  r = walk(custom, &w, kTVMFFIInt, 0, 1);
  CHECK_EQ_INT(r.type_index, kTVMFFIVisitInterrupt);
  check_any_release(&r);
  /* A visitor kept past its walk (the hook kept one) refuses to work. */
  CHECK(g_kept_visitor != NULL);
  TVMFFIAny kargs[2] = {check_any_obj(g_kept_visitor), check_any_int(1)};
  CHECK_RAISED(check_call_global("ffi.StructuralVisitorVisit", kargs, 2, &r), "RuntimeError",
               "no longer active");
  CHECK_RAISED(check_call_global("ffi.StructuralVisitorDefRegionKind", kargs, 1, &r),
               "RuntimeError", "no longer active");
  TVMFFIObjectDecRef(g_kept_visitor);
  g_kept_visitor = NULL;
  /* Bad arguments. */
  TVMFFIAny bad[4] = {root, check_any_int(1), none(), check_any_int(0)};
  CHECK_RAISED(check_call_global("ffi.StructuralWalk", bad, 4, &r), "TypeError", "argument #1");
  bad[1] = none();
  bad[3] = check_any_int(7);
  CHECK_RAISED(check_call_global("ffi.StructuralWalk", bad, 4, &r), "ValueError", "order");
  TVMFFIAny all[] = {x, inner, root, params, fn, custom};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(&all[i]);
}

static int count_cb(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)args;
  (void)n;
  ++*(int64_t*)h;
  memset(result, 0, sizeof(*result));
  return 0;
}

/* A walk over a value whose nodes are shared (a = [a, a] sixty times: 2^60 paths) visits each
 * container once past the first few hundred, so it ends (issue 22). */
static void test_walk_shared_nodes(void) {
  TVMFFIAny a = check_dag("ffi.Array", check_any_int(1), 60);
  int64_t calls = 0;
  TVMFFIObjectHandle f;
  CHECK_OK(TVMFFIFunctionCreate(&calls, count_cb, NULL, &f));
  TVMFFIAny pair = ARR(check_any_int(-1), check_any_obj(f));
  TVMFFIAny entries = ARR(pair);
  TVMFFIAny none_entries = container("ffi.Array", NULL, 0);
  for (int order = 0; order < 2; ++order) {
    TVMFFIAny args[4] = {a, entries, none_entries, check_any_int(order)}, r;
    calls = 0;
    CHECK_OK(check_call_global("ffi.StructuralWalk", args, 4, &r));
    CHECK(calls > 60 && calls < 2000);
  }
  TVMFFIAny vargs[2] = {a, entries}, r;
  CHECK_OK(check_call_global("ffi.StructuralVisit", vargs, 2, &r));
  check_any_release(&pair);
  check_any_release(&entries);
  check_any_release(&none_entries);
  TVMFFIObjectDecRef(f);
  check_any_release(&a);
}

int main(void) {
  const char* var_names[] = {"name", "ty"};
  const int64_t var_flags[] = {kTVMFFIFieldFlagBitMaskSEqHashIgnore, 0};
  t_var = new_type("stest.Var", kTVMFFISEqHashKindFreeVar, 2, var_names, var_flags);
  const char* fn_names[] = {"params", "body"};
  const int64_t fn_flags[] = {kTVMFFIFieldFlagBitMaskSEqHashDefRecursive, 0};
  t_fn = new_type("stest.Fn", kTVMFFISEqHashKindTreeNode, 2, fn_names, fn_flags);
  const char* dag_names[] = {"value"};
  const int64_t dag_flags[] = {0};
  t_dag = new_type("stest.Dag", kTVMFFISEqHashKindDAGNode, 1, dag_names, dag_flags);
  t_opaque = new_type("stest.Opaque", kTVMFFISEqHashKindUnsupported, 0, NULL, NULL);
  const char* custom_names[] = {"a", "b"};
  const int64_t custom_flags[] = {0, 0};
  t_custom = new_type("stest.Custom", kTVMFFISEqHashKindTreeNode, 2, custom_names, custom_flags);
  const char* holder_names[] = {"rec", "simple"};
  const int64_t holder_flags[] = {kTVMFFIFieldFlagBitMaskSEqHashDefRecursive,
                                  kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive};
  t_holder = new_type("stest.Holder", kTVMFFISEqHashKindTreeNode, 2, holder_names, holder_flags);
  TVMFFIObjectHandle hook;
  CHECK_OK(TVMFFIFunctionCreate(NULL, custom_visit, NULL, &hook));
  TVMFFIByteArray attr = check_ba("__s_visit__");
  TVMFFIAny hv = check_any_obj(hook);
  CHECK_OK(TVMFFITypeRegisterAttr(t_custom, &attr, &hv));
  TVMFFIObjectDecRef(hook);

  test_values();
  test_containers();
  test_shared_dags();
  test_free_vars();
  test_nested_free_vars();
  test_unsupported_and_args();
  test_key();
  test_access_path();
  test_walk();
  test_walk_shared_nodes();
  CHECK_EQ_INT(g_live, 0);
  CHECK_SLOT_CLEAN();
  return 0;
}
