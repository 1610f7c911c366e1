/*
 * test_structural_mutate.c -- the structural-mutate protocol (tvm_ffi_structural(3)):
 * the `__s_mutate__` / `__s_maybe_inplace_mutate__` hooks of the built-in
 * types called directly with a mutator built here (as header-only C++ engines
 * do), ffi.StructuralMap in both orders over containers and reflected objects
 * (copy-on-write, in place for an rvalue root, variables mapped once),
 * ffi.StructuralMutate with callbacks owning their recursion, errors (callback
 * failure, no shallow copy, no setter) and refcounts.
 */
#include "check.h"

/* ---- a mutator as a C++ engine lays it out ---------------------------------- */

typedef struct test_mutator test_mutator;
typedef TVMFFIAny (*raw_fn)(test_mutator*, TVMFFIAny);
typedef struct {
  raw_fn mutate, maybe_inplace;
  TVMFFIAny (*get)(test_mutator*, TVMFFIAny);
  TVMFFIAny (*set)(test_mutator*, TVMFFIAny, TVMFFIAny);
} test_vtable;
struct test_mutator {
  TVMFFIObject header;
  const test_vtable* vtable;
  int32_t def_region;
  int calls_inplace;
};

static TVMFFIAny unchanged(void) {
  TVMFFIAny r;
  memset(&r, 0, sizeof(r));
  r.type_index = kTVMFFIUnchanged;
  return r;
}

/* Ints become 10x; everything else is left alone. */
static TVMFFIAny times_ten(test_mutator* m, TVMFFIAny v) {
  (void)m;
  if (v.type_index != kTVMFFIInt) return unchanged();
  v.v_int64 *= 10;
  return v;
}
static TVMFFIAny times_ten_inplace(test_mutator* m, TVMFFIAny v) {
  m->calls_inplace++;
  return times_ten(m, v);
}
static const test_vtable g_vtable = {times_ten, times_ten_inplace, NULL, NULL};

static raw_fn hook(const char* column, int32_t type_index) {
  TVMFFIByteArray name = check_ba(column);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  CHECK(col != NULL);
  CHECK(type_index >= col->begin_index && type_index < col->begin_index + col->size);
  const TVMFFIAny* v = &col->data[type_index - col->begin_index];
  CHECK_EQ_INT(v->type_index, kTVMFFIOpaquePtr);
  return (raw_fn)v->v_ptr;
}

static TVMFFIAny container(const char* ctor, TVMFFIAny* items, int32_t n) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(ctor, items, n, &r));
  return r;
}

static int64_t item_int(TVMFFIAny seq, int64_t i) {
  TVMFFIAny* items = (TVMFFIAny*)TVMFFISeqGetCellPtr(seq.v_obj)->data;
  CHECK_EQ_INT(items[i].type_index, kTVMFFIInt);
  return items[i].v_int64;
}

static void test_builtin_hooks(void) {
  test_mutator m;
  memset(&m, 0, sizeof(m));
  m.vtable = &g_vtable;
  /* leaves are Unchanged */
  static const int32_t leaves[] = {kTVMFFIStr, kTVMFFIBytes};
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny r = hook("__s_mutate__", leaves[i])(&m, check_any_int(0));
    CHECK_EQ_INT(r.type_index, kTVMFFIUnchanged);
    r = hook("__s_maybe_inplace_mutate__", leaves[i])(&m, check_any_int(0));
    CHECK_EQ_INT(r.type_index, kTVMFFIUnchanged);
  }
  static const char* ctors[] = {"ffi.Array", "ffi.List"};
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny items[2] = {check_any_int(1), check_any_cstr("keep")};
    TVMFFIAny seq = container(ctors[i], items, 2);
    /* copy-on-write: a new container, the source untouched */
    TVMFFIAny r = hook("__s_mutate__", seq.type_index)(&m, seq);
    CHECK_EQ_INT(r.type_index, seq.type_index);
    CHECK(r.v_obj != seq.v_obj);
    CHECK_EQ_INT(item_int(r, 0), 10);
    CHECK_EQ_INT(item_int(seq, 0), 1);
    check_any_release(&r);
    /* in place: the container itself changes, the result is Unchanged */
    r = hook("__s_maybe_inplace_mutate__", seq.type_index)(&m, seq);
    CHECK_EQ_INT(r.type_index, kTVMFFIUnchanged);
    CHECK_EQ_INT(item_int(seq, 0), 10);
    CHECK(m.calls_inplace == 0); /* elements are POD: never the in-place entry */
    /* nothing to change: Unchanged, no copy */
    TVMFFIAny strs[1] = {check_any_cstr("a")};
    TVMFFIAny only = container(ctors[i], strs, 1);
    r = hook("__s_mutate__", only.type_index)(&m, only);
    CHECK_EQ_INT(r.type_index, kTVMFFIUnchanged);
    check_any_release(&only);
    check_any_release(&seq);
  }
  static const char* map_ctors[] = {"ffi.Map", "ffi.Dict"};
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny kv[4] = {check_any_cstr("a"), check_any_int(2), check_any_cstr("b"),
                       check_any_cstr("x")};
    TVMFFIAny map = container(map_ctors[i], kv, 4);
    TVMFFIAny r = hook("__s_mutate__", map.type_index)(&m, map);
    CHECK_EQ_INT(r.type_index, map.type_index);
    CHECK(r.v_obj != map.v_obj);
    TVMFFIAny args[2] = {r, check_any_cstr("a")}, got;
    CHECK_OK(check_call_global(i ? "ffi.DictGetItem" : "ffi.MapGetItem", args, 2, &got));
    CHECK_EQ_INT(got.v_int64, 20);
    args[0] = map;
    CHECK_OK(check_call_global(i ? "ffi.DictGetItem" : "ffi.MapGetItem", args, 2, &got));
    CHECK_EQ_INT(got.v_int64, 2);
    check_any_release(&r);
    r = hook("__s_maybe_inplace_mutate__", map.type_index)(&m, map);
    CHECK_EQ_INT(r.type_index, kTVMFFIUnchanged);
    CHECK_OK(check_call_global(i ? "ffi.DictGetItem" : "ffi.MapGetItem", args, 2, &got));
    CHECK_EQ_INT(got.v_int64, 20);
    check_any_release(&map);
  }
}

/* ---- reflected fixtures: smut.Var (FreeVar), smut.Fn (def field), smut.Ro ------ */

typedef struct {
  TVMFFIObject header;
  TVMFFIAny f[2];
} node;

static int g_live;
static int32_t t_var, t_fn, t_ro, t_nocopy;

static void node_deleter(void* self, int flags) {
  node* n = (node*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    for (int i = 0; i < 2; ++i) check_any_release(&n->f[i]);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(self);
    --g_live;
  }
}

static TVMFFIAny mk(int32_t t, TVMFFIAny a, TVMFFIAny b) {
  node* n = (node*)calloc(1, sizeof(node));
  CHECK(n != NULL);
  n->header.combined_ref_count = UINT64_C(0x100000001);
  n->header.type_index = t;
  n->header.deleter = node_deleter;
  ++g_live;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&a, &n->f[0]));
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&b, &n->f[1]));
  return check_any_obj(n);
}

static int shallow_copy(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)n;
  node* src = (node*)args[0].v_obj;
  *r = mk(src->header.type_index, src->f[0], src->f[1]);
  return 0;
}

static int32_t new_type(const char* key, TVMFFISEqHashKind kind, int64_t flags0, int writable,
                        int copyable) {
  TVMFFIByteArray k = check_ba(key);
  int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)sizeof(node);
  md.structural_eq_hash_kind = kind;
  CHECK_OK(TVMFFITypeRegisterMetadata(idx, &md));
  static const char* names[2] = {"a", "b"};
  for (int i = 0; i < 2; ++i) {
    TVMFFIFieldInfo f;
    memset(&f, 0, sizeof(f));
    f.name = check_ba(names[i]);
    f.flags = (i == 0 ? flags0 : 0) | (writable ? kTVMFFIFieldFlagBitMaskWritable : 0);
    f.size = 16;
    f.alignment = 8;
    f.offset = 24 + 16 * i;
    f.getter = check_field_get_any;
    f.setter = writable ? (void*)check_field_set_any : NULL;
    f.field_static_type_index = kTVMFFIAny;
    CHECK_OK(TVMFFITypeRegisterField(idx, &f));
  }
  if (copyable) {
    TVMFFIObjectHandle fn;
    CHECK_OK(TVMFFIFunctionCreate(NULL, shallow_copy, NULL, &fn));
    TVMFFIAny v = check_any_obj(fn);
    TVMFFIByteArray name = check_ba("__ffi_shallow_copy__");
    CHECK_OK(TVMFFITypeRegisterAttr(idx, &name, &v));
    TVMFFIObjectDecRef(fn);
  }
  return idx;
}

/* Callback: ints + 1 (counted), anything else as it is. */
static int g_int_calls;
static int plus_one(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)n;
  if (args[0].type_index == kTVMFFIInt) {
    ++g_int_calls;
    *r = check_any_int(args[0].v_int64 + 1);
    return 0;
  }
  return TVMFFIAnyViewToOwnedAny(&args[0], r);
}
static int fail_cb(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)n;
  (void)r;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "callback refused");
  return -1;
}

/* [(type_index, fn)] (width 2) or [(type_index, fn, with_mode)] (width 3) */
static TVMFFIAny entries_mode(int32_t type_index, TVMFFISafeCallType cb, int width, int with_mode) {
  TVMFFIObjectHandle fn;
  CHECK_OK(TVMFFIFunctionCreate(NULL, cb, NULL, &fn));
  TVMFFIAny bmode = check_any_int(with_mode);
  bmode.type_index = kTVMFFIBool;
  TVMFFIAny t[3] = {check_any_int(type_index), check_any_obj(fn), bmode};
  TVMFFIAny tuple = container("ffi.Array", t, width);
  TVMFFIObjectDecRef(fn);
  TVMFFIAny list = container("ffi.Array", &tuple, 1);
  check_any_release(&tuple);
  return list;
}

static TVMFFIAny entries(int32_t type_index, TVMFFISafeCallType cb, int width) {
  return entries_mode(type_index, cb, width, width == 3);
}

static int run_map(TVMFFIAny root, TVMFFIAny cbs, int order, TVMFFIAny* r) {
  TVMFFIAny empty = container("ffi.Array", NULL, 0);
  TVMFFIAny args[4] = {root, cbs, empty, check_any_int(order)};
  int rc = check_call_global("ffi.StructuralMap", args, 4, r);
  check_any_release(&empty);
  return rc;
}

static node* as_node(TVMFFIAny v) { return (node*)v.v_obj; }

static void test_map_objects(void) {
  int live0 = g_live;
  TVMFFIAny cbs = entries(kTVMFFIInt, plus_one, 2);
  /* Fn(a=[x] (def, simple), b=[x, y]): x maps once, uses follow the definition */
  TVMFFIAny x = mk(t_var, check_any_int(1), check_any_int(0));
  TVMFFIAny y = mk(t_var, check_any_int(5), check_any_int(0));
  TVMFFIAny defs = container("ffi.Array", &x, 1);
  TVMFFIAny uses_items[2] = {x, y};
  TVMFFIAny uses = container("ffi.Array", uses_items, 2);
  TVMFFIAny fn = mk(t_fn, defs, uses);
  for (int order = 0; order < 2; ++order) {
    g_int_calls = 0;
    TVMFFIAny r;
    CHECK_OK(run_map(fn, cbs, order, &r));
    CHECK_EQ_INT(r.type_index, t_fn);
    CHECK(r.v_obj != fn.v_obj);
    TVMFFIAny* rdefs = (TVMFFIAny*)TVMFFISeqGetCellPtr(as_node(r)->f[0].v_obj)->data;
    TVMFFIAny* ruses = (TVMFFIAny*)TVMFFISeqGetCellPtr(as_node(r)->f[1].v_obj)->data;
    CHECK(rdefs[0].v_obj == ruses[0].v_obj); /* one mapping for x */
    CHECK(rdefs[0].v_obj != x.v_obj);
    CHECK_EQ_INT(as_node(rdefs[0])->f[0].v_int64, 2);
    /* y is a free variable used outside a def region: left alone */
    CHECK(ruses[1].v_obj == y.v_obj);
    CHECK_EQ_INT(g_int_calls, 2); /* x's two int fields, once */
    CHECK_EQ_INT(as_node(x)->f[0].v_int64, 1); /* source untouched */
    check_any_release(&r);
  }
  /* nothing to change: the root comes back as it is */
  TVMFFIAny strs = entries(kTVMFFIStr, plus_one, 2);
  TVMFFIAny r;
  CHECK_OK(run_map(fn, strs, 1, &r));
  CHECK(r.v_obj == fn.v_obj);
  check_any_release(&r);
  check_any_release(&strs);

  /* a read-only field that would change: TypeError naming it */
  TVMFFIAny ro = mk(t_ro, check_any_int(1), check_any_int(2));
  CHECK_RAISED(run_map(ro, cbs, 1, &r), "TypeError", "does not define a setter");
  /* no __ffi_shallow_copy__ */
  TVMFFIAny nc = mk(t_nocopy, check_any_int(1), check_any_int(2));
  CHECK_RAISED(run_map(nc, cbs, 1, &r), "TypeError",
               "__ffi_shallow_copy__ must be an ffi.Function");
  /* a failing callback: its error, nothing leaked */
  TVMFFIAny bad = entries(kTVMFFIInt, fail_cb, 2);
  CHECK_RAISED(run_map(fn, bad, 0, &r), "ValueError", "callback refused");
  check_any_release(&bad);
  check_any_release(&nc);
  check_any_release(&ro);

  check_any_release(&fn);
  check_any_release(&uses);
  check_any_release(&defs);
  check_any_release(&x);
  check_any_release(&y);
  check_any_release(&cbs);
  CHECK_EQ_INT(g_live, live0);
}

static void test_map_rvalue_root_in_place(void) {
  TVMFFIAny cbs = entries(kTVMFFIInt, plus_one, 2);
  TVMFFIAny items[2] = {check_any_int(1), check_any_int(2)};
  TVMFFIAny list = container("ffi.List", items, 2);
  TVMFFIObject* slot = list.v_obj; /* our only reference, handed over */
  TVMFFIAny ref;
  memset(&ref, 0, sizeof(ref));
  ref.type_index = kTVMFFIObjectRValueRef;
  ref.v_ptr = &slot;
  TVMFFIAny r;
  CHECK_OK(run_map(ref, cbs, 1, &r));
  CHECK(slot == NULL);             /* taken */
  CHECK(r.v_obj == list.v_obj);    /* changed in place */
  CHECK_EQ_INT(item_int(r, 1), 3);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  check_any_release(&r);
  check_any_release(&cbs);
}

/* StructuralMutate: the Array callback owns the recursion (default_mutate). */
static int g_array_calls;
static int array_default(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  CHECK_EQ_INT(n, 2);
  ++g_array_calls;
  TVMFFIAny a[2] = {args[1], args[0]};
  return check_call_global("ffi.StructuralMutatorDefaultMutate", a, 2, r);
}
static int int_times_three(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  CHECK_EQ_INT(n, 3); /* registered with the inplace-mode flag */
  CHECK(args[2].v_int64 == 0 || args[2].v_int64 == 1);
  *r = check_any_int(args[0].v_int64 * 3);
  return 0;
}

static void test_mutate(void) {
  TVMFFIAny a = entries_mode(kTVMFFIArray, array_default, 3, 0);
  TVMFFIAny b = entries(kTVMFFIInt, int_times_three, 3);
  /* both callbacks in one list */
  TVMFFIAny both[2] = {((TVMFFIAny*)TVMFFISeqGetCellPtr(a.v_obj)->data)[0],
                       ((TVMFFIAny*)TVMFFISeqGetCellPtr(b.v_obj)->data)[0]};
  TVMFFIAny cbs = container("ffi.Array", both, 2);
  TVMFFIAny inner_items[1] = {check_any_int(2)};
  TVMFFIAny inner = container("ffi.Array", inner_items, 1);
  TVMFFIAny outer_items[2] = {check_any_int(1), inner};
  TVMFFIAny outer = container("ffi.Array", outer_items, 2);
  TVMFFIAny args[2] = {outer, cbs}, r;
  g_array_calls = 0;
  CHECK_OK(check_call_global("ffi.StructuralMutate", args, 2, &r));
  CHECK_EQ_INT(g_array_calls, 2);
  CHECK_EQ_INT(item_int(r, 0), 3);
  TVMFFIAny rin = ((TVMFFIAny*)TVMFFISeqGetCellPtr(r.v_obj)->data)[1];
  CHECK_EQ_INT(item_int(rin, 0), 6);
  CHECK_EQ_INT(item_int(inner, 0), 2);
  check_any_release(&r);
  /* a malformed entry list */
  TVMFFIAny wrong = entries(kTVMFFIInt, int_times_three, 2);
  args[1] = wrong;
  CHECK_RAISED(check_call_global("ffi.StructuralMutate", args, 2, &r), "TypeError", "entry 0");
  check_any_release(&wrong);
  check_any_release(&outer);
  check_any_release(&inner);
  check_any_release(&cbs);
  check_any_release(&a);
  check_any_release(&b);
}

/* A value whose nodes are shared (a = [a, a] sixty times: 2^60 paths) maps in time linear in
 * its distinct nodes, and a shared node maps to one result (issue 22). */
static void test_map_shared_nodes(void) {
  TVMFFIAny a = check_dag("ffi.Array", check_any_int(1), 60);
  TVMFFIAny cbs = entries(kTVMFFIInt, plus_one, 2), r;
  g_int_calls = 0;
  CHECK_OK(run_map(a, cbs, 1, &r));
  CHECK(g_int_calls < 1000);
  const TVMFFIAny* top = (const TVMFFIAny*)TVMFFISeqGetCellPtr(r.v_obj)->data;
  CHECK(top[0].v_obj == top[1].v_obj);
  check_any_release(&r);
  check_any_release(&cbs);
  check_any_release(&a);
}

/* Callback: a Var becomes a new Var with a + 1 (counted). */
static int g_var_calls;
static int var_plus_one(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)n;
  ++g_var_calls;
  *r = mk(t_var, check_any_int(as_node(args[0])->f[0].v_int64 + 1), check_any_int(0));
  return 0;
}

/* A free variable is no shared node to map once: a callback on it runs at each of its
 * meetings (upstream's test_structural_map_reuses_var_and_dag_callback_results), in both
 * orders, while the shared container around it still maps once. */
static void test_map_var_callback_each_meeting(void) {
  int live0 = g_live;
  TVMFFIAny cbs = entries(t_var, var_plus_one, 2);
  TVMFFIAny x = mk(t_var, check_any_int(1), check_any_int(0));
  TVMFFIAny pair[2] = {x, x};
  TVMFFIAny inner = container("ffi.Array", pair, 2);
  TVMFFIAny outer_items[2] = {inner, inner};
  TVMFFIAny root = container("ffi.Array", outer_items, 2);
  for (int order = 0; order < 2; ++order) {
    TVMFFIAny r;
    g_var_calls = 0;
    CHECK_OK(run_map(root, cbs, order, &r));
    CHECK_EQ_INT(g_var_calls, 2);
    const TVMFFIAny* top = (const TVMFFIAny*)TVMFFISeqGetCellPtr(r.v_obj)->data;
    CHECK(top[0].v_obj == top[1].v_obj);
    const TVMFFIAny* vars = (const TVMFFIAny*)TVMFFISeqGetCellPtr(top[0].v_obj)->data;
    CHECK(vars[0].v_obj != vars[1].v_obj);
    CHECK(vars[0].v_obj != x.v_obj);
    CHECK_EQ_INT(as_node(vars[0])->f[0].v_int64, 2);
    check_any_release(&r);
  }
  check_any_release(&root);
  check_any_release(&inner);
  check_any_release(&x);
  check_any_release(&cbs);
  CHECK_EQ_INT(g_live, live0);
}

int main(void) {
  t_var = new_type("smut.Var", kTVMFFISEqHashKindFreeVar, 0, 1, 1);
  t_fn = new_type("smut.Fn", kTVMFFISEqHashKindTreeNode, kTVMFFIFieldFlagBitMaskSEqHashDefSimple, 1,
                  1);
  t_ro = new_type("smut.Ro", kTVMFFISEqHashKindTreeNode, 0, 0, 1);
  t_nocopy = new_type("smut.NoCopy", kTVMFFISEqHashKindTreeNode, 0, 1, 0);
  test_builtin_hooks();
  test_map_objects();
  test_map_rvalue_root_in_place();
  test_mutate();
  test_map_shared_nodes();
  test_map_var_callback_each_meeting();
  CHECK_EQ_INT(g_live, 0);
  CHECK_SLOT_CLEAN();
  printf("test_structural_mutate: ok\n");
  return 0;
}
