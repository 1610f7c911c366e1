/*
 * internal.h -- shared internals of libtvm_ffi.  Never installed.
 *
 * Naming: public entry points are TVMFFI<Noun><Verb>; internals are
 * tvmffi__<module>_<verb> and have hidden visibility (the library is built
 * with -fvisibility=hidden, only TVM_FFI_DLL symbols leave it).
 *
 * Error convention inside the runtime: a function that can fail returns int
 * (0 ok, -1 failed) after raising with tvmffi__raise(); helpers that return a
 * pointer return NULL after raising.
 */
#ifndef TVMFFI_SRC_INTERNAL_H_
#define TVMFFI_SRC_INTERNAL_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define TVMFFI__HIDDEN __attribute__((visibility("hidden")))
#define TVMFFI__LIKELY(x) __builtin_expect(!!(x), 1)
#define TVMFFI__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TVMFFI__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TVMFFI__NORETURN __attribute__((noreturn))
#define TVMFFI__COLD __attribute__((cold, noinline))

/* ---- init.c: one-time runtime set-up --------------------------------- */

/* Builds the static type table and registers the core global functions.
 * Runs from a library constructor; entry points that may be reached earlier
 * (type registry, system-lib symbols, global registry) call it first. */
void tvmffi__ensure_init(void);

/* Prints "tvm_ffi: <message>" to stderr and exits with status 255: the
 * "log-and-exit" behaviour of the reference runtime for fatal misuse. */
TVMFFI__NORETURN void tvmffi__fatal(const char* fmt, ...) TVMFFI__PRINTF(1, 2);

/* ---- object.c -------------------------------------------------------- */

/* Allocates a zeroed object of `size` bytes (header included) with counts
 * 1/1, the given type index and deleter.  Raises MemoryError and returns
 * NULL on failure. */
TVMFFIObject* tvmffi__object_alloc(size_t size, int32_t type_index,
                                   void (*deleter)(void* self, int flags));

#define TVMFFI__STRONG_ONE UINT64_C(1)
#define TVMFFI__WEAK_ONE (UINT64_C(1) << 32)

int tvmffi__raise_oom(void); /* error.c, declared with its kin below */

/* Fills the header of a fresh block (counts 1/1); raises MemoryError and
 * returns NULL when `obj` is NULL. */
static inline TVMFFIObject* tvmffi__object_init(TVMFFIObject* obj, int32_t type_index,
                                                void (*deleter)(void* self, int flags)) {
  if (TVMFFI__UNLIKELY(obj == NULL)) {
    tvmffi__raise_oom();
    return NULL;
  }
  obj->combined_ref_count = TVMFFI__STRONG_ONE | TVMFFI__WEAK_ONE;
  obj->type_index = type_index;
  obj->__padding = 0;
  obj->deleter = deleter;
  return obj;
}

/* As tvmffi__object_alloc (`size` >= sizeof(TVMFFIObject)), but only the
 * header is initialised: zeroing costs a few ns, which shows on the hot
 * constructors (functions, tensors) that write every other byte anyway. */
static inline TVMFFIObject* tvmffi__object_alloc_uninit(size_t size, int32_t type_index,
                                                        void (*deleter)(void* self, int flags)) {
  return tvmffi__object_init((TVMFFIObject*)malloc(size), type_index, deleter);
}

/* A per-thread cache of freed blocks of TVMFFI__BLOCK_SIZE bytes, for objects
 * made and dropped at a high rate (tensors): taking one from the cache and
 * putting it back is a few instructions where malloc and free are ~130.  At
 * most 16 blocks per thread; the rest go to free, and a thread's cache is
 * freed when the thread exits (the process's, when the library unloads).
 * tvmffi__block_alloc returns NULL, raising nothing, when malloc fails. */
#define TVMFFI__BLOCK_SIZE 128
void* tvmffi__block_alloc(void);
void tvmffi__block_free(void* block);

/* Deleter for objects that own nothing but their block (allocated by
 * tvmffi__object_alloc): frees on the weak bit. */
void tvmffi__object_deleter_plain(void* self, int flags);

static inline void tvmffi__incref(TVMFFIObject* obj) {
  __atomic_fetch_add(&obj->combined_ref_count, 1, __ATOMIC_RELAXED);
}
/* Strong decrement with the full protocol; NULL allowed. */
void tvmffi__decref(TVMFFIObject* obj);

/* ---- any.c ----------------------------------------------------------- */

/* Releases an owned Any and resets it to None. */
static inline void tvmffi__any_release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) tvmffi__decref(v->v_obj);
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}
/* Copies an owned Any into *dst (adds a reference for objects). */
static inline void tvmffi__any_copy(const TVMFFIAny* src, TVMFFIAny* dst) {
  *dst = *src;
  if (src->type_index >= kTVMFFIStaticObjectBegin) tvmffi__incref(src->v_obj);
}
static inline void tvmffi__any_set_none(TVMFFIAny* v) {
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}
static inline void tvmffi__any_set_int(TVMFFIAny* v, int64_t x) {
  v->type_index = kTVMFFIInt;
  v->zero_padding = 0;
  v->v_int64 = x;
}
static inline void tvmffi__any_set_bool(TVMFFIAny* v, int x) {
  v->type_index = kTVMFFIBool;
  v->zero_padding = 0;
  v->v_int64 = x ? 1 : 0;
}
/* Moves an object reference into *v (steals `obj`; NULL gives None). */
static inline void tvmffi__any_set_obj(TVMFFIAny* v, TVMFFIObject* obj) {
  if (obj == NULL) {
    tvmffi__any_set_none(v);
    return;
  }
  v->type_index = obj->type_index;
  v->zero_padding = 0;
  v->v_obj = obj;
}

/* ---- any_hash.c -------------------------------------------------------- */

/* AnyHash / AnyEqual of the ABI (Map keys). */
uint64_t tvmffi__any_hash(const TVMFFIAny* a);
int tvmffi__any_equal(const TVMFFIAny* a, const TVMFFIAny* b);

/* ---- string.c -------------------------------------------------------- */

/* New heap ffi.String (type_index 65) or ffi.Bytes (66) object holding a
 * NUL-terminated copy of data[0..n).  Raises and returns NULL on OOM. */
TVMFFIObject* tvmffi__bytes_obj_new(int32_t type_index, const char* data, size_t n);

/* Owned String/Bytes value in *out: small form when n <= 7.  0/-1. */
int tvmffi__str_to_any(int32_t type_index, const char* data, size_t n, TVMFFIAny* out);

/* If v (view or owned) holds a string (RawStr, SmallStr, Str) writes a
 * borrowed byte range into *out and returns 1; else returns 0 (no raise). */
int tvmffi__any_as_str(const TVMFFIAny* v, TVMFFIByteArray* out);
/* Same for bytes (ByteArrayPtr, SmallBytes, Bytes). */
int tvmffi__any_as_bytes(const TVMFFIAny* v, TVMFFIByteArray* out);

/* ---- error.c --------------------------------------------------------- */

/* Raises a new error of `kind` whose message is printf-formatted, with a
 * backtrace of the caller.  Always returns -1 so callers can write
 * `return tvmffi__raise("TypeError", "...")`. */
TVMFFI__COLD int tvmffi__raise(const char* kind, const char* fmt, ...) TVMFFI__PRINTF(2, 3);
int tvmffi__vraise(const char* kind, const char* fmt, va_list ap);

/* Raises MemoryError without allocating anything new (a preallocated
 * error object is used).  Returns -1. */
int tvmffi__raise_oom(void);

/* ---- type.c ---------------------------------------------------------- */

/* The key of a registered type index, or "<unregistered type N>" style
 * text for messages.  Never NULL; the pointer is stable. */
const char* tvmffi__type_key(int32_t type_index);
/* IsInstance rule of the ABI: is an object of type t an instance of T? */
int tvmffi__type_is_instance(int32_t t, int32_t T);
/* Human name of the type held by a value (for TypeError messages). */
const char* tvmffi__any_type_key(const TVMFFIAny* v);
/* The entry of a registered index, or NULL (no raise, no init). Lock-free. */
const TVMFFITypeInfo* tvmffi__type_info_lookup(int32_t type_index);
/* This thread's count of refused TVMFFITypeGetOrAllocIndex calls, and the last
 * one's error kind and message (library.c reports one a loaded library's static
 * initialisers met). */
uint64_t tvmffi__type_refusals(const char** kind, const char** msg);
/* TVMFFITypeGetOrAllocIndex for types defined from Python: never the query-only
 * mode, and a refusal is not recorded for tvmffi__type_refusals. */
int32_t tvmffi__type_alloc_or_raise(const char* key, size_t len, int32_t type_depth,
                                    int32_t num_child_slots, int32_t can_overflow,
                                    int32_t parent_type_index);
/* Highest registered type index so far (-1 before init). */
int32_t tvmffi__type_max_index(void);
/* libstdc++ std::_Hash_bytes with its default seed: upstream's type_key_hash. */
uint64_t tvmffi__hash_bytes(const void* data, size_t len);

/* ---- function.c ------------------------------------------------------ */

/* Registers a core global function implemented in C.  `schema` is the JSON
 * type schema (e.g. {"type":"ffi.Function","args":[...]}) or NULL, a static
 * string: it is converted to the metadata on the first metadata read.  Fatal
 * on failure (only called during init). */
void tvmffi__register_global(const char* name, TVMFFISafeCallType fn, const char* doc,
                             const char* schema);

/* The `self` a function made by TVMFFIFunctionCreate(self, fn, ...) was given,
 * or NULL when `func` is another function. */
void* tvmffi__function_self_of(TVMFFIObjectHandle func, TVMFFISafeCallType fn);

/* ---- native_hook.c ---------------------------------------------------- */

/* 1 for "__any_hash__", 2 for "__any_equal__", else 0. */
int tvmffi__native_hook_attr(const TVMFFIByteArray* name);
/* *out = an owned ffi.Function calling the native hook `fn` of type_index in
 * its release's convention (docs/abi.md §5.6); known_015: fn is known to use
 * apache 0.1.15's.  0, or -1 raised (ValueError for NULL fn). */
int tvmffi__native_hook_wrap(int32_t type_index, int is_equal, void* fn, int known_015,
                             TVMFFIAny* out);

/* Raises ValueError (func NULL) or TypeError naming func's type; returns -1. */
TVMFFI__COLD int tvmffi__function_call_misuse(TVMFFIObjectHandle func);

/* TVMFFIFunctionCall after checking that `func` is a non-NULL ffi.Function.
 * The exported entry is upstream's bare jump (no check: its one instruction
 * is the benchmarked nop call, docs in tvm_ffi_function(3)); the runtime's
 * own calls go through here because their handles come from data (type
 * attributes, fields, user registrations) that may hold anything.
 * The result slot is set to None first: the calling convention hands the
 * callee an empty slot, and functions built with upstream's C++ headers check
 * it (TVM's tensor __data_to_json__ failed on a slot left uninitialised). */
static inline int tvmffi__function_call(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                        TVMFFIAny* result) {
  if (TVMFFI__UNLIKELY(func == NULL || ((const TVMFFIObject*)func)->type_index != kTVMFFIFunction))
    return tvmffi__function_call_misuse(func);
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  return TVMFFIFunctionCall(func, args, num_args, result);
}

/* ---- args.c: argument checking for core globals ----------------------- */

/* Each raises TypeError naming the function, the argument index and the
 * expected/actual type keys, and returns -1 on mismatch; 0 on success.
 * `fname` is the name followed by the signature, as in the messages of typed
 * C++ functions: "ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any". */
int tvmffi__args_count(const char* fname, int32_t num_args, int32_t expected);
int tvmffi__arg_int(const char* fname, const TVMFFIAny* args, int32_t i, int64_t* out);
int tvmffi__arg_bool(const char* fname, const TVMFFIAny* args, int32_t i, int* out);
int tvmffi__arg_str(const char* fname, const TVMFFIAny* args, int32_t i, TVMFFIByteArray* out);
/* Borrowed object of type `type_index` or a subclass (None rejected). */
int tvmffi__arg_obj(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index,
                    TVMFFIObject** out);

/* ---- containers (array.c, list.c, map.c) ------------------------------ */

/* New empty ffi.Array with room for `capacity` elements (inline storage). */
TVMFFIObject* tvmffi__array_new(int64_t capacity);
/* Appends an owned value (moved in, *v reset to None); the array must have
 * been created with enough capacity.  Used to build results in C. */
void tvmffi__array_push_move(TVMFFIObject* array, TVMFFIAny* v);

/* ---- big_int.c --------------------------------------------------------- */

/* Int or ffi.BigInt (minimal form) from n words.  0/-1. */
int tvmffi__big_int_from_words(const int64_t* w, size_t n, TVMFFIAny* out);
/* -1/0/1 ordering of two Int/BigInt values. */
int tvmffi__big_int_compare(const TVMFFIAny* a, const TVMFFIAny* b);

/* ---- util.c: string building used across files ------------------------ */

/* Growable byte buffer for messages and backtraces (malloc-backed). */
typedef struct {
  char* data;
  size_t size;
  size_t capacity;
} tvmffi__buf;
int tvmffi__buf_append(tvmffi__buf* b, const char* data, size_t n); /* 0 or -1 (OOM) */
/* Appends a copy of the buffer's own bytes [start, start + n).  0 or -1 (OOM). */
int tvmffi__buf_repeat(tvmffi__buf* b, size_t start, size_t n);
/* printf into the buffer: 0, -1 (OOM) or -2 (a directive it does not know).
 * A string with a precision ("%.*s") is a byte range of exactly that length,
 * NULs included: each shows as \x00 (docs/abi.md §9.1). */
int tvmffi__buf_vprintf(tvmffi__buf* b, const char* fmt, va_list ap);
int tvmffi__buf_printf(tvmffi__buf* b, const char* fmt, ...) TVMFFI__PRINTF(2, 3);
void tvmffi__buf_free(tvmffi__buf* b);
/* Appends the decimal text of an Int/BigInt value.  0/-1 (OOM raised). */
int tvmffi__big_int_to_decimal(const TVMFFIAny* v, tvmffi__buf* out);
/* Int or BigInt of exactly [+-]digits in s[0..n): 0, 1 when that is not the text (nothing
 * raised), -1 (OOM raised). */
int tvmffi__big_int_from_decimal(const char* s, size_t n, TVMFFIAny* out);

/* ---- shape.c, tensor.c ------------------------------------------------- */

/* New ffi.Shape holding a copy of data[0..n).  Raises, NULL on failure. */
TVMFFIObject* tvmffi__shape_new(const int64_t* data, size_t n);

/* Largest ndim the runtime accepts from outside (DLPack imports, views,
 * allocation prototypes); real tensors stay far below it. */
#define TVMFFI__TENSOR_MAX_NDIM 64
/* Structural checks of a foreign DLTensor: ndim range, shape present and
 * non-negative, element count fits int64, known device type, device_id >= 0
 * and, when check_data, data non-NULL for a non-empty tensor.  ValueError
 * prefixed with fname. 0/-1. */
int tvmffi__dltensor_check(const char* fname, const DLTensor* t, int check_data);
/* Wraps what a DLPack allocator returned (TVMFFIEnvTensorAlloc): no
 * alignment/contiguity/flag checks.  On failure the caller keeps mt. */
int tvmffi__tensor_from_allocated(DLManagedTensorVersioned* mt, TVMFFIObjectHandle* out);

/* ---- init hooks: each module registers its global functions ------------ */
void tvmffi__types_init(void);          /* type.c: static type table */
/* enum.c: whether objects of this type are enum singletons (ffi.Enum or a subclass) */
int tvmffi__enum_is_instance_type(int32_t type_index);
/* enum.c: the string index (an owned String Any) of an enum member */
const TVMFFIAny* tvmffi__enum_str_index(const TVMFFIObject* obj);
/* enum.c: a member's canonical index for the JSON graph (an IntEnum's integer, else its
 * string) and the member of a type at such an index (ValueError when it has none) */
int tvmffi__enum_index_of(const TVMFFIObject* obj, TVMFFIAny* out);
int tvmffi__enum_member_at(int32_t type_index, const TVMFFIAny* index, TVMFFIAny* out);
void tvmffi__big_int_globals_init(void);  /* big_int.c: ffi.BigInt metadata and hooks */
void tvmffi__function_globals_init(void); /* function.c: ffi.Function*, ffi.String, ... */
void tvmffi__shape_globals_init(void);    /* shape.c: ffi.Shape */
void tvmffi__container_globals_init(void); /* array.c/list.c/map.c globals */
void tvmffi__module_globals_init(void);    /* module.c: loaders, ffi.Module* */
/* extra/registry.c: every extra's globals (repr, json, serialization, structural
 * eq/hash/visit/mutate, access paths, enums, dataclass support), from one table;
 * the core's only reference to c/src/extra. */
void tvmffi__extra_globals_init(void);
/* The extras' services the other extras use (the core calls none of them). */
void tvmffi__make_object_globals_init(
    void); /* extra/make_object.c: MakeObjectFromPackedArgs, _RegisterFFIInit */
/* extra/make_object.c: a new object of type t from its creator or `__ffi_new__` attribute (NULL
 * after raising TypeError "<who>: type `K` cannot be created by reflection ..." or the
 * creator's error), and the raw setter call of a reflected field (C setter or Function). */
TVMFFIObject* tvmffi__object_create(const char* who, int32_t t);
int tvmffi__field_store(const TVMFFIFieldInfo* f, TVMFFIObject* obj, const TVMFFIAny* v);
/* extra/make_object.c: a field left out -- its default (value, or factory result) when it has one,
 * else TypeError "<who>: missing required field `F` of `K`".  0/-1. */
int tvmffi__field_set_missing(const char* who, const TVMFFIFieldInfo* f, TVMFFIObject* obj);
void tvmffi__pyclass_globals_init(
    void); /* extra/pyclass.c: _PyClassLayout, MakeFieldGetter/Setter, _PyClassRegisterTypeAttrColumns */

#endif /* TVMFFI_SRC_INTERNAL_H_ */
