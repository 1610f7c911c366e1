/*
 * visit_error_context.c -- the ffi.VisitErrorContext type and the global
 * ffi.VisitErrorContext.FindAccessPaths (see tvm_ffi_extra(3)).
 *
 * C++ visitors that fail record, while the error unwinds, each object they
 * were visiting: reverse_visit_pattern lists them innermost first.  Given the
 * root the visit started from, FindAccessPaths finds where that chain of
 * objects sits in the graph and returns it as AccessPaths, in depth-first
 * (field, index, map) order.
 *
 * Matching: the pattern is cleaned first (None entries dropped, runs of the
 * same object collapsed: the throw site and its enclosing catch both record
 * the node they were on).  Descending from the root through reflected fields,
 * Array/List items and Map/Dict values, an object that is the next expected
 * pattern entry (by identity) advances the match; the last entry completes it
 * and records the path to that object (its subtree is not searched further).
 * Containers are walked through but never match themselves, and objects of
 * types without reflection metadata are not entered.  With allow_prefix_match,
 * a visited object below a partial match whose subtree recorded nothing
 * records its own path as a best-effort answer.
 */
#include <string.h>

#include "structural.h"

/* The layout C++ code compiled against the reference headers allocates:
 * the two members follow the object header in this order. */
typedef struct {
  TVMFFIObject header;
  TVMFFIObject* reverse_visit_pattern; /* +24, ffi.List of objects, innermost first */
  TVMFFIObject* prev_error_context;    /* +32, the error's earlier extra context or NULL */
} visit_error_context;

#define FIND_MAX_DEPTH 1000

static int32_t g_context_index = -1;

/* One descent step; the key is borrowed from the value being walked. */
typedef struct {
  int32_t kind;
  const TVMFFIFieldInfo* field; /* TVMFFI__ACCESS_ATTR */
  int64_t index;                /* TVMFFI__ACCESS_ARRAY_ITEM */
  TVMFFIAny key;                /* TVMFFI__ACCESS_MAP_ITEM */
} find_step;

typedef struct {
  TVMFFIObject** pattern; /* cleaned, outermost first, borrowed from the context */
  int64_t pattern_len;
  int64_t matched; /* pattern entries matched along the current descent */
  int allow_prefix;
  find_step steps[FIND_MAX_DEPTH];
  int64_t depth;
  /* paths[i] is the AccessPath of steps[0..i] (owned); built only when a
   * result needs it and cut back as the descent returns, so sibling results
   * share their common prefix. */
  TVMFFIObject* paths[FIND_MAX_DEPTH];
  int64_t num_paths;
  TVMFFIObject** results; /* owned AccessPaths */
  int64_t num_results, cap_results;
} finder;

static int visit_value(finder* f, const TVMFFIAny* value);

static void cut_paths(finder* f) {
  while (f->num_paths > f->depth) tvmffi__decref(f->paths[--f->num_paths]);
}

static int push_step(finder* f, find_step s) {
  if (f->depth >= FIND_MAX_DEPTH)
    return tvmffi__raise("RuntimeError",
                         "ffi.VisitErrorContext.FindAccessPaths: maximum depth %d exceeded "
                         "(cyclic structure?)",
                         FIND_MAX_DEPTH);
  f->steps[f->depth++] = s;
  return 0;
}

static void pop_step(finder* f) {
  --f->depth;
  cut_paths(f);
}

static TVMFFIObject* extend_path(TVMFFIObject* parent, const find_step* s) {
  TVMFFIAny key;
  if (s->kind == TVMFFI__ACCESS_ARRAY_ITEM) {
    tvmffi__any_set_int(&key, s->index);
    return tvmffi__access_path_extend(parent, s->kind, &key);
  }
  if (s->kind == TVMFFI__ACCESS_MAP_ITEM)
    return tvmffi__access_path_extend(parent, s->kind, &s->key);
  if (TVMFFIStringFromByteArray(&s->field->name, &key) != 0) return NULL;
  TVMFFIObject* p = tvmffi__access_path_extend(parent, s->kind, &key);
  tvmffi__any_release(&key);
  return p;
}

/* Appends the path of the current descent to the results.  0/-1. */
static int record_result(finder* f) {
  TVMFFIObject* path;
  if (f->depth == 0) {
    path = tvmffi__access_path_root();
  } else {
    while (f->num_paths < f->depth) {
      TVMFFIObject* parent = f->num_paths ? f->paths[f->num_paths - 1] : NULL;
      TVMFFIObject* root = NULL;
      if (parent == NULL && (root = tvmffi__access_path_root()) == NULL) return -1;
      TVMFFIObject* p = extend_path(parent ? parent : root, &f->steps[f->num_paths]);
      if (root != NULL) tvmffi__decref(root);
      if (p == NULL) return -1;
      f->paths[f->num_paths++] = p;
    }
    path = f->paths[f->depth - 1];
    tvmffi__incref(path);
  }
  if (path == NULL) return -1;
  if (f->num_results == f->cap_results) {
    int64_t cap = f->cap_results ? 2 * f->cap_results : 8;
    TVMFFIObject** grown = (TVMFFIObject**)realloc(f->results, (size_t)cap * sizeof(*grown));
    if (grown == NULL) {
      tvmffi__decref(path);
      return tvmffi__raise("MemoryError", "ffi.VisitErrorContext.FindAccessPaths: out of memory");
    }
    f->results = grown;
    f->cap_results = cap;
  }
  f->results[f->num_results++] = path;
  return 0;
}

static int visit_field(void* ctx, const TVMFFIFieldInfo* field, const TVMFFIAny* value) {
  finder* f = (finder*)ctx;
  find_step s = {TVMFFI__ACCESS_ATTR, field, 0, {0}};
  if (push_step(f, s) != 0) return -1;
  int r = visit_value(f, value);
  pop_step(f);
  return r;
}

static int visit_object(finder* f, TVMFFIObject* obj) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index);
  if (info == NULL || info->metadata == NULL) return 0;
  int advanced = f->matched < f->pattern_len && obj == f->pattern[f->matched];
  if (advanced && ++f->matched == f->pattern_len) {
    --f->matched;
    return record_result(f);
  }
  int64_t before = f->num_results;
  int r = tvmffi__ext_visit_fields(obj, 0, visit_field, f);
  if (r == 0 && f->allow_prefix && f->matched > 0 && f->depth > 0 && f->num_results == before)
    r = record_result(f);
  if (advanced) --f->matched;
  return r < 0 ? -1 : 0;
}

static int visit_value(finder* f, const TVMFFIAny* view) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  if (v.type_index < kTVMFFIStaticObjectBegin) return 0; /* None and plain values */
  int32_t t = v.type_index;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* seq = TVMFFISeqGetCellPtr(v.v_obj);
    for (int64_t i = 0; i < seq->size; ++i) {
      const TVMFFIAny* item = &((TVMFFIAny*)seq->data)[i];
      if (item->type_index == kTVMFFINone) continue;
      find_step s = {TVMFFI__ACCESS_ARRAY_ITEM, NULL, i, {0}};
      if (push_step(f, s) != 0) return -1;
      int r = visit_value(f, item);
      pop_step(f);
      if (r != 0) return r;
    }
    return 0;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    TVMFFIMapCell* m = TVMFFIMapGetCellPtr(v.v_obj);
    for (uint64_t p = TVMFFIMapCellIterBegin(m); p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(m, p)) {
      const TVMFFIAny* val = TVMFFIMapCellValue(m, p);
      const TVMFFIAny* key = TVMFFIMapCellKey(m, p);
      if (key->type_index == kTVMFFINone || val->type_index == kTVMFFINone) continue;
      find_step s = {TVMFFI__ACCESS_MAP_ITEM, NULL, 0, *key};
      if (push_step(f, s) != 0) return -1;
      int r = visit_value(f, val);
      pop_step(f);
      if (r != 0) return r;
    }
    return 0;
  }
  return visit_object(f, v.v_obj);
}

/* Cleans the recorded pattern into f->pattern (outermost first).  0/-1. */
static int load_pattern(finder* f, const visit_error_context* ctx) {
  TVMFFIObject* list = ctx->reverse_visit_pattern;
  if (list == NULL) return 0;
  if (list->type_index != kTVMFFIList && list->type_index != kTVMFFIArray)
    return tvmffi__raise("TypeError",
                         "ffi.VisitErrorContext.FindAccessPaths: reverse_visit_pattern must be "
                         "an ffi.List, got %s",
                         tvmffi__type_key(list->type_index));
  TVMFFISeqCell* seq = TVMFFISeqGetCellPtr(list);
  if (seq->size == 0) return 0;
  f->pattern = (TVMFFIObject**)malloc((size_t)seq->size * sizeof(*f->pattern));
  if (f->pattern == NULL)
    return tvmffi__raise("MemoryError", "ffi.VisitErrorContext.FindAccessPaths: out of memory");
  for (int64_t i = seq->size - 1; i >= 0; --i) {
    TVMFFIAny e = tvmffi__ext_peek(&((TVMFFIAny*)seq->data)[i]);
    if (e.type_index < kTVMFFIStaticObjectBegin) continue;
    if (f->pattern_len > 0 && f->pattern[f->pattern_len - 1] == e.v_obj) continue;
    f->pattern[f->pattern_len++] = e.v_obj;
  }
  return 0;
}

#define SIG_FIND                                                                         \
  "ffi.VisitErrorContext.FindAccessPaths(0: Object, 1: ffi.VisitErrorContext, 2: bool) " \
  "-> ffi.Array<ffi.reflection.AccessPath>"

static int g_find(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject* ctx;
  int allow_prefix;
  if (tvmffi__args_count(SIG_FIND, n, 3) != 0 ||
      tvmffi__arg_obj(SIG_FIND, args, 1, g_context_index, &ctx) != 0 ||
      tvmffi__arg_bool(SIG_FIND, args, 2, &allow_prefix) != 0)
    return -1;
  TVMFFIAny root = tvmffi__ext_peek(&args[0]);
  TVMFFIObject* root_obj = NULL;
  if (root.type_index != kTVMFFINone &&
      tvmffi__arg_obj(SIG_FIND, args, 0, kTVMFFIObject, &root_obj) != 0)
    return -1;

  finder* f = (finder*)calloc(1, sizeof(finder));
  if (f == NULL)
    return tvmffi__raise("MemoryError", "ffi.VisitErrorContext.FindAccessPaths: out of memory");
  f->allow_prefix = allow_prefix;
  int rc = load_pattern(f, (const visit_error_context*)ctx);
  if (rc == 0 && root_obj != NULL && f->pattern_len > 0) rc = visit_object(f, root_obj);
  f->depth = 0;
  cut_paths(f);
  TVMFFIObject* arr = rc == 0 ? tvmffi__array_new(f->num_results) : NULL;
  for (int64_t i = 0; i < f->num_results; ++i) {
    TVMFFIAny item;
    tvmffi__any_set_obj(&item, f->results[i]);
    if (arr != NULL)
      tvmffi__array_push_move(arr, &item);
    else
      tvmffi__decref(f->results[i]);
  }
  free(f->results);
  free(f->pattern);
  free(f);
  if (arr == NULL) return -1;
  tvmffi__any_set_obj(result, arr);
  return 0;
}

static void context_deleter(void* self, int flags) {
  visit_error_context* c = (visit_error_context*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    tvmffi__decref(c->reverse_visit_pattern);
    tvmffi__decref(c->prev_error_context);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* Records that error `err` left `node` (an object; others are not recorded), as the
 * C++ visitors do: appended to the error's context, one made if absent.  Error
 * paths only, so the pattern list is simply rebuilt one longer. */
int tvmffi__visit_error_note(TVMFFIObject* err, const TVMFFIAny* node) {
  if (node->type_index < kTVMFFIStaticObjectBegin) return 0;
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  visit_error_context* c = (visit_error_context*)cell->extra_context;
  if (c == NULL || c->header.type_index != g_context_index) {
    c = (visit_error_context*)tvmffi__object_alloc(sizeof(visit_error_context), g_context_index,
                                                   context_deleter);
    if (c == NULL) return -1;
    c->reverse_visit_pattern = NULL;
    c->prev_error_context = (TVMFFIObject*)cell->extra_context; /* the cell's reference moves */
    cell->extra_context = &c->header;
  }
  TVMFFISeqCell* old =
      c->reverse_visit_pattern ? TVMFFISeqGetCellPtr(c->reverse_visit_pattern) : NULL;
  int64_t n = old ? old->size : 0;
  TVMFFIObject* list = tvmffi__list_new(n + 1);
  if (list == NULL) return -1;
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny item;
    tvmffi__any_copy(&((TVMFFIAny*)old->data)[i], &item);
    tvmffi__array_push_move(list, &item);
  }
  TVMFFIAny item;
  tvmffi__any_copy(node, &item);
  tvmffi__array_push_move(list, &item);
  tvmffi__decref(c->reverse_visit_pattern);
  c->reverse_visit_pattern = list;
  return 0;
}

void tvmffi__visit_error_context_globals_init(void) {
  int32_t t = tvmffi__structural_new_type(
      "ffi.VisitErrorContext", -1, (int32_t)sizeof(visit_error_context),
      kTVMFFISEqHashKindUnsupported, "Objects a failed visit was on, innermost first.");
  g_context_index = t;
  tvmffi__structural_add_field(
      t, "reverse_visit_pattern", "Objects being visited when the error passed, innermost first.",
      offsetof(visit_error_context, reverse_visit_pattern), 8, tvmffi__getter_obj, kTVMFFIList);
  tvmffi__structural_add_field(
      t, "prev_error_context", "The error's extra context before this one was attached.",
      offsetof(visit_error_context, prev_error_context), 8, tvmffi__getter_obj, kTVMFFIObject);
  tvmffi__register_global(
      "ffi.VisitErrorContext.FindAccessPaths", g_find,
      "Access paths from root to where a VisitErrorContext's recorded objects sit.",
      SCHEMA_FN("ffi.Array", ARG("Object") ARG("ffi.VisitErrorContext") ARG("bool")));
}
