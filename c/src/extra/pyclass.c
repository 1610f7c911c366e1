/*
 * pyclass.c -- runtime support for object types defined from Python
 * (tvm_ffi.dataclasses.py_class; docs/abi.md §14.4, docs/python.md §4.9):
 *
 *   ffi._PyClassLayout(parent_type_index, kind...) -> Array[int]
 *       the layout of new fields under a parent: [total_size, offset_0,
 *       size_0, align_0, offset_1, ...]; the one place offsets are decided
 *   ffi.MakeFieldGetter(field_static_type_index) -> int
 *       address of the TVMFFIFieldGetter of a Python-defined field of a kind
 *   ffi.MakeFieldSetter(field_static_type_index, type_converter, f_convert,
 *                       plain_type = -1) -> Function
 *       setter Function (called with (OpaquePtr field_addr, value)); when
 *       f_convert is a Function the stored value is f_convert(value), so the
 *       binding's type rules apply to every writer, C and C++ ones included;
 *       a value already of a native kind's type, or of plain_type (an object
 *       type and its subtypes; for ffi.String/ffi.Bytes their small forms
 *       too), is one f_convert returns as it is, and skips that call
 *   ffi._PyClassAllocTypeIndex(type_key, parent_type_index) -> int
 *       allocates the index of a new type under a parent; a parent that takes
 *       no more children (a final type) is a TypeError, not the process exit
 *       of TVMFFITypeGetOrAllocIndex
 *   ffi._PyClassRegisterTypeAttrColumns(type_index, total_size) -> None
 *       registers `__ffi_new__`, `__ffi_shallow_copy__` and (unless present) a
 *       generated `__ffi_init__` for the type
 *
 * Layout: fields are laid out as a C++ compiler lays out the members of a
 * class derived from its parent (Itanium ABI), so that C++ code can read a
 * Python-made object through a struct (tvm_ffi.dataclasses.gen_abi_cpp).
 * A field's kind is its field_static_type_index: bool, int, float, void*,
 * DLDataType and DLDevice are stored natively, any object type (>= 64) as
 * one owned pointer (NULL reads None) and everything else (-1: strings,
 * Optional, Union, Any) as an owned 16-byte Any.  Objects come from calloc,
 * so an unset field is zero.  The deleter and __ffi_shallow_copy__ walk
 * every field of the type, ancestors' included -- a C/C++ parent's at their
 * C++ offsets (docs/python.md §4.10), ffi.Enum's for an enum class -- and
 * treat each by the storage kind its record implies (slot_kind_of), except
 * under a C++ parent that registers __ffi_construct_at__: its part is then a
 * real C++ object, constructed, copied and destroyed by its own code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "internal.h"

#define LAYOUT_SIG "ffi._PyClassLayout(0: int, *kinds: int) -> ffi.Array"
#define GETTER_SIG "ffi.MakeFieldGetter(0: int) -> int"
#define SETTER_SIG                                                                  \
  "ffi.MakeFieldSetter(0: int, 1: int, 2: Optional[ffi.Function], 3: int = -1) -> " \
  "ffi.Function"
#define COLUMNS_SIG "ffi._PyClassRegisterTypeAttrColumns(0: int, 1: int) -> None"
#define ALLOC_SIG "ffi._PyClassAllocTypeIndex(0: str, 1: int) -> int"
/* What a C++ parent registers so that its part of a Python-defined object is a
 * real C++ object (docs/cpp.md §5): its data size (sizeof less tail padding)
 * and a Function (void* addr, Optional[Object] src) -> void* that constructs
 * one at addr (default, or copied from src) and returns its in-place deleter. */
#define DATA_SIZE_ATTR "__ffi_data_size__"
#define CONSTRUCT_AT_ATTR "__ffi_construct_at__"

/* ---- kinds and layout -------------------------------------------------------- */

/* The storage of a kind (its size and alignment, those of the C++ member
 * type); 0 for a kind no field has. */
static int kind_storage(int64_t kind, int32_t* size, int32_t* align) {
  switch (kind) {
    case kTVMFFIAny:
      *size = 16, *align = 8;
      return 1;
    case kTVMFFIBool:
      *size = 1, *align = 1;
      return 1;
    case kTVMFFIInt:
    case kTVMFFIFloat:
    case kTVMFFIOpaquePtr:
      *size = 8, *align = 8;
      return 1;
    case kTVMFFIDataType:
      *size = 4, *align = 2;
      return 1;
    case kTVMFFIDevice:
      *size = 8, *align = 4;
      return 1;
    default:
      if (kind < kTVMFFIStaticObjectBegin || kind > INT32_MAX) return 0;
      *size = 8, *align = 8;
      return 1;
  }
}

static int has_attr(int32_t t, const char* name) { return tvmffi__ext_type_attr(t, name) != NULL; }

static int32_t registered_size(int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  if (info == NULL) return 0;
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  return md != NULL ? md->total_size : 0;
}

/* Where a derived class's members may start: the end of the last field of the
 * type or an ancestor (a C++ base's tail padding is reused), at least the
 * header, and at least the data size a C++ class reports for its unreflected
 * members (DATA_SIZE_ATTR, registered by refl::ObjectDef: docs/cpp.md §5). */
static int64_t data_end(const TVMFFITypeInfo* info) {
  int64_t end = (int64_t)sizeof(TVMFFIObject);
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    if (t == NULL) continue;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      int64_t e = t->fields[i].offset + t->fields[i].size;
      if (e > end) end = e;
    }
    const TVMFFIAny* dsize = tvmffi__ext_type_attr(t->type_index, DATA_SIZE_ATTR);
    if (dsize != NULL && dsize->type_index == kTVMFFIInt && dsize->v_int64 > end)
      end = dsize->v_int64;
  }
  return end;
}

static int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* The type of an object type index argument; ValueError when there is none. */
static const TVMFFITypeInfo* object_type_arg(const char* sig, const char* what, int64_t t) {
  const TVMFFITypeInfo* info = (t >= kTVMFFIStaticObjectBegin && t <= INT32_MAX)
                                   ? tvmffi__type_info_lookup((int32_t)t)
                                   : NULL;
  if (info == NULL)
    tvmffi__raise("ValueError", "%s: %s%lld is not a registered object type index", sig, what,
                  (long long)t);
  return info;
}

static int layout(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  int64_t parent;
  if (num_args < 1)
    return tvmffi__raise("TypeError", "%s: expects the parent type index first", LAYOUT_SIG);
  if (tvmffi__arg_int(LAYOUT_SIG, args, 0, &parent)) return -1;
  const TVMFFITypeInfo* pinfo = object_type_arg(LAYOUT_SIG, "parent ", parent);
  if (pinfo == NULL) return -1;
  TVMFFIObject* out = tvmffi__array_new(1 + 3 * (int64_t)(num_args - 1));
  if (out == NULL) return -1;
  int64_t cursor = data_end(pinfo), max_align = 8;
  TVMFFIAny v;
  tvmffi__any_set_int(&v, 0);
  tvmffi__array_push_move(out, &v); /* total_size, written at the end */
  for (int32_t i = 1; i < num_args; ++i) {
    int64_t kind;
    int32_t size, align;
    if (tvmffi__arg_int(LAYOUT_SIG, args, i, &kind)) goto fail;
    if (!kind_storage(kind, &size, &align)) {
      tvmffi__raise("ValueError",
                    "%s: argument #%d: %lld is not a field kind (-1 Any, 1 int, 2 bool, 3 "
                    "float, 4 void*, 5 DataType, 6 Device, or an object type index >= 64)",
                    LAYOUT_SIG, (int)i, (long long)kind);
      goto fail;
    }
    cursor = round_up(cursor, align);
    int64_t fact[3] = {cursor, size, align};
    for (int k = 0; k < 3; ++k) {
      tvmffi__any_set_int(&v, fact[k]);
      tvmffi__array_push_move(out, &v);
    }
    cursor += size;
    if (align > max_align) max_align = align;
  }
  int64_t parent_size = registered_size((int32_t)parent);
  if (parent_size > cursor) cursor = parent_size;
  if (cursor > INT32_MAX) {
    tvmffi__raise("ValueError", "%s: the object would exceed INT32_MAX bytes", LAYOUT_SIG);
    goto fail;
  }
  ((TVMFFIAny*)TVMFFISeqGetCellPtr(out)->data)[0].v_int64 = round_up(cursor, max_align);
  tvmffi__any_set_obj(result, out);
  return 0;
fail:
  tvmffi__decref(out);
  return -1;
}

/* ---- fields: one getter and one store per kind ----------------------------- */

static int get_any(void* addr, TVMFFIAny* result) {
  tvmffi__any_copy((const TVMFFIAny*)addr, result);
  return 0;
}

static int get_obj(void* addr, TVMFFIAny* result) {
  TVMFFIObject* o = *(TVMFFIObject**)addr;
  if (o != NULL) tvmffi__incref(o);
  tvmffi__any_set_obj(result, o); /* NULL reads None */
  return 0;
}

static void set_pod(TVMFFIAny* r, int32_t type_index) {
  r->type_index = type_index;
  r->zero_padding = 0;
  r->v_int64 = 0;
}

static int get_bool(void* addr, TVMFFIAny* result) {
  tvmffi__any_set_bool(result, *(const uint8_t*)addr != 0);
  return 0;
}

/* A native field's bytes into the value of a POD Any (the rest zero). */
#define POD_GETTER(NAME, TYPE_INDEX, MEMBER)               \
  static int NAME(void* addr, TVMFFIAny* result) {         \
    set_pod(result, TYPE_INDEX);                           \
    memcpy(&result->MEMBER, addr, sizeof(result->MEMBER)); \
    return 0;                                              \
  }
POD_GETTER(get_int, kTVMFFIInt, v_int64)
POD_GETTER(get_float, kTVMFFIFloat, v_float64)
POD_GETTER(get_ptr, kTVMFFIOpaquePtr, v_ptr)
POD_GETTER(get_dtype, kTVMFFIDataType, v_dtype)
POD_GETTER(get_device, kTVMFFIDevice, v_device)
#undef POD_GETTER

static TVMFFIFieldGetter kind_getter(int64_t kind) {
  switch (kind) {
    case kTVMFFIAny:
      return get_any;
    case kTVMFFIBool:
      return get_bool;
    case kTVMFFIInt:
      return get_int;
    case kTVMFFIFloat:
      return get_float;
    case kTVMFFIOpaquePtr:
      return get_ptr;
    case kTVMFFIDataType:
      return get_dtype;
    case kTVMFFIDevice:
      return get_device;
    default:
      return kind >= kTVMFFIStaticObjectBegin && kind <= INT32_MAX ? get_obj : NULL;
  }
}

static const char* kind_name(int32_t kind) {
  switch (kind) {
    case kTVMFFIBool:
      return "bool";
    case kTVMFFIInt:
      return "int";
    case kTVMFFIFloat:
      return "float";
    case kTVMFFIOpaquePtr:
      return "void*";
    case kTVMFFIDataType:
      return "DataType";
    case kTVMFFIDevice:
      return "Device";
    default:
      return "Object";
  }
}

/* Stores the owned value *v (consumed) into a field of the kind; TypeError for
 * a value the kind cannot hold. */
static int store(int32_t kind, void* addr, TVMFFIAny* v) {
  int32_t t = v->type_index;
  if (kind == kTVMFFIAny) {
    TVMFFIAny old = *(TVMFFIAny*)addr;
    *(TVMFFIAny*)addr = *v; /* store first: releasing the old value may run arbitrary deleters */
    tvmffi__any_release(&old);
    return 0;
  }
  if (kind >= kTVMFFIStaticObjectBegin) {
    TVMFFIObject* o = NULL;
    TVMFFIByteArray s;
    if (t >= kTVMFFIStaticObjectBegin) {
      o = v->v_obj; /* the reference moves in */
    } else if (t == kTVMFFISmallStr && tvmffi__any_as_str(v, &s)) {
      if ((o = tvmffi__bytes_obj_new(kTVMFFIStr, s.data, s.size)) == NULL) return -1;
    } else if (t == kTVMFFISmallBytes && tvmffi__any_as_bytes(v, &s)) {
      if ((o = tvmffi__bytes_obj_new(kTVMFFIBytes, s.data, s.size)) == NULL) return -1;
    } else if (t != kTVMFFINone) {
      goto refuse;
    }
    TVMFFIObject* old = *(TVMFFIObject**)addr;
    *(TVMFFIObject**)addr = o;
    if (old != NULL) tvmffi__decref(old);
    return 0;
  }
  int ok = t == kind || (t == kTVMFFIBool && (kind == kTVMFFIInt || kind == kTVMFFIFloat)) ||
           (t == kTVMFFIInt && (kind == kTVMFFIBool || kind == kTVMFFIFloat)) ||
           (t == kTVMFFINone && kind == kTVMFFIOpaquePtr);
  if (!ok) goto refuse;
  switch (kind) {
    case kTVMFFIBool:
      *(uint8_t*)addr = v->v_int64 != 0;
      break;
    case kTVMFFIInt:
      memcpy(addr, &v->v_int64, sizeof(int64_t));
      break;
    case kTVMFFIFloat: {
      double d = t == kTVMFFIFloat ? v->v_float64 : (double)v->v_int64;
      memcpy(addr, &d, sizeof(double));
      break;
    }
    case kTVMFFIOpaquePtr:
      memcpy(addr, &v->v_ptr, sizeof(void*));
      break;
    case kTVMFFIDataType:
      memcpy(addr, &v->v_dtype, sizeof(DLDataType));
      break;
    default:
      memcpy(addr, &v->v_device, sizeof(DLDevice));
      break;
  }
  return 0;
refuse:;
  int rc = tvmffi__raise("TypeError", "a py_class field of type `%s` cannot hold a `%s`",
                         kind_name(kind), tvmffi__any_type_key(v));
  tvmffi__any_release(v);
  return rc;
}

static int make_field_getter(void* self, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  (void)self;
  int64_t sti;
  if (tvmffi__args_count(GETTER_SIG, num_args, 1) || tvmffi__arg_int(GETTER_SIG, args, 0, &sti))
    return -1;
  TVMFFIFieldGetter g = kind_getter(sti);
  if (g == NULL)
    return tvmffi__raise("ValueError", "%s: %lld is not a field kind", GETTER_SIG, (long long)sti);
  tvmffi__any_set_int(result, (int64_t)(intptr_t)g);
  return 0;
}

typedef struct {
  TVMFFIObject* convert; /* owned ffi.Function, or NULL */
  int32_t kind;
  int32_t plain; /* values of this type (or a subtype) need no conversion, or -1 */
} setter_ctx;

static void setter_ctx_free(void* self) {
  setter_ctx* c = (setter_ctx*)self;
  tvmffi__decref(c->convert);
  free(c);
}

/* A value a field takes as it is, whatever its f_convert: the binding's conversion of an int,
 * float or bool annotation, or of a user-defined object type, returns such a value unchanged,
 * and skipping that call keeps assignments of the common case in C. */
static int needs_no_conversion(const setter_ctx* c, int32_t t) {
  int32_t kind = c->kind;
  if (c->plain >= 0) {
    if (t == c->plain || (c->plain == kTVMFFIStr && t == kTVMFFISmallStr) ||
        (c->plain == kTVMFFIBytes && t == kTVMFFISmallBytes))
      return 1;
    if (t < kTVMFFIStaticObjectBegin) return 0;
    const TVMFFITypeInfo* d = tvmffi__type_info_lookup(c->plain);
    const TVMFFITypeInfo* v = tvmffi__type_info_lookup(t);
    return d != NULL && v != NULL && v->type_depth > d->type_depth &&
           v->type_ancestors[d->type_depth]->type_index == c->plain;
  }
  return kind > kTVMFFINone && kind < kTVMFFIStaticObjectBegin &&
         (t == kind || (kind == kTVMFFIFloat && t == kTVMFFIInt) ||
          (kind == kTVMFFIInt && t == kTVMFFIBool));
}

#define SET_SIG "<py_class field setter>(0: void*, 1: Any) -> None"

static int setter_call(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  setter_ctx* c = (setter_ctx*)self;
  if (tvmffi__args_count(SET_SIG, num_args, 2)) return -1;
  if (args[0].type_index != kTVMFFIOpaquePtr || args[0].v_ptr == NULL)
    return tvmffi__raise("TypeError", "%s: argument #0 must be the field address (void*), got `%s`",
                         SET_SIG, tvmffi__any_type_key(&args[0]));
  TVMFFIAny v;
  tvmffi__any_set_none(&v);
  if (c->convert != NULL && !needs_no_conversion(c, args[1].type_index)) {
    TVMFFIAny arg = args[1]; /* the call takes a mutable array; the view stays borrowed */
    if (tvmffi__function_call(c->convert, &arg, 1, &v) != 0) return -1;
  } else if (TVMFFIAnyViewToOwnedAny(&args[1], &v) != 0) {
    return -1;
  }
  if (store(c->kind, args[0].v_ptr, &v) != 0) return -1;
  tvmffi__any_set_none(result);
  return 0;
}

static int make_field_setter(void* self, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  (void)self;
  int64_t kind, converter, plain = -1;
  if (tvmffi__args_count(SETTER_SIG, num_args, num_args == 4 ? 4 : 3) ||
      tvmffi__arg_int(SETTER_SIG, args, 0, &kind) ||
      tvmffi__arg_int(SETTER_SIG, args, 1, &converter) ||
      (num_args == 4 && tvmffi__arg_int(SETTER_SIG, args, 3, &plain)))
    return -1;
  if (plain != -1 && object_type_arg(SETTER_SIG, "plain_type ", plain) == NULL) return -1;
  if (kind_getter(kind) == NULL)
    return tvmffi__raise("ValueError", "%s: %lld is not a field kind", SETTER_SIG, (long long)kind);
  if (converter != 0)
    return tvmffi__raise("ValueError",
                         "ffi.MakeFieldSetter: type_converter must be 0 (reserved); pass a "
                         "conversion Function as f_convert instead, got %lld",
                         (long long)converter);
  TVMFFIObject* convert = NULL;
  if (args[2].type_index != kTVMFFINone &&
      tvmffi__arg_obj(SETTER_SIG, args, 2, kTVMFFIFunction, &convert) != 0)
    return -1;
  setter_ctx* c = (setter_ctx*)malloc(sizeof(setter_ctx));
  if (c == NULL) return tvmffi__raise_oom();
  c->convert = convert;
  c->kind = kind >= kTVMFFIStaticObjectBegin ? kTVMFFIObject : (int32_t)kind;
  c->plain = (int32_t)plain;
  if (convert != NULL) tvmffi__incref(convert);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(c, setter_call, setter_ctx_free, &f) != 0) {
    setter_ctx_free(c);
    return -1;
  }
  tvmffi__any_set_obj(result, (TVMFFIObject*)f);
  return 0;
}

/* ---- objects ------------------------------------------------------------------ */

/* How a field's bytes are owned, read from its record alone, so that a C/C++
 * parent's fields (at their C++ offsets) and the Python-defined ones are
 * treated alike.  (A C++ String member is sti kTVMFFIStr in 16 bytes: an
 * Any, not a pointer, hence the size.) */
typedef enum { SLOT_POD, SLOT_ANY, SLOT_OBJ, SLOT_UNKNOWN } slot_kind;

static slot_kind slot_kind_of(const TVMFFIFieldInfo* f) {
  int32_t t = f->field_static_type_index;
  if (t != kTVMFFIAny && t < kTVMFFIStaticObjectBegin) return SLOT_POD;
  if (f->size == (int64_t)sizeof(TVMFFIAny)) return SLOT_ANY; /* Any, String, Optional<int> */
  if (f->size == (int64_t)sizeof(TVMFFIObject*)) return SLOT_OBJ; /* ObjectRef, nullable */
  return SLOT_UNKNOWN;
}

/* A field starting where an earlier one did re-exposes its bytes (ffi.StrEnum's
 * `value` is `_str_index`): it is not owned twice.  Fields normally come in
 * ascending offsets, so the scan back only runs for out-of-order records. */
static int is_alias(const TVMFFITypeInfo* info, int32_t depth, int32_t index, int64_t end) {
  const TVMFFIFieldInfo* f =
      &(depth < info->type_depth ? info->type_ancestors[depth] : info)->fields[index];
  if (f->offset >= end) return 0;
  for (int32_t d = 0; d <= depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < (d == depth ? index : t->num_fields); ++i)
      if (t->fields[i].offset == f->offset) return 1;
  }
  return 0;
}

/* Releases (retain 0) or takes another reference to (retain 1) every value
 * held by a field of obj declared at type depth `from` or deeper, each once:
 * from 0, those of every ancestor (a C/C++ parent's at their C++ offsets,
 * ffi.Enum's for an enum class); past a C++ parent constructed in place, only
 * the fields its constructors and destructor do not handle. */
static void own_fields(TVMFFIObject* obj, int retain, int32_t from) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(obj->type_index);
  int64_t end = 0;
  for (int32_t d = from; info != NULL && d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    int32_t n = t != NULL ? __atomic_load_n(&t->num_fields, __ATOMIC_ACQUIRE) : 0;
    for (int32_t i = 0; i < n; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      if (is_alias(info, d, i, end)) continue;
      if (f->offset + f->size > end) end = f->offset + f->size;
      char* addr = (char*)obj + f->offset;
      slot_kind k = slot_kind_of(f);
      TVMFFIObject* held =
          k == SLOT_OBJ ? *(TVMFFIObject**)addr
          : k == SLOT_ANY && ((TVMFFIAny*)addr)->type_index >= kTVMFFIStaticObjectBegin
              ? ((TVMFFIAny*)addr)->v_obj
              : NULL;
      if (held == NULL) continue;
      if (retain) {
        tvmffi__incref(held);
      } else if (k == SLOT_OBJ) {
        *(TVMFFIObject**)addr = NULL;
        tvmffi__decref(held);
      } else {
        tvmffi__any_release((TVMFFIAny*)addr);
      }
    }
  }
}

static void pyobj_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    own_fields(o, 0, 0);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* The nearest ancestor of a Python-defined type that C/C++ code creates (its
 * metadata has a creator: Python-defined types have none), or NULL. */
static const TVMFFITypeInfo* created_ancestor(const TVMFFITypeInfo* info) {
  for (int32_t d = info->type_depth - 1; d > 0; --d) {
    const TVMFFITypeInfo* a = info->type_ancestors[d];
    const TVMFFITypeMetadata* md = __atomic_load_n(&a->metadata, __ATOMIC_ACQUIRE);
    if (md != NULL && md->creator != NULL) return a;
  }
  return NULL;
}

/* ---- a C++ parent constructed in place ----------------------------------------
 * The block carries a prefix before the object: the parent's in-place deleter
 * (its own deleter; with the strong bit alone it runs ~T() and keeps the
 * memory, docs/abi.md §4.4) and the depth after which fields are ours.  The
 * parent's members -- reflected or not -- are the C++ constructors' and
 * destructor's business; the fields of the Python-defined types below it are
 * this file's. */
typedef struct {
  void (*destroy)(void* self, int flags);
  int32_t from; /* the parent's depth + 1 */
  int32_t pad;
} cxx_prefix;
#define CXX_PREFIX ((size_t)16) /* keeps the object 16-byte aligned */

static cxx_prefix* prefix_of(void* obj) { return (cxx_prefix*)((char*)obj - CXX_PREFIX); }

static void cxx_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    own_fields(o, 0, prefix_of(o)->from); /* members of a derived class die first */
    prefix_of(o)->destroy(self, kTVMFFIObjectDeleterFlagBitMaskStrong);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(prefix_of(o));
}

/* A new object of type t whose parent part (`base`, which registers
 * CONSTRUCT_AT_ATTR) is constructed by C++ at its address: a default one, or a
 * copy of src's.  Bytes past the parent's data are zero. */
static TVMFFIObject* cxx_object_new(size_t size, int32_t t, const TVMFFITypeInfo* base,
                                    const TVMFFIAny* construct, TVMFFIObject* src) {
  char* block = (char*)calloc(1, CXX_PREFIX + size);
  if (block == NULL) return tvmffi__raise_oom(), NULL;
  TVMFFIObject* o = (TVMFFIObject*)(block + CXX_PREFIX);
  TVMFFIAny args[2], r;
  set_pod(&args[0], kTVMFFIOpaquePtr);
  args[0].v_ptr = o;
  tvmffi__any_set_none(&args[1]);
  if (src != NULL) tvmffi__any_set_obj(&args[1], src); /* borrowed */
  tvmffi__any_set_none(&r);
  if (tvmffi__function_call(construct->v_obj, args, 2, &r) != 0) {
    free(block); /* a constructor that threw left nothing to destroy */
    return NULL;
  }
  if (r.type_index != kTVMFFIOpaquePtr || r.v_ptr == NULL) {
    /* the part was built but cannot be destroyed: leaked rather than freed */
    tvmffi__raise("TypeError", "%s of `%s` returned `%s`, not its in-place deleter (void*)",
                  CONSTRUCT_AT_ATTR, tvmffi__type_key(base->type_index), tvmffi__any_type_key(&r));
    tvmffi__any_release(&r);
    return NULL;
  }
  prefix_of(o)->destroy = (void (*)(void*, int))(uintptr_t)r.v_ptr;
  prefix_of(o)->from = base->type_depth + 1;
  tvmffi__object_init(o, t, cxx_deleter); /* the C++ constructor left a blank header */
  size_t start = (size_t)data_end(base);
  if (size <= start) return o;
  if (src != NULL) {
    memcpy((char*)o + start, (const char*)src + start, size - start);
    own_fields(o, 1, prefix_of(o)->from);
  } else {
    memset((char*)o + start, 0, size - start);
  }
  return o;
}

/* The type index rides in the function's self pointer.  Under a C/C++ parent
 * that has a creator: when the parent registers CONSTRUCT_AT_ATTR, its part
 * is constructed in place (and destroyed by its destructor); otherwise the
 * block is zeroed and the parent's part is a byte copy of a default-made
 * parent (its member initialisers: a zeroed C++ String or non-nullable
 * reference is not a valid value), each reference it holds taken once more
 * before that parent object is dropped. */
static int new_object(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)args;
  int32_t t = (int32_t)(intptr_t)self;
  if (tvmffi__args_count("__ffi_new__() -> Object", num_args, 0)) return -1;
  size_t size = (size_t)registered_size(t);
  const TVMFFITypeInfo* base = created_ancestor(tvmffi__type_info_lookup(t));
  const TVMFFIAny* construct =
      base != NULL ? tvmffi__ext_type_attr(base->type_index, CONSTRUCT_AT_ATTR) : NULL;
  if (construct != NULL) {
    TVMFFIObject* o = cxx_object_new(size, t, base, construct, NULL);
    if (o == NULL) return -1;
    tvmffi__any_set_obj(result, o);
    return 0;
  }
  TVMFFIObject* o = tvmffi__object_alloc(size, t, pyobj_deleter);
  if (o == NULL) return -1;
  if (base != NULL) {
    TVMFFIObjectHandle proto = NULL;
    if (base->metadata->creator(&proto) != 0) {
      free(o);
      return -1;
    }
    size_t first = sizeof(TVMFFIObject), psize = (size_t)base->metadata->total_size;
    if (psize > first) memcpy((char*)o + first, (const char*)proto + first, psize - first);
    own_fields(o, 1, 0); /* (the fields after the parent's are still zero) */
    tvmffi__decref((TVMFFIObject*)proto);
  }
  tvmffi__any_set_obj(result, o);
  return 0;
}

/* A copy: the parent's part by its copy constructor when it was constructed in
 * place (a TypeError from a parent that has none), else bytewise; the fields
 * after it bytewise, each owned value gaining its second owner. */
static int shallow_copy(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int32_t t = (int32_t)(intptr_t)self;
  static const char sig[] = "__ffi_shallow_copy__(0: Object) -> Object";
  TVMFFIObject* src;
  if (tvmffi__args_count(sig, num_args, 1) || tvmffi__arg_obj(sig, args, 0, t, &src)) return -1;
  if (src->type_index != t)
    return tvmffi__raise("TypeError", "%s: expected `%s`, got `%s`", sig, tvmffi__type_key(t),
                         tvmffi__type_key(src->type_index));
  size_t size = (size_t)registered_size(t);
  TVMFFIObject* o;
  if (src->deleter == cxx_deleter) {
    const TVMFFITypeInfo* base = created_ancestor(tvmffi__type_info_lookup(t));
    const TVMFFIAny* construct = tvmffi__ext_type_attr(base->type_index, CONSTRUCT_AT_ATTR);
    if (construct == NULL)
      return tvmffi__raise("RuntimeError", "%s: `%s` no longer has %s", sig,
                           tvmffi__type_key(base->type_index), CONSTRUCT_AT_ATTR);
    if ((o = cxx_object_new(size, t, base, construct, src)) == NULL) return -1;
  } else {
    if ((o = tvmffi__object_alloc(size, t, pyobj_deleter)) == NULL) return -1;
    size_t first = sizeof(TVMFFIObject);
    if (size > first) memcpy((char*)o + first, (const char*)src + first, size - first);
    own_fields(o, 1, 0); /* the bytes are copied: each owned value gains its second owner */
  }
  tvmffi__any_set_obj(result, o);
  return 0;
}

static int register_fn_attr(int32_t t, const char* name, TVMFFISafeCallType fn) {
  if (has_attr(t, name)) return 0; /* a second registration would be an error */
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)t, fn, NULL, &f) != 0) return -1;
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
  TVMFFIByteArray n = {name, strlen(name)};
  int rc = TVMFFITypeRegisterAttr(t, &n, &v);
  tvmffi__any_release(&v);
  return rc;
}

static int call_register_ffi_init(int32_t t) {
  TVMFFIByteArray n = {"ffi._RegisterFFIInit", 20};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) return -1;
  if (f == NULL) return tvmffi__raise("RuntimeError", "ffi._RegisterFFIInit is not registered");
  TVMFFIAny arg, r;
  tvmffi__any_set_int(&arg, t);
  tvmffi__any_set_none(&r);
  int rc = tvmffi__function_call(f, &arg, 1, &r);
  tvmffi__decref((TVMFFIObject*)f);
  tvmffi__any_release(&r);
  return rc;
}

/* Every field, the ancestors' included, has a storage kind the deleter and
 * the copy know. */
static int check_kinds(const TVMFFITypeInfo* info) {
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      if (slot_kind_of(f) == SLOT_UNKNOWN)
        return tvmffi__raise("TypeError",
                             "%s: field `%.*s` of `%s` holds a reference in %lld bytes, neither "
                             "an Any (16) nor an object pointer (8); a Python-defined type "
                             "cannot own it",
                             COLUMNS_SIG, (int)f->name.size, f->name.data,
                             tvmffi__type_key(t->type_index), (long long)f->size);
    }
  }
  return 0;
}

static int register_columns(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  (void)self;
  int64_t t, size;
  if (tvmffi__args_count(COLUMNS_SIG, num_args, 2) || tvmffi__arg_int(COLUMNS_SIG, args, 0, &t) ||
      tvmffi__arg_int(COLUMNS_SIG, args, 1, &size))
    return -1;
  const TVMFFITypeInfo* info = object_type_arg(COLUMNS_SIG, "", t);
  if (info == NULL) return -1;
  if (size < data_end(info) || size > INT32_MAX || size % 8 != 0)
    return tvmffi__raise("ValueError",
                         "%s: total_size must be a multiple of 8 that holds every field (at "
                         "least %lld bytes), got %lld",
                         COLUMNS_SIG, (long long)data_end(info), (long long)size);
  if (check_kinds(info) != 0) return -1;
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  if (md == NULL) {
    TVMFFITypeMetadata m;
    memset(&m, 0, sizeof(m));
    m.total_size = (int32_t)size;
    m.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
    if (TVMFFITypeRegisterMetadata((int32_t)t, &m) != 0) return -1;
  } else if (md->total_size != size) {
    return tvmffi__raise("ValueError", "%s: `%s` is registered with total_size %d, not %lld",
                         COLUMNS_SIG, tvmffi__type_key((int32_t)t), md->total_size,
                         (long long)size);
  }
  if (register_fn_attr((int32_t)t, "__ffi_new__", new_object) != 0 ||
      register_fn_attr((int32_t)t, "__ffi_shallow_copy__", shallow_copy) != 0)
    return -1;
  if (!has_attr((int32_t)t, "__ffi_init__") && call_register_ffi_init((int32_t)t) != 0) return -1;
  tvmffi__any_set_none(result);
  return 0;
}

/* ---- type index --------------------------------------------------------------- */

static int alloc_type_index(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  (void)self;
  TVMFFIByteArray key;
  int64_t parent;
  if (tvmffi__args_count(ALLOC_SIG, num_args, 2) || tvmffi__arg_str(ALLOC_SIG, args, 0, &key) ||
      tvmffi__arg_int(ALLOC_SIG, args, 1, &parent))
    return -1;
  const TVMFFITypeInfo* pinfo = object_type_arg(ALLOC_SIG, "parent ", parent);
  if (pinfo == NULL) return -1;
  /* Children may overflow their parent's block: a Python class hierarchy has
   * no fixed size. */
  int32_t t =
      tvmffi__type_alloc_or_raise(key.data, key.size, pinfo->type_depth + 1, 0, 1, (int32_t)parent);
  if (t < 0) return -1;
  tvmffi__any_set_int(result, t);
  return 0;
}

void tvmffi__pyclass_globals_init(void) {
  tvmffi__register_global("ffi._PyClassLayout", layout,
                          "Layout of the new fields of a Python-defined type under a parent: "
                          "[total_size, offset, size, alignment of each field].",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Array\"},"
                          "{\"type\":\"int\"}]}");
  tvmffi__register_global(
      "ffi.MakeFieldGetter", make_field_getter,
      "Address of the getter of a field of a Python-defined type, by the "
      "field's static type index (its storage kind).",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"},{\"type\":\"int\"}]}");
  tvmffi__register_global("ffi.MakeFieldSetter", make_field_setter,
                          "Setter Function of a field of a Python-defined type; stores "
                          "f_convert(value) when f_convert is given (values of plain_type "
                          "as they are).",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Function\"},"
                          "{\"type\":\"int\"},{\"type\":\"int\"},{\"type\":\"Optional\","
                          "\"args\":[{\"type\":\"ffi.Function\"}]},{\"type\":\"int\"}]}");
  tvmffi__register_global("ffi._PyClassAllocTypeIndex", alloc_type_index,
                          "Allocates the type index of a Python-defined type under a parent; "
                          "raises when the parent takes no more children.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"},"
                          "{\"type\":\"str\"},{\"type\":\"int\"}]}");
  tvmffi__register_global("ffi._PyClassRegisterTypeAttrColumns", register_columns,
                          "Registers __ffi_new__, __ffi_shallow_copy__ and a generated "
                          "__ffi_init__ for a Python-defined type.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"None\"},"
                          "{\"type\":\"int\"},{\"type\":\"int\"}]}");
}
