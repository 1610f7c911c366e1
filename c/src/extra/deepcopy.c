/*
 * deepcopy.c -- ffi.DeepCopy (docs/abi.md §14.4; Python's copy.deepcopy of
 * containers, docs/python.md §13).
 *
 * Lists, Dicts, Arrays, Maps and reflected objects are copied; everything
 * else is shared, because it is immutable (strings, bytes, shapes, POD
 * values) or has no meaningful copy (tensors share their data, functions,
 * modules, errors).  Map/Dict keys and values are both copied.  A memo from
 * original to copy preserves sharing and cycles: a List that contains itself
 * yields a copy that contains the copy, and so does a Map reached again from
 * inside (through a List or Dict, as a value or a key).
 *
 * A reflected object is copied through its `__ffi_shallow_copy__` type
 * attribute when registered, else through its type's creator; then every
 * field with a setter receives a deep copy of the original's value.  A type
 * with neither is not copy-constructible: RuntimeError, as upstream.
 */
#include <string.h>

#include "ext.h"

typedef struct {
  TVMFFIObject* memo; /* ffi.Dict: original object -> its copy */
  int depth;
} copy_state;

#define COPY_MAX_DEPTH 1000

static int copy_any(copy_state* st, const TVMFFIAny* v, TVMFFIAny* out);

/* Registers orig -> copy (both borrowed) in the memo. */
static int memo_put(copy_state* st, TVMFFIObject* orig, TVMFFIObject* copy) {
  TVMFFIAny k, v;
  tvmffi__incref(orig);
  tvmffi__incref(copy);
  tvmffi__any_set_obj(&k, orig);
  tvmffi__any_set_obj(&v, copy);
  if (tvmffi__map_set(&st->memo, &k, &v) != 0) {
    tvmffi__any_release(&k);
    tvmffi__any_release(&v);
    return -1;
  }
  return 0;
}

/* The copy of orig: 1 found (*out, borrowed), 0 absent. */
static int memo_get(copy_state* st, TVMFFIObject* orig, TVMFFIObject** out) {
  TVMFFIAny k;
  tvmffi__any_set_obj(&k, orig);
  uint64_t pos;
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(st->memo);
  /* Object keys hash and compare by address: no hook can fail here. */
  if (TVMFFIMapCellFind(cell, &k, &pos) != 0 || pos == TVMFFI_MAP_ITER_END) return 0;
  *out = TVMFFIMapCellValue(cell, pos)->v_obj;
  return 1;
}

static int copy_seq(copy_state* st, TVMFFIObject* obj, TVMFFIObject** out) {
  TVMFFISeqCell* src = TVMFFISeqGetCellPtr(obj);
  int is_list = obj->type_index == kTVMFFIList;
  int64_t n = src->size;
  TVMFFIObject* dst = is_list ? tvmffi__list_new(n) : tvmffi__array_new(n);
  if (dst == NULL) return -1;
  /* A List can reach itself: register before descending. */
  if (memo_put(st, obj, dst) != 0) goto fail;
  for (int64_t i = 0; i < n && i < src->size; ++i) {
    TVMFFIAny e;
    if (copy_any(st, &((TVMFFIAny*)src->data)[i], &e) != 0) goto fail;
    TVMFFISeqCell* dc = TVMFFISeqGetCellPtr(dst);
    ((TVMFFIAny*)dc->data)[dc->size++] = e;
  }
  *out = dst;
  return 0;
fail:
  tvmffi__decref(dst);
  return -1;
}

/* Keys are copied like values (a copied mutable key is a new object, hashed anew).  The
 * copy is registered before its entries are, so that entries reaching back to the Map (through
 * a List or Dict) get the copy; it is laid out for all entries at once, since a Map that grows
 * becomes another object. */
static int copy_map(copy_state* st, TVMFFIObject* obj, TVMFFIObject** out) {
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(obj);
  TVMFFIObject* first = tvmffi__map_new_sized(obj->type_index, cell->size);
  TVMFFIObject* dst = first;
  if (dst == NULL) return -1;
  if (memo_put(st, obj, dst) != 0) goto fail;
  for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(cell, p)) {
    TVMFFIAny k, v;
    if (copy_any(st, TVMFFIMapCellKey(cell, p), &k) != 0) goto fail;
    if (copy_any(st, TVMFFIMapCellValue(cell, p), &v) != 0) {
      tvmffi__any_release(&k);
      goto fail;
    }
    if (tvmffi__map_set(&dst, &k, &v) != 0) {
      tvmffi__any_release(&k);
      tvmffi__any_release(&v);
      goto fail;
    }
  }
  if (dst != first) {
    /* The table outgrew its layout into another object: fine unless an entry already
     * points back at the first one (which the memo alone holds otherwise). */
    uint64_t strong =
        __atomic_load_n(&first->combined_ref_count, __ATOMIC_RELAXED) & (TVMFFI__WEAK_ONE - 1);
    if (strong > TVMFFI__STRONG_ONE) {
      tvmffi__raise("ValueError",
                    "ffi.DeepCopy: an ffi.Map that contains itself outgrew its table while "
                    "being copied");
      goto fail;
    }
    if (memo_put(st, obj, dst) != 0) goto fail;
  }
  *out = dst;
  return 0;
fail:
  tvmffi__decref(dst);
  return -1;
}

/* The Function a type registered as type attribute `name`, borrowed; NULL if none. */
static TVMFFIObject* type_fn(int32_t t, const char* name) {
  TVMFFIByteArray ba = {name, strlen(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&ba);
  if (col == NULL || t < col->begin_index || t >= col->begin_index + col->size) return NULL;
  const TVMFFIAny* f = &col->data[t - col->begin_index];
  return f->type_index == kTVMFFIFunction ? f->v_obj : NULL;
}

/* Whether ffi.DeepCopy can make an object of type t without __ffi_shallow_copy__. */
static int creatable(int32_t t) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  const TVMFFITypeMetadata* md =
      info != NULL ? __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE) : NULL;
  return (md != NULL && md->creator != NULL) || type_fn(t, "__ffi_new__") != NULL;
}

/* Calls the type's __ffi_shallow_copy__ attribute, if any: 1 found (copy in
 * *out), 0 absent, -1 failed. */
static int shallow_copy_hook(TVMFFIObject* obj, TVMFFIObject** out) {
  int32_t t = obj->type_index;
  TVMFFIObject* fn = type_fn(t, "__ffi_shallow_copy__");
  if (fn == NULL) return 0;
  TVMFFIAny arg, res;
  tvmffi__any_set_obj(&arg, obj);
  tvmffi__any_set_none(&res);
  if (tvmffi__function_call(fn, &arg, 1, &res) != 0) return -1;
  if (res.type_index != t) {
    tvmffi__any_release(&res);
    return tvmffi__raise("TypeError", "ffi.DeepCopy: __ffi_shallow_copy__ of `%s` returned `%s`",
                         tvmffi__type_key(t), tvmffi__any_type_key(&res));
  }
  *out = res.v_obj;
  return 1;
}

static int copy_object(copy_state* st, TVMFFIObject* obj, TVMFFIObject** out) {
  int32_t t = obj->type_index;
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  TVMFFIObject* dst = NULL;
  int from_hook = shallow_copy_hook(obj, &dst);
  if (from_hook < 0) return -1;
  if (!from_hook) {
    /* no __ffi_shallow_copy__: a fresh object (creator or __ffi_new__) gets every field */
    if (!creatable(t))
      return tvmffi__raise("RuntimeError",
                           "ffi.DeepCopy: cannot deep copy an object of type \"%s\" because it "
                           "is not copy-constructible (no __ffi_shallow_copy__, creator or "
                           "__ffi_new__)",
                           tvmffi__type_key(t));
    dst = tvmffi__object_create("ffi.DeepCopy", t);
    if (dst == NULL) return -1;
  }
  if (memo_put(st, obj, dst) != 0) goto fail;
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* ti = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < ti->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &ti->fields[i];
      if (f->getter == NULL) continue;
      if (f->setter == NULL) {
        /* A shallow copy already holds the value; a created one cannot get it. */
        if (from_hook) continue;
        tvmffi__raise("TypeError",
                      "ffi.DeepCopy: cannot copy an object of type `%s`: field `%.*s` has no "
                      "setter",
                      tvmffi__type_key(t), (int)f->name.size, f->name.data);
        goto fail;
      }
      TVMFFIAny v, c;
      tvmffi__any_set_none(&v);
      if (f->getter((char*)obj + f->offset, &v) != 0) goto fail;
      int rc = copy_any(st, &v, &c);
      tvmffi__any_release(&v);
      if (rc != 0) goto fail;
      rc = tvmffi__field_store(f, dst, &c);
      tvmffi__any_release(&c);
      if (rc != 0) goto fail;
    }
  }
  *out = dst;
  return 0;
fail:
  tvmffi__decref(dst);
  return -1;
}

static int copy_any(copy_state* st, const TVMFFIAny* view, TVMFFIAny* out) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  if (v.type_index < kTVMFFIStaticObjectBegin) return TVMFFIAnyViewToOwnedAny(&v, out);
  TVMFFIObject* obj = v.v_obj;
  int32_t t = obj->type_index;
  int copyable = t == kTVMFFIArray || t == kTVMFFIList || t == kTVMFFIMap || t == kTVMFFIDict ||
                 (t >= kTVMFFIDynObjectBegin && tvmffi__ext_num_fields(t) > 0 &&
                  !tvmffi__enum_is_instance_type(t));
  if (!copyable) { /* immutable leaves, enum singletons included: shared, not copied */
    tvmffi__incref(obj);
    tvmffi__any_set_obj(out, obj);
    return 0;
  }
  TVMFFIObject* done = NULL;
  int found = memo_get(st, obj, &done);
  if (found < 0) return -1;
  if (found) {
    tvmffi__incref(done);
    tvmffi__any_set_obj(out, done);
    return 0;
  }
  if (st->depth >= COPY_MAX_DEPTH)
    return tvmffi__raise("RuntimeError", "ffi.DeepCopy: nesting deeper than %d levels",
                         COPY_MAX_DEPTH);
  st->depth++;
  TVMFFIObject* res = NULL;
  int rc;
  if (t == kTVMFFIArray || t == kTVMFFIList)
    rc = copy_seq(st, obj, &res);
  else if (t == kTVMFFIMap || t == kTVMFFIDict)
    rc = copy_map(st, obj, &res);
  else
    rc = copy_object(st, obj, &res);
  st->depth--;
  if (rc != 0) return -1;
  tvmffi__any_set_obj(out, res);
  return 0;
}

/* ffi.DeepCopy(x: Any) -> Any */
static int deep_copy(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (tvmffi__args_count("ffi.DeepCopy(0: Any) -> Any", n, 1) != 0) return -1;
  copy_state st;
  st.depth = 0;
  st.memo = tvmffi__map_new(kTVMFFIDict);
  if (st.memo == NULL) return -1;
  int rc = copy_any(&st, &args[0], result);
  tvmffi__decref(st.memo);
  return rc;
}

void tvmffi__deepcopy_globals_init(void) {
  tvmffi__register_global("ffi.DeepCopy", deep_copy,
                          "Deep copy of containers and reflected objects (sharing preserved).",
                          SCHEMA_FN("Any", ARG("Any")));
}
