/*
 * registry.c -- the one table of the runtime's extras (this directory mirrors
 * cpp/include/tvm/ffi/extra): repr, recursive compare/hash, deep copy, JSON,
 * serialization, access paths, visit-error contexts, structural
 * equal/hash/key, structural visit and mutate, enums, and the dataclass support
 * (generic object construction, py_class field accessors).
 *
 * The core knows the extras only through tvmffi__extra_globals_init(), which
 * init.c calls once the type table and the core globals exist; nothing in
 * c/src includes a header of this directory.  An extra that needs a core
 * service calls it through internal.h, never the other way round.  A new
 * extra adds its hook here.
 */
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
    tvmffi__structural_mutate_globals_init,
    tvmffi__make_object_globals_init,
    tvmffi__pyclass_globals_init,
};

void tvmffi__extra_globals_init(void) {
  for (size_t i = 0; i < sizeof extra_inits / sizeof extra_inits[0]; ++i) extra_inits[i]();
}
