/*
 * access_path.c -- ffi.reflection.AccessStep / ffi.reflection.AccessPath
 * (docs/abi.md §7.11, §14.4): immutable linked paths from a root value to a
 * sub-value, as GetFirstStructuralMismatch reports them.  A path is a node
 * (parent, step, depth); the root has neither parent nor step.
 *
 * Type methods (the Python AccessPath wraps them): _root (static), _extend,
 * _attr, _array_item, _map_item, the *_missing forms, _is_prefix_of,
 * _to_steps, _path_equal; and __ffi_repr__ hooks printing paths as
 * `<root>.a[0]["k"][<missing:3>]`.  Also the small registration helpers the
 * other structural files share.
 */
#include <string.h>

#include "structural.h"

int32_t tvmffi__access_step_index = -1;
int32_t tvmffi__access_path_index = -1;

/* ---- registration helpers ------------------------------------------------ */

static TVMFFIByteArray cstr(const char* s) {
  TVMFFIByteArray b = {s, s ? strlen(s) : 0};
  return b;
}

static int read_only_setter(void* addr, const TVMFFIAny* value) {
  (void)addr;
  (void)value;
  return tvmffi__raise("AttributeError", "this field is read-only");
}

int tvmffi__getter_any(void* addr, TVMFFIAny* out) {
  tvmffi__any_copy((const TVMFFIAny*)addr, out);
  return 0;
}
int tvmffi__getter_obj(void* addr, TVMFFIAny* out) {
  TVMFFIObject* obj = *(TVMFFIObject**)addr;
  if (obj != NULL) tvmffi__incref(obj);
  tvmffi__any_set_obj(out, obj);
  return 0;
}
int tvmffi__getter_i32(void* addr, TVMFFIAny* out) {
  tvmffi__any_set_int(out, *(int32_t*)addr);
  return 0;
}
int tvmffi__getter_i64(void* addr, TVMFFIAny* out) {
  tvmffi__any_set_int(out, *(int64_t*)addr);
  return 0;
}

static void fatal_from_raised(const char* what) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  tvmffi__fatal("cannot register %s", what);
}

void tvmffi__structural_add_field(int32_t type_index, const char* name, const char* doc,
                                  int64_t offset, int64_t size, tvmffi__field_getter getter,
                                  int32_t static_type_index) {
  TVMFFIFieldInfo info;
  memset(&info, 0, sizeof(info));
  info.name = cstr(name);
  info.doc = cstr(doc);
  info.size = size;
  info.alignment = size;
  info.offset = offset;
  info.getter = getter;
  info.setter = (void*)read_only_setter;
  info.field_static_type_index = static_type_index;
  tvmffi__any_set_none(&info.default_value_or_factory);
  if (TVMFFITypeRegisterField(type_index, &info) != 0) fatal_from_raised(name);
}

static TVMFFIObjectHandle new_function(TVMFFISafeCallType fn, const char* what) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, fn, NULL, &f) != 0) fatal_from_raised(what);
  return f;
}

void tvmffi__structural_add_method(int32_t type_index, const char* name, const char* doc,
                                   int is_static, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = new_function(fn, name);
  TVMFFIMethodInfo info;
  memset(&info, 0, sizeof(info));
  info.name = cstr(name);
  info.doc = cstr(doc);
  info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  tvmffi__any_set_obj(&info.method, (TVMFFIObject*)f);
  int rc = TVMFFITypeRegisterMethod(type_index, &info);
  TVMFFIObjectDecRef(f); /* the registry keeps its own reference */
  if (rc != 0) fatal_from_raised(name);
}

void tvmffi__structural_add_attr_fn(int32_t type_index, const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = new_function(fn, name);
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
  TVMFFIByteArray n = cstr(name);
  int rc = TVMFFITypeRegisterAttr(type_index, &n, &v);
  TVMFFIObjectDecRef(f);
  if (rc != 0) fatal_from_raised(name);
}

int32_t tvmffi__structural_new_type(const char* key, int32_t static_index, int32_t total_size,
                                    TVMFFISEqHashKind kind, const char* doc) {
  TVMFFIByteArray k = cstr(key);
  /* Upstream's capacity for the types its runtime declares: no reserved child
   * slots, and children may overflow, so a library can subclass any of them
   * (ffi.StructuralVisitor above all). */
  int32_t index = TVMFFITypeGetOrAllocIndex(&k, static_index, 1, 0, 1, kTVMFFIObject);
  if (index < 0) fatal_from_raised(key);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  if (info != NULL && info->metadata == NULL) {
    TVMFFITypeMetadata md;
    memset(&md, 0, sizeof(md));
    md.doc = cstr(doc);
    md.total_size = total_size;
    md.structural_eq_hash_kind = kind;
    if (TVMFFITypeRegisterMetadata(index, &md) != 0) fatal_from_raised(key);
  }
  return index;
}

/* ---- objects --------------------------------------------------------------- */

static void step_deleter(void* self, int flags) {
  tvmffi__access_step* s = (tvmffi__access_step*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) tvmffi__any_release(&s->key);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static void path_deleter(void* self, int flags) {
  tvmffi__access_path* p = (tvmffi__access_path*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    /* Long paths are chains: release iteratively, not by recursion. */
    TVMFFIObject* parent = p->parent;
    p->parent = NULL;
    tvmffi__decref(p->step);
    p->step = NULL;
    while (parent != NULL) {
      tvmffi__access_path* q = (tvmffi__access_path*)parent;
      if (__atomic_load_n(&parent->combined_ref_count, __ATOMIC_ACQUIRE) !=
          (TVMFFI__STRONG_ONE | TVMFFI__WEAK_ONE)) {
        tvmffi__decref(parent); /* shared: someone else keeps the rest */
        break;
      }
      TVMFFIObject* next = q->parent;
      q->parent = NULL; /* unique owner: detach, then free this link alone */
      tvmffi__decref(parent);
      parent = next;
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static TVMFFIObject* step_new(int32_t kind, const TVMFFIAny* key) {
  tvmffi__access_step* s = (tvmffi__access_step*)tvmffi__object_alloc(
      sizeof(tvmffi__access_step), tvmffi__access_step_index, step_deleter);
  if (s == NULL) return NULL;
  s->kind = kind;
  tvmffi__any_set_none(&s->key);
  if (key != NULL && tvmffi__container_key_acquire(key, &s->key) != 0) {
    tvmffi__decref(&s->header);
    return NULL;
  }
  return &s->header;
}

static TVMFFIObject* path_new(TVMFFIObject* parent, TVMFFIObject* step) {
  tvmffi__access_path* p = (tvmffi__access_path*)tvmffi__object_alloc(
      sizeof(tvmffi__access_path), tvmffi__access_path_index, path_deleter);
  if (p == NULL) return NULL;
  if (parent != NULL) tvmffi__incref(parent);
  if (step != NULL) tvmffi__incref(step);
  p->parent = parent;
  p->step = step;
  p->depth = parent ? ((tvmffi__access_path*)parent)->depth + 1 : 0;
  return &p->header;
}

TVMFFIObject* tvmffi__access_path_root(void) { return path_new(NULL, NULL); }

TVMFFIObject* tvmffi__access_path_extend(TVMFFIObject* parent, int32_t kind, const TVMFFIAny* key) {
  TVMFFIObject* step = step_new(kind, key);
  if (step == NULL) return NULL;
  TVMFFIObject* p = path_new(parent, step);
  tvmffi__decref(step);
  return p;
}

static int steps_equal(TVMFFIObject* a, TVMFFIObject* b) {
  if (a == b) return 1;
  tvmffi__access_step* x = (tvmffi__access_step*)a;
  tvmffi__access_step* y = (tvmffi__access_step*)b;
  return x->kind == y->kind && tvmffi__any_equal(&x->key, &y->key);
}

/* Equal when both have the same depth and pairwise equal steps. */
static int paths_equal(TVMFFIObject* a, TVMFFIObject* b) {
  if (((tvmffi__access_path*)a)->depth != ((tvmffi__access_path*)b)->depth) return 0;
  while (a != NULL && a != b) {
    tvmffi__access_path* x = (tvmffi__access_path*)a;
    tvmffi__access_path* y = (tvmffi__access_path*)b;
    if (x->step != NULL && !steps_equal(x->step, y->step)) return 0;
    a = x->parent;
    b = y->parent;
  }
  return 1;
}

/* ---- methods -------------------------------------------------------------------- */

#define SIG_PATH "ffi.reflection.AccessPath"

static int self_arg(const char* sig, const TVMFFIAny* args, int32_t n, int32_t want,
                    TVMFFIObject** self) {
  if (tvmffi__args_count(sig, n, want) != 0) return -1;
  return tvmffi__arg_obj(sig, args, 0, tvmffi__access_path_index, self);
}

static int ret_obj(TVMFFIObject* obj, TVMFFIAny* result) {
  if (obj == NULL) return -1;
  tvmffi__any_set_obj(result, obj);
  return 0;
}

static int m_root(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count(SIG_PATH "._root() -> " SIG_PATH, n, 0) != 0) return -1;
  return ret_obj(tvmffi__access_path_root(), result);
}

static int m_extend(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  static const char sig[] =
      SIG_PATH "._extend(0: " SIG_PATH ", 1: ffi.reflection.AccessStep) -> " SIG_PATH;
  TVMFFIObject *self, *step;
  if (self_arg(sig, args, n, 2, &self) != 0 ||
      tvmffi__arg_obj(sig, args, 1, tvmffi__access_step_index, &step) != 0)
    return -1;
  return ret_obj(path_new(self, step), result);
}

/* The six typed extensions: key must be a str (attr), an int (array) or anything (map). */
static int extend_typed(const char* sig, int32_t kind, const TVMFFIAny* args, int32_t n,
                        TVMFFIAny* result) {
  TVMFFIObject* self;
  if (self_arg(sig, args, n, 2, &self) != 0) return -1;
  int32_t base = kind >= TVMFFI__ACCESS_ATTR_MISSING ? kind - TVMFFI__ACCESS_ATTR_MISSING : kind;
  TVMFFIAny key;
  if (base == TVMFFI__ACCESS_ATTR) {
    TVMFFIByteArray s;
    if (tvmffi__arg_str(sig, args, 1, &s) != 0) return -1;
  } else if (base == TVMFFI__ACCESS_ARRAY_ITEM) {
    int64_t i;
    if (tvmffi__arg_int(sig, args, 1, &i) != 0) return -1;
    tvmffi__any_set_int(&key, i);
    return ret_obj(tvmffi__access_path_extend(self, kind, &key), result);
  }
  return ret_obj(tvmffi__access_path_extend(self, kind, &args[1]), result);
}

#define EXTEND_FN(fn, name, argt, kind)                                                        \
  static int fn(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {                \
    (void)h;                                                                                   \
    return extend_typed(SIG_PATH "." name "(0: " SIG_PATH ", 1: " argt ") -> " SIG_PATH, kind, \
                        args, n, result);                                                      \
  }
EXTEND_FN(m_attr, "_attr", "str", TVMFFI__ACCESS_ATTR)
EXTEND_FN(m_array_item, "_array_item", "int", TVMFFI__ACCESS_ARRAY_ITEM)
EXTEND_FN(m_map_item, "_map_item", "Any", TVMFFI__ACCESS_MAP_ITEM)
EXTEND_FN(m_attr_missing, "_attr_missing", "str", TVMFFI__ACCESS_ATTR_MISSING)
EXTEND_FN(m_array_item_missing, "_array_item_missing", "int", TVMFFI__ACCESS_ARRAY_ITEM_MISSING)
EXTEND_FN(m_map_item_missing, "_map_item_missing", "Any", TVMFFI__ACCESS_MAP_ITEM_MISSING)

static int two_paths(const char* sig, const TVMFFIAny* args, int32_t n, TVMFFIObject** a,
                     TVMFFIObject** b) {
  if (self_arg(sig, args, n, 2, a) != 0) return -1;
  return tvmffi__arg_obj(sig, args, 1, tvmffi__access_path_index, b);
}

static int m_is_prefix_of(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject *self, *other;
  if (two_paths(SIG_PATH "._is_prefix_of(0: " SIG_PATH ", 1: " SIG_PATH ") -> bool", args, n, &self,
                &other) != 0)
    return -1;
  int32_t d = ((tvmffi__access_path*)self)->depth;
  while (((tvmffi__access_path*)other)->depth > d) other = ((tvmffi__access_path*)other)->parent;
  tvmffi__any_set_bool(result,
                       ((tvmffi__access_path*)other)->depth == d && paths_equal(self, other));
  return 0;
}

static int m_path_equal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject *self, *other;
  if (two_paths(SIG_PATH "._path_equal(0: " SIG_PATH ", 1: " SIG_PATH ") -> bool", args, n, &self,
                &other) != 0)
    return -1;
  tvmffi__any_set_bool(result, paths_equal(self, other));
  return 0;
}

static int m_to_steps(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject* self;
  if (self_arg(SIG_PATH "._to_steps(0: " SIG_PATH ") -> ffi.Array<ffi.reflection.AccessStep>", args,
               n, 1, &self) != 0)
    return -1;
  int32_t depth = ((tvmffi__access_path*)self)->depth;
  TVMFFIObject* arr = tvmffi__array_new(depth);
  if (arr == NULL) return -1;
  /* Fill back to front: the chain runs leaf to root. */
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(arr);
  TVMFFIAny* items = (TVMFFIAny*)cell->data;
  int32_t i = depth;
  for (TVMFFIObject* p = self; p != NULL && i > 0; p = ((tvmffi__access_path*)p)->parent) {
    TVMFFIObject* step = ((tvmffi__access_path*)p)->step;
    tvmffi__incref(step);
    tvmffi__any_set_obj(&items[--i], step);
  }
  cell->size = depth;
  tvmffi__any_set_obj(result, arr);
  return 0;
}

/* ---- __ffi_repr__: `<root>.attr[0]["key"][<missing:3>]` ------------------------ */

/* Appends one step: `.name` for an attribute, `[key]` for an item (the key
 * printed by the ReprPrint callback `repr_fn`, so strings come quoted), and
 * `[<missing:key>]` for the *_MISSING kinds. */
static int repr_step(tvmffi__buf* out, const tvmffi__access_step* s, TVMFFIObject* repr_fn) {
  TVMFFIByteArray name;
  if (s->kind == TVMFFI__ACCESS_ATTR && tvmffi__any_as_str(&s->key, &name))
    return tvmffi__buf_append(out, ".", 1) || tvmffi__buf_append(out, name.data, name.size);
  TVMFFIAny key = s->key, text; /* a borrowed view of the key is the argument */
  tvmffi__any_set_none(&text);
  if (tvmffi__function_call(repr_fn, &key, 1, &text) != 0) return -1;
  int missing = s->kind >= TVMFFI__ACCESS_ATTR_MISSING;
  int rc = tvmffi__any_as_str(&text, &name) ? 0
                                            : tvmffi__raise("TypeError",
                                                            "ffi.ReprPrint: the "
                                                            "callback did not return a str");
  if (rc == 0)
    rc =
        tvmffi__buf_printf(out, missing ? "[<missing:%.*s>]" : "[%.*s]", (int)name.size, name.data);
  tvmffi__any_release(&text);
  return rc;
}

static int repr_to_result(tvmffi__buf* out, int rc, TVMFFIAny* result) {
  if (rc == 0) rc = tvmffi__str_to_any(kTVMFFIStr, out->data ? out->data : "", out->size, result);
  tvmffi__buf_free(out);
  return rc;
}

static int m_step_repr(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  static const char sig[] =
      "ffi.reflection.AccessStep.__ffi_repr__(0: ffi.reflection.AccessStep, "
      "1: ffi.Function) -> str";
  TVMFFIObject *self, *repr_fn;
  if (tvmffi__args_count(sig, n, 2) != 0 ||
      tvmffi__arg_obj(sig, args, 0, tvmffi__access_step_index, &self) != 0 ||
      tvmffi__arg_obj(sig, args, 1, kTVMFFIFunction, &repr_fn) != 0)
    return -1;
  tvmffi__buf out = {NULL, 0, 0};
  return repr_to_result(&out, repr_step(&out, (tvmffi__access_step*)self, repr_fn), result);
}

static int m_path_repr(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  static const char sig[] = SIG_PATH ".__ffi_repr__(0: " SIG_PATH ", 1: ffi.Function) -> str";
  TVMFFIObject *self, *repr_fn;
  if (self_arg(sig, args, n, 2, &self) != 0 ||
      tvmffi__arg_obj(sig, args, 1, kTVMFFIFunction, &repr_fn) != 0)
    return -1;
  /* The chain runs leaf to root: collect the steps, then print from the root. */
  int32_t depth = ((tvmffi__access_path*)self)->depth;
  const tvmffi__access_step** steps = NULL;
  if (depth > 0 && (steps = malloc(sizeof(*steps) * (size_t)depth)) == NULL)
    return tvmffi__raise_oom();
  int32_t i = depth;
  for (TVMFFIObject* p = self; p != NULL && i > 0; p = ((tvmffi__access_path*)p)->parent)
    steps[--i] = (const tvmffi__access_step*)((tvmffi__access_path*)p)->step;
  tvmffi__buf out = {NULL, 0, 0};
  int rc = tvmffi__buf_append(&out, "<root>", 6);
  for (i = 0; rc == 0 && i < depth; ++i) rc = repr_step(&out, steps[i], repr_fn);
  free(steps);
  return repr_to_result(&out, rc, result);
}

/* ---- registration ------------------------------------------------------------- */

void tvmffi__access_path_globals_init(void) {
  int32_t s = tvmffi__structural_new_type(
      "ffi.reflection.AccessStep", -1, (int32_t)sizeof(tvmffi__access_step),
      kTVMFFISEqHashKindTreeNode, "One step of an access path.");
  int32_t p = tvmffi__structural_new_type(
      "ffi.reflection.AccessPath", -1, (int32_t)sizeof(tvmffi__access_path),
      kTVMFFISEqHashKindTreeNode, "Path from a root value to a sub-value.");
  tvmffi__access_step_index = s;
  tvmffi__access_path_index = p;
  tvmffi__structural_add_field(s, "kind", "AccessKind of the step.",
                               offsetof(tvmffi__access_step, kind), 4, tvmffi__getter_i32,
                               kTVMFFIInt);
  tvmffi__structural_add_field(s, "key", "Attribute name, array index or map key.",
                               offsetof(tvmffi__access_step, key), 16, tvmffi__getter_any,
                               kTVMFFIAny);
  tvmffi__structural_add_field(p, "parent", "The path without its last step (None at the root).",
                               offsetof(tvmffi__access_path, parent), 8, tvmffi__getter_obj,
                               kTVMFFIObject);
  tvmffi__structural_add_field(p, "step", "The last step (None at the root).",
                               offsetof(tvmffi__access_path, step), 8, tvmffi__getter_obj, s);
  tvmffi__structural_add_field(p, "depth", "Number of steps.", offsetof(tvmffi__access_path, depth),
                               4, tvmffi__getter_i32, kTVMFFIInt);
  tvmffi__structural_add_method(p, "_root", "The root path.", 1, m_root);
  tvmffi__structural_add_method(p, "_extend", "This path plus one step.", 0, m_extend);
  tvmffi__structural_add_method(p, "_attr", "This path plus attribute access.", 0, m_attr);
  tvmffi__structural_add_method(p, "_array_item", "This path plus an array index.", 0,
                                m_array_item);
  tvmffi__structural_add_method(p, "_map_item", "This path plus a map key.", 0, m_map_item);
  tvmffi__structural_add_method(p, "_attr_missing", "This path plus a missing attribute.", 0,
                                m_attr_missing);
  tvmffi__structural_add_method(p, "_array_item_missing", "This path plus a missing index.", 0,
                                m_array_item_missing);
  tvmffi__structural_add_method(p, "_map_item_missing", "This path plus a missing map key.", 0,
                                m_map_item_missing);
  tvmffi__structural_add_method(p, "_is_prefix_of", "Whether this path is a prefix of another.", 0,
                                m_is_prefix_of);
  tvmffi__structural_add_method(p, "_to_steps", "The steps from the root, as an Array.", 0,
                                m_to_steps);
  tvmffi__structural_add_method(p, "_path_equal", "Step-wise equality of two paths.", 0,
                                m_path_equal);
  tvmffi__structural_add_attr_fn(s, "__ffi_repr__", m_step_repr);
  tvmffi__structural_add_attr_fn(p, "__ffi_repr__", m_path_repr);
}
