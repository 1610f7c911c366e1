/*
 * registry.c -- the one table of the runtime's extras (this directory mirrors
 * cpp/include/tvm/ffi/extra): repr, recursive compare/hash, deep copy, JSON,
 * serialization, access paths, visit-error contexts, structural
 * equal/hash/key, structural visit and mutate, enums, the core types' conversions
 * (__ffi_convert__), and the dataclass support
 * (generic object construction, py_class field accessors).
 *
 * The core knows the extras only through tvmffi__extra_globals_init(), which
 * init.c calls once the type table and the core globals exist; nothing in
 * c/src includes a header of this directory.  An extra that needs a core
 * service calls it through internal.h, never the other way round.  A new
 * extra adds its hook here.
 */
#include <string.h>

#include "structural.h"

/* Run in this order: later entries look up types earlier ones registered
 * (ffi.reflection.AccessPath before the structural walkers that return it). */
static void (*const extra_inits[])(void) = {
    tvmffi__repr_globals_init,
    tvmffi__recursive_globals_init,
    tvmffi__deepcopy_globals_init,
    tvmffi__json_globals_init,
    tvmffi__serialization_globals_init,
    tvmffi__access_path_globals_init,
    tvmffi__visit_error_context_globals_init,
    tvmffi__structural_globals_init,
    tvmffi__structural_visit_globals_init,
    tvmffi__enum_globals_init,
    tvmffi__convert_globals_init, /* after the enum bases it registers for */
    tvmffi__structural_mutate_globals_init,
    tvmffi__make_object_globals_init,
    tvmffi__pyclass_globals_init,
};

/* Whether the C++ class behind each of the runtime's reflected types is final:
 * upstream's ObjectDef publishes it as the bool type attribute
 * __ffi_type_final__ (C++ code reads it through refl::type_attr::kTypeFinal,
 * the stub generator through the column), for exactly these types. */
static const struct {
  const char* key;
  _Bool final;
} type_finality[] = {
    {"ffi.Module", 1},
    {"ffi.BigInt", 1},
    {"ffi.VisitInterrupt", 1},
    {"ffi.reflection.AccessStep", 1},
    {"ffi.reflection.AccessPath", 1},
    {"ffi.VisitErrorContext", 1},
    {"ffi.StructuralKey", 1},
    {"ffi.EnumState", 1},
    {"ffi.Enum", 0},
    {"ffi.IntEnum", 0},
    {"ffi.StrEnum", 0},
    {"ffi.StructuralVisitor", 0},
    {"ffi.StructuralMutator", 0},
};

static void publish_type_finality(void) {
  TVMFFIByteArray attr = {"__ffi_type_final__", strlen("__ffi_type_final__")};
  for (size_t i = 0; i < sizeof type_finality / sizeof type_finality[0]; ++i) {
    TVMFFIByteArray key = {type_finality[i].key, strlen(type_finality[i].key)};
    int32_t tindex;
    TVMFFIAny v;
    v.type_index = kTVMFFIBool;
    v.zero_padding = 0;
    v.v_int64 = type_finality[i].final;
    if (TVMFFITypeKeyToIndex(&key, &tindex) != 0 || TVMFFITypeRegisterAttr(tindex, &attr, &v) != 0)
      tvmffi__fatal("cannot publish __ffi_type_final__ of %s", type_finality[i].key);
  }
}

void tvmffi__extra_globals_init(void) {
  for (size_t i = 0; i < sizeof extra_inits / sizeof extra_inits[0]; ++i) extra_inits[i]();
  publish_type_finality();
}
