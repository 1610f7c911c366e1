/*
 * structural.h -- internals shared by the [ext] structural files:
 * access_path.c (ffi.reflection.AccessStep / AccessPath), structural.c
 * (StructuralEqual / Hash / GetFirstStructuralMismatch / StructuralKey) and
 * structural_visit.c (VisitInterrupt, StructuralVisitor, StructuralWalk) and
 * structural_mutate.c (StructuralMutator, StructuralMap, StructuralMutate).
 * Never installed.
 */
#ifndef TVMFFI_SRC_STRUCTURAL_H_
#define TVMFFI_SRC_STRUCTURAL_H_

#include "ext.h"

/* AccessKind of the reference (AccessStep.kind). */
enum {
  TVMFFI__ACCESS_ATTR = 0,
  TVMFFI__ACCESS_ARRAY_ITEM = 1,
  TVMFFI__ACCESS_MAP_ITEM = 2,
  TVMFFI__ACCESS_ATTR_MISSING = 3,
  TVMFFI__ACCESS_ARRAY_ITEM_MISSING = 4,
  TVMFFI__ACCESS_MAP_ITEM_MISSING = 5
};

/* Object layouts (the reference's member order, so C++ code reading the
 * reflected fields and ours agree). */
typedef struct {
  TVMFFIObject header;
  int32_t kind; /* +24 */
  int32_t pad_;
  TVMFFIAny key; /* +32, owned */
} tvmffi__access_step;

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* parent; /* +24, owned AccessPath or NULL at the root */
  TVMFFIObject* step;   /* +32, owned AccessStep or NULL at the root */
  int32_t depth;        /* +40 */
} tvmffi__access_path;

/* Type indices (valid after tvmffi__structural_globals_init). */
extern int32_t tvmffi__access_step_index;
extern int32_t tvmffi__access_path_index;

/* New root path (depth 0).  NULL after raising. */
TVMFFIObject* tvmffi__access_path_root(void);
/* New path parent + (kind, key); `key` is copied (owned form).  NULL after
 * raising.  `parent` is borrowed. */
TVMFFIObject* tvmffi__access_path_extend(TVMFFIObject* parent, int32_t kind, const TVMFFIAny* key);

/* Registration hooks (listed in registry.c's table). */
void tvmffi__access_path_globals_init(void);
void tvmffi__structural_globals_init(void); /* structural.c: StructuralEqual/Hash/Key */
void tvmffi__structural_visit_globals_init(void);
void tvmffi__structural_mutate_globals_init(void);
void tvmffi__enum_globals_init(void); /* enum.c: ffi.EnumState, ffi.Enum family */
void tvmffi__convert_globals_init(void); /* convert.c: __ffi_convert__ of the core types */
/* visit_error_context.c: ffi.VisitErrorContext and its FindAccessPaths global */
void tvmffi__visit_error_context_globals_init(void);

/* Does a value of type index t match a callback registered for `want`?  -1 (Any)
 * matches everything, ffi.Object every object, an object type its subclasses, and
 * str/bytes their small and view forms. */
static inline int tvmffi__structural_type_match(int32_t t, int32_t want) {
  if (want == kTVMFFIAny || want == t) return 1;
  if (want == kTVMFFIStr) return t == kTVMFFISmallStr || t == kTVMFFIRawStr;
  if (want == kTVMFFIBytes) return t == kTVMFFISmallBytes || t == kTVMFFIByteArrayPtr;
  return t >= kTVMFFIStaticObjectBegin && want >= kTVMFFIStaticObjectBegin &&
         tvmffi__type_is_instance(t, want);
}

/* Raw results of the visitor and mutator entry points (structural_visit.c,
 * structural_mutate.c, and the header-only C++ engines sharing their layouts):
 * a TVMFFIAny carrying a value, None, the kTVMFFIUnchanged marker, a
 * VisitInterrupt, or an owned ffi.Error. */
/* Moves the raised error into a raw result. */
TVMFFIAny tvmffi__raw_raised(void);
/* Hands a raw error result back to the error slot; returns -1. */
int tvmffi__raw_reraise(TVMFFIAny* r);

/* Records that the error object `err` left `node` in its ffi.VisitErrorContext
 * (visit_error_context.c); non-objects are not recorded.  0, or -1 raised. */
int tvmffi__visit_error_note(TVMFFIObject* err, const TVMFFIAny* node);

/* The def-region kind a reflected field's value is walked in: a def field opens its
 * region, any other field takes `inner` (tvmffi__fields_def_region); inside a recursive
 * (pattern) region every field stays in it, as upstream's WithDefRegionKind. */
static inline int32_t tvmffi__field_def_region(int64_t flags, int32_t inner) {
  if (inner == kTVMFFIDefRegionKindRecursive) return inner;
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) return kTVMFFIDefRegionKindRecursive;
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive)
    return kTVMFFIDefRegionKindNonRecursive;
  return inner;
}

/* The region a hook's callback walks a child in: the region it names (0: `inner`),
 * except inside a recursive (pattern) region, which stays. */
static inline int32_t tvmffi__hook_def_region(int64_t region, int32_t inner) {
  if (inner == kTVMFFIDefRegionKindRecursive || region == 0) return inner;
  return (int32_t)region;
}

/* The region the fields of an object of type `type_index` inherit from the walk's
 * region `outer`: the same, except that a non-recursive (simple) definition of a FreeVar
 * covers the variable itself and its fields are uses (upstream's clamp). */
static inline int32_t tvmffi__fields_def_region(int32_t outer, int32_t type_index) {
  if (outer != kTVMFFIDefRegionKindNonRecursive) return outer;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return info != NULL && info->metadata != NULL &&
                 info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindFreeVar
             ? kTVMFFIDefRegionKindNone
             : outer;
}

/* Small helpers for registering C-implemented reflected types. */
typedef int (*tvmffi__field_getter)(void* field_addr, TVMFFIAny* result);
/* Read-only field `name` at `offset` (size/alignment 8 unless an int32). */
void tvmffi__structural_add_field(int32_t type_index, const char* name, const char* doc,
                                  int64_t offset, int64_t size, tvmffi__field_getter getter,
                                  int32_t static_type_index);
/* Method (static when is_static) implemented by a C safe-call. */
void tvmffi__structural_add_method(int32_t type_index, const char* name, const char* doc,
                                   int is_static, TVMFFISafeCallType fn);
/* Creates the type-attribute column `name` (empty) if it does not exist: code built
 * with upstream's headers looks the hook columns up and fails on a missing one. */
void tvmffi__structural_ensure_column(const char* name);
/* Type attribute `name` holding a raw entry point (an opaque pointer, called directly). */
void tvmffi__structural_add_raw_hook(int32_t type_index, const char* name, void* fn);
/* Type attribute `name` holding a new function implemented by `fn`. */
void tvmffi__structural_add_attr_fn(int32_t type_index, const char* name, TVMFFISafeCallType fn);
/* Allocates a dynamic index (depth 1, parent ffi.Object) or claims `static_index`,
 * and registers metadata (no creator). */
int32_t tvmffi__structural_new_type(const char* key, int32_t static_index, int32_t total_size,
                                    TVMFFISEqHashKind kind, const char* doc);

/* Common getters. */
int tvmffi__getter_any(void* addr, TVMFFIAny* out);
int tvmffi__getter_obj(void* addr, TVMFFIAny* out);   /* TVMFFIObject*, NULL -> None */
int tvmffi__getter_i32(void* addr, TVMFFIAny* out);
int tvmffi__getter_i64(void* addr, TVMFFIAny* out);

#endif /* TVMFFI_SRC_STRUCTURAL_H_ */
