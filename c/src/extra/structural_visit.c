/*
 * structural_visit.c -- ffi.VisitInterrupt (static index 77),
 * ffi.StructuralVisitor, ffi.StructuralWalk (docs/abi.md §14.4, since 0.1.13) and
 * ffi.StructuralVisit (since 0.1.16: the first matching callback gets
 * (value, visitor) and owns the descent; unmatched values have their children
 * visited; ffi.StructuralVisitorDefaultVisit visits a value's children).
 *
 * A walk visits the root, then the elements of Array/List, the values of
 * Map/Dict (keys are not visited) and the reflected fields of objects
 * (SEqHashIgnore fields skipped; def fields switch the def-region kind, as
 * structural equality does).  Strings, shapes, tensors and POD values are
 * leaves; None values are not visited.  For each value the first matching (type_index, callback) entry is
 * called -- plain entries with (value), def-region entries with (value,
 * kind); type_index -1 matches everything, an object type matches its
 * subclasses, 65/66 match small strings/bytes too.  In pre-order a callback
 * returning WalkResult.SKIP (1) prunes the value's children; any callback
 * returning a VisitInterrupt stops the walk, which then returns it.
 *
 * A type may customise its traversal with the type attribute "__s_visit__":
 * a Function called as (obj, visitor) that visits children through
 * ffi.StructuralVisitorVisit(visitor, child) and returns None or the
 * VisitInterrupt it got.  The visitor object is valid only during its walk.
 */
#include <string.h>

#include "structural.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIAny value; /* +24, owned */
} visit_interrupt;

typedef struct walk_state walk_state;
typedef struct {
  TVMFFIObject header;
  walk_state* state; /* +24; NULL once the walk is over */
} visitor_obj;

typedef struct {
  int32_t type_index;
  int with_kind;
  TVMFFIObject* fn; /* borrowed from the argument arrays */
} entry;

struct walk_state {
  entry* entries;
  int64_t num_entries;
  int post_order;
  int callback_owned; /* ffi.StructuralVisit: a matching callback owns the descent */
  int def_region;
  int depth;
  TVMFFIObject* visitor;
  TVMFFIAny interrupt; /* owned VisitInterrupt once interrupted */
};

static int32_t g_visitor_index = -1;

#define WALK_MAX_DEPTH 1000
#define WALK_SKIP 1

/* ---- objects ------------------------------------------------------------ */

static void interrupt_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    tvmffi__any_release(&((visit_interrupt*)self)->value);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int interrupt_new(const TVMFFIAny* value, TVMFFIAny* result) {
  visit_interrupt* v = (visit_interrupt*)tvmffi__object_alloc(
      sizeof(visit_interrupt), kTVMFFIVisitInterrupt, interrupt_deleter);
  if (v == NULL) return -1;
  tvmffi__any_set_none(&v->value);
  if (tvmffi__container_key_acquire(value, &v->value) != 0) {
    tvmffi__decref(&v->header);
    return -1;
  }
  tvmffi__any_set_obj(result, &v->header);
  return 0;
}

/* ---- the walk ------------------------------------------------------------ */

static int visit(walk_state* w, const TVMFFIAny* value);

static int entry_matches(const entry* e, const TVMFFIAny* v) {
  return tvmffi__structural_type_match(v->type_index, e->type_index);
}

/* Calls the first matching callback.  0 advance, WALK_SKIP, 2 interrupted
 * (w->interrupt set), -1 raised. */
static int call_callback(walk_state* w, const TVMFFIAny* v) {
  for (int64_t i = 0; i < w->num_entries; ++i) {
    const entry* e = &w->entries[i];
    if (!entry_matches(e, v)) continue;
    TVMFFIAny args[2], res;
    args[0] = *v;
    if (w->callback_owned)
      tvmffi__any_set_obj(&args[1], w->visitor); /* a view: no reference is added */
    else
      tvmffi__any_set_int(&args[1], w->def_region);
    tvmffi__any_set_none(&res);
    if (TVMFFIFunctionCall(e->fn, args, e->with_kind || w->callback_owned ? 2 : 1, &res) != 0)
      return -1;
    if (res.type_index == kTVMFFIVisitInterrupt) {
      w->interrupt = res;
      return 2;
    }
    int skip = (res.type_index == kTVMFFIInt || res.type_index == kTVMFFIBool) &&
               res.v_int64 == WALK_SKIP;
    tvmffi__any_release(&res);
    return skip ? WALK_SKIP : 0;
  }
  return 0;
}

/* Children visit result: 0 done, 2 interrupted, -1 raised. */
typedef struct {
  walk_state* w;
  int inner_region;
  int status;
} field_walk;

static int walk_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  field_walk* fw = (field_walk*)ctx;
  walk_state* w = fw->w;
  int saved = w->def_region;
  w->def_region = (f->flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive)
                      ? kTVMFFIDefRegionKindRecursive
                  : (f->flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive)
                      ? kTVMFFIDefRegionKindNonRecursive
                      : fw->inner_region;
  int r = visit(w, v);
  w->def_region = saved;
  fw->status = r;
  return r; /* non-zero stops the field loop */
}

static const TVMFFIAny* custom_visit_hook(int32_t type_index) {
  static const TVMFFIByteArray name = {"__s_visit__", 11};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  if (col == NULL || type_index < col->begin_index || type_index >= col->begin_index + col->size)
    return NULL;
  const TVMFFIAny* v = &col->data[type_index - col->begin_index];
  return v->type_index == kTVMFFIFunction ? v : NULL;
}

static int visit_children(walk_state* w, const TVMFFIAny* v) {
  if (v->type_index < kTVMFFIStaticObjectBegin) return 0;
  TVMFFIObject* obj = v->v_obj;
  int32_t t = obj->type_index;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* s = TVMFFISeqGetCellPtr(obj);
    for (int64_t i = 0; i < s->size; ++i) {
      int r = visit(w, &((TVMFFIAny*)s->data)[i]);
      if (r != 0) return r;
    }
    return 0;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    TVMFFIMapCell* m = TVMFFIMapGetCellPtr(obj);
    for (uint64_t p = TVMFFIMapCellIterBegin(m); p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(m, p)) {
      int r = visit(w, TVMFFIMapCellValue(m, p));
      if (r != 0) return r;
    }
    return 0;
  }
  if (t < kTVMFFIDynObjectBegin && t != kTVMFFIVisitInterrupt) return 0;
  const TVMFFIAny* hook = custom_visit_hook(t);
  if (hook != NULL) {
    TVMFFIAny args[2], res;
    args[0] = *v;
    tvmffi__any_set_obj(&args[1], w->visitor);
    tvmffi__any_set_none(&res);
    if (TVMFFIFunctionCall(hook->v_obj, args, 2, &res) != 0) return -1;
    if (res.type_index == kTVMFFIVisitInterrupt) {
      w->interrupt = res;
      return 2;
    }
    tvmffi__any_release(&res);
    return 0;
  }
  field_walk fw = {w,
                   w->def_region == kTVMFFIDefRegionKindNonRecursive ? kTVMFFIDefRegionKindNone
                                                                      : w->def_region,
                   0};
  int rc = tvmffi__ext_visit_fields(obj, kTVMFFIFieldFlagBitMaskSEqHashIgnore, walk_field, &fw);
  return rc < 0 ? -1 : fw.status;
}

static int visit(walk_state* w, const TVMFFIAny* view) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  if (v.type_index == kTVMFFINone) return 0; /* absent values are not visited */
  if (w->depth >= WALK_MAX_DEPTH)
    return tvmffi__raise("RuntimeError",
                         "ffi.StructuralWalk: maximum recursion depth %d exceeded (cyclic "
                         "structure?)",
                         WALK_MAX_DEPTH);
  w->depth++;
  int r = 0;
  if (w->callback_owned) {
    int matched = 0;
    for (int64_t i = 0; i < w->num_entries && !matched; ++i)
      matched = entry_matches(&w->entries[i], &v);
    r = matched ? call_callback(w, &v) : visit_children(w, &v);
    w->depth--;
    return r == WALK_SKIP ? 0 : r;
  }
  if (!w->post_order) r = call_callback(w, &v);
  if (r == 0) r = visit_children(w, &v);
  else if (r == WALK_SKIP) r = 0;
  if (r == 0 && w->post_order) {
    r = call_callback(w, &v);
    if (r == WALK_SKIP) r = 0;
  }
  w->depth--;
  return r;
}

/* ---- globals ------------------------------------------------------------------ */

#define SIG_WALK                                                                             \
  "ffi.StructuralWalk(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function>>, 2: "              \
  "ffi.Array<ffi.Tuple<int, ffi.Function>>, 3: int) -> Optional<ffi.VisitInterrupt>"

/* Appends the (type_index, Function) pairs of argument i to entries. */
static int parse_entries(const TVMFFIAny* args, int32_t i, int with_kind, entry* out,
                         int64_t* n) {
  TVMFFIAny a = tvmffi__ext_peek(&args[i]);
  if (a.type_index == kTVMFFINone) return 0;
  if (a.type_index != kTVMFFIArray && a.type_index != kTVMFFIList)
    return tvmffi__raise("TypeError",
                         "%s: argument #%d must be an Array of (type_index, Function) pairs, "
                         "got `%s`",
                         SIG_WALK, (int)i, tvmffi__any_type_key(&a));
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(a.v_obj);
  for (int64_t k = 0; k < s->size; ++k) {
    const TVMFFIAny* item = &((TVMFFIAny*)s->data)[k];
    TVMFFISeqCell* pair = NULL;
    if (item->type_index == kTVMFFIArray || item->type_index == kTVMFFIList)
      pair = TVMFFISeqGetCellPtr(item->v_obj);
    const TVMFFIAny* pv = pair ? (const TVMFFIAny*)pair->data : NULL;
    if (pair == NULL || pair->size != 2 || pv[0].type_index != kTVMFFIInt ||
        pv[1].type_index != kTVMFFIFunction)
      return tvmffi__raise("TypeError",
                           "%s: entry %lld of argument #%d must be a (type_index: int, "
                           "callback: Function) pair",
                           SIG_WALK, (long long)k, (int)i);
    out[*n].type_index = (int32_t)pv[0].v_int64;
    out[*n].with_kind = with_kind;
    out[*n].fn = pv[1].v_obj;
    ++*n;
  }
  return 0;
}

static int64_t entry_count(const TVMFFIAny* v) {
  TVMFFIAny a = tvmffi__ext_peek(v);
  if (a.type_index == kTVMFFIArray || a.type_index == kTVMFFIList)
    return TVMFFISeqGetCellPtr(a.v_obj)->size;
  return 0;
}

/* Runs a walk over args[0] with the entries of args[1] (and, for StructuralWalk, args[2]). */
static int run_walk(const TVMFFIAny* args, int callback_owned, int post_order,
                    TVMFFIAny* result) {
  walk_state w;
  memset(&w, 0, sizeof(w));
  tvmffi__any_set_none(&w.interrupt);
  w.post_order = post_order;
  w.callback_owned = callback_owned;
  int64_t total = entry_count(&args[1]) + (callback_owned ? 0 : entry_count(&args[2]));
  w.entries = (entry*)malloc((size_t)(total ? total : 1) * sizeof(entry));
  if (w.entries == NULL) return tvmffi__raise_oom();
  int rc = parse_entries(args, 1, 0, w.entries, &w.num_entries);
  if (rc == 0 && !callback_owned) rc = parse_entries(args, 2, 1, w.entries, &w.num_entries);
  visitor_obj* vis = NULL;
  if (rc == 0) {
    vis = (visitor_obj*)tvmffi__object_alloc(sizeof(visitor_obj), g_visitor_index,
                                             tvmffi__object_deleter_plain);
    if (vis == NULL) rc = -1;
  }
  if (rc == 0) {
    vis->state = &w;
    w.visitor = &vis->header;
    rc = visit(&w, &args[0]);
    vis->state = NULL; /* callbacks may have kept the visitor */
  }
  if (vis != NULL) tvmffi__decref(&vis->header);
  free(w.entries);
  if (rc < 0) {
    tvmffi__any_release(&w.interrupt);
    return -1;
  }
  *result = w.interrupt; /* None unless interrupted */
  return 0;
}

static int g_walk(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int64_t order;
  if (tvmffi__args_count(SIG_WALK, n, 4) != 0 || tvmffi__arg_int(SIG_WALK, args, 3, &order) != 0)
    return -1;
  if (order != 0 && order != 1)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralWalk: order must be 0 (pre-order) or 1 (post-order), got "
                         "%lld",
                         (long long)order);
  return run_walk(args, 0, (int)order, result);
}

#define SIG_SVISIT \
  "ffi.StructuralVisit(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function>>) -> " \
  "Optional<ffi.VisitInterrupt>"

static int g_visit(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count(SIG_SVISIT, n, 2) != 0) return -1;
  return run_walk(args, 1, 0, result);
}

static int g_interrupt(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count("ffi.VisitInterrupt(0: Any) -> ffi.VisitInterrupt", n, 1) != 0)
    return -1;
  return interrupt_new(&args[0], result);
}

static int visitor_arg(const char* sig, const TVMFFIAny* args, walk_state** out) {
  TVMFFIObject* v;
  if (tvmffi__arg_obj(sig, args, 0, g_visitor_index, &v) != 0) return -1;
  *out = ((visitor_obj*)v)->state;
  if (*out == NULL)
    return tvmffi__raise("RuntimeError",
                         "%s: the visitor is no longer active (its walk has finished)", sig);
  return 0;
}

#define SIG_VISIT "ffi.StructuralVisitorVisit(0: ffi.StructuralVisitor, 1: Any) -> " \
                  "Optional<ffi.VisitInterrupt>"
#define SIG_KIND "ffi.StructuralVisitorDefRegionKind(0: ffi.StructuralVisitor) -> int"
#define SIG_WITH "ffi.StructuralVisitorWithDefRegionKind(0: ffi.StructuralVisitor, 1: int, " \
                 "2: ffi.Function) -> Any"

/* Result of a visit made for a hook or callback: None, or the interrupt that stopped it
 * (handed to the caller, which returns it on).  r: 0, 2 (interrupted) or -1. */
static int hand_interrupt(walk_state* w, int r, TVMFFIAny* result) {
  if (r < 0) return -1;
  if (r == 2) {
    *result = w->interrupt;
    tvmffi__any_set_none(&w->interrupt);
  } else {
    tvmffi__any_set_none(result);
  }
  return 0;
}

static int g_visitor_visit(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  walk_state* w;
  if (tvmffi__args_count(SIG_VISIT, n, 2) != 0 || visitor_arg(SIG_VISIT, args, &w) != 0) return -1;
  return hand_interrupt(w, visit(w, &args[1]), result);
}

#define SIG_DEFAULT "ffi.StructuralVisitorDefaultVisit(0: ffi.StructuralVisitor, 1: Any) -> " \
                    "Optional<ffi.VisitInterrupt>"

/* The registered/default descent of a value: its children re-enter the walk. */
static int g_visitor_default(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  walk_state* w;
  if (tvmffi__args_count(SIG_DEFAULT, n, 2) != 0 || visitor_arg(SIG_DEFAULT, args, &w) != 0)
    return -1;
  TVMFFIAny v = tvmffi__ext_peek(&args[1]);
  return hand_interrupt(w, v.type_index == kTVMFFINone ? 0 : visit_children(w, &v), result);
}

static int g_visitor_kind(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  walk_state* w;
  if (tvmffi__args_count(SIG_KIND, n, 1) != 0 || visitor_arg(SIG_KIND, args, &w) != 0) return -1;
  tvmffi__any_set_int(result, w->def_region);
  return 0;
}

static int g_visitor_with(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  walk_state* w;
  int64_t kind;
  TVMFFIObject* fn;
  if (tvmffi__args_count(SIG_WITH, n, 3) != 0 || visitor_arg(SIG_WITH, args, &w) != 0 ||
      tvmffi__arg_int(SIG_WITH, args, 1, &kind) != 0 ||
      tvmffi__arg_obj(SIG_WITH, args, 2, kTVMFFIFunction, &fn) != 0)
    return -1;
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindNonRecursive)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralVisitorWithDefRegionKind: kind must be 0 (none), 1 "
                         "(recursive) or 2 (non-recursive), got %lld",
                         (long long)kind);
  int saved = w->def_region;
  w->def_region = (int)kind;
  int rc = TVMFFIFunctionCall(fn, NULL, 0, result);
  w->def_region = saved;
  return rc;
}

void tvmffi__structural_visit_globals_init(void) {
  int32_t vi = tvmffi__structural_new_type("ffi.VisitInterrupt", kTVMFFIVisitInterrupt,
                                           (int32_t)sizeof(visit_interrupt),
                                           kTVMFFISEqHashKindTreeNode,
                                           "Stops a structural visit, carrying a value.");
  tvmffi__structural_add_field(vi, "value", "Payload returned to the caller of the walk.",
                               offsetof(visit_interrupt, value), 16, tvmffi__getter_any,
                               kTVMFFIAny);
  tvmffi__structural_add_method(vi, "__ffi_init__", "Wraps a payload.", 1, g_interrupt);
  tvmffi__structural_add_attr_fn(vi, "__ffi_init__", g_interrupt);
  g_visitor_index = tvmffi__structural_new_type("ffi.StructuralVisitor", -1,
                                                (int32_t)sizeof(visitor_obj),
                                                kTVMFFISEqHashKindUniqueInstance,
                                                "State of a running structural walk.");

  tvmffi__register_global("ffi.VisitInterrupt", g_interrupt, "Makes a VisitInterrupt.",
                          SCHEMA_FN("ffi.VisitInterrupt", ARG("Any")));
  tvmffi__register_global("ffi.StructuralWalk", g_walk,
                          "Walks a value, calling typed callbacks (pre- or post-order).",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("Any") ARG("ffi.Array")
                              ARG("ffi.Array") ARG("int") "]}");
  tvmffi__register_global("ffi.StructuralVisit", g_visit,
                          "Visits a value with callbacks that own their descent.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("Any") ARG("ffi.Array") "]}");
  tvmffi__register_global("ffi.StructuralVisitorDefaultVisit", g_visitor_default,
                          "Visits a value's children (its default descent).",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("ffi.StructuralVisitor")
                              ARG("Any") "]}");
  tvmffi__register_global("ffi.StructuralVisitorVisit", g_visitor_visit,
                          "Visits a value with the walk's callbacks.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("ffi.StructuralVisitor")
                              ARG("Any") "]}");
  tvmffi__register_global("ffi.StructuralVisitorDefRegionKind", g_visitor_kind,
                          "Def-region kind in effect (0 none, 1 recursive, 2 non-recursive).",
                          SCHEMA_FN("int", ARG("ffi.StructuralVisitor")));
  tvmffi__register_global("ffi.StructuralVisitorWithDefRegionKind", g_visitor_with,
                          "Calls callback() with the def-region kind set.",
                          SCHEMA_FN("Any", ARG("ffi.StructuralVisitor") ARG("int")
                                               ARG("ffi.Function")));
}
