/*
 * tvm/ffi/c_api.h -- the TVM FFI stable C ABI (0.1.x).
 *
 * One self-contained header, valid C11 and C++17.  Every struct layout, enum
 * value and symbol name here is fixed by the ABI: a kernel library built
 * against any 0.1.x header runs on this runtime and vice versa.
 *
 * Conventions used in every doc block:
 *   "Returns a new reference."      the caller owns one strong count.
 *   "Returns a borrowed reference." no count transferred.
 *   "Borrows `x`."                  the callee takes its own reference if it keeps x.
 *   "Returns 0/-1."                 0 on success; -1 with an error waiting in the
 *                                   calling thread's raised-error slot
 *                                   (see TVMFFIErrorMoveFromRaised).
 * A failed call leaves its `out` parameters untouched unless stated otherwise.
 */
#ifndef TVM_FFI_C_API_H_
#define TVM_FFI_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

/* ===================================================================== */
/* Section: version and visibility macros                                */
/* ===================================================================== */

#define TVM_FFI_VERSION_MAJOR 0
#define TVM_FFI_VERSION_MINOR 1
#define TVM_FFI_VERSION_PATCH 16

#ifdef __cplusplus
#define TVM_FFI_EXTERN_C extern "C"
#else
#define TVM_FFI_EXTERN_C
#endif

#if defined(_WIN32)
#define TVM_FFI_DLL_EXPORT __declspec(dllexport)
#ifdef TVM_FFI_EXPORTS
#define TVM_FFI_DLL __declspec(dllexport)
#else
#define TVM_FFI_DLL __declspec(dllimport)
#endif
#else
/* Marks a symbol of a user library (e.g. __tvm_ffi_<name>) for export. */
#define TVM_FFI_DLL_EXPORT __attribute__((visibility("default")))
/* Marks an entry point of the runtime itself. */
#define TVM_FFI_DLL __attribute__((visibility("default")))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TVM_FFI_C_API_PURE __attribute__((pure))
#else
#define TVM_FFI_C_API_PURE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the runtime (see TVMFFIGetVersion). 12 bytes. */
typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} TVMFFIVersion;

/* ===================================================================== */
/* Section: type indices                                                 */
/* ===================================================================== */

/*
 * Values below 64 are stored inline in a TVMFFIAny; values >= 64 are heap
 * objects that start with a TVMFFIObject header.  Indices >= 128 are handed
 * out at run time in registration order (compare type keys across processes).
 */
#ifdef __cplusplus
enum TVMFFITypeIndex : int32_t {
#else
typedef enum {
#endif
  kTVMFFIAny = -1,              /* static field type only, never a value */
  kTVMFFINone = 0,              /* payload zero; also a null object reference */
  kTVMFFIInt = 1,               /* v_int64 */
  kTVMFFIBool = 2,              /* v_int64 in {0, 1} */
  kTVMFFIFloat = 3,             /* v_float64 */
  kTVMFFIOpaquePtr = 4,         /* v_ptr, not owned */
  kTVMFFIDataType = 5,          /* v_dtype, remaining payload bytes zero */
  kTVMFFIDevice = 6,            /* v_device */
  kTVMFFIDLTensorPtr = 7,       /* v_ptr -> DLTensor; views only */
  kTVMFFIRawStr = 8,            /* v_c_str; views only */
  kTVMFFIByteArrayPtr = 9,      /* v_ptr -> TVMFFIByteArray; views only */
  kTVMFFIObjectRValueRef = 10,  /* v_ptr -> slot holding a TVMFFIObject*; views only */
  kTVMFFISmallStr = 11,         /* <= 7 bytes in v_bytes, length in small_str_len */
  kTVMFFISmallBytes = 12,       /* <= 7 bytes in v_bytes, length in small_str_len */
  kTVMFFIUnchanged = 13,        /* structural-mutate result: keep the input (since 0.1.16) */
  kTVMFFIStaticObjectBegin = 64,
  kTVMFFIObject = 64,
  kTVMFFIStr = 65,
  kTVMFFIBytes = 66,
  kTVMFFIError = 67,
  kTVMFFIFunction = 68,
  kTVMFFIShape = 69,
  kTVMFFITensor = 70,
  kTVMFFIArray = 71,
  kTVMFFIMap = 72,
  kTVMFFIModule = 73,
  kTVMFFIOpaquePyObject = 74,
  kTVMFFIList = 75,
  kTVMFFIDict = 76,
  kTVMFFIVisitInterrupt = 77,
  kTVMFFIBigInt = 78, /* { header, size_t num_words, int64_t words[] } (since 0.1.16) */
  kTVMFFIStaticObjectEnd,
  kTVMFFIDynObjectBegin = 128
#ifdef __cplusplus
};
#else
} TVMFFITypeIndex;
#endif

/* ===================================================================== */
/* Section: objects                                                      */
/* ===================================================================== */

/* A handle is always the address of the 24-byte TVMFFIObject header. */
typedef void* TVMFFIObjectHandle;

/* Flags passed to an object's deleter; test the bits independently. */
#ifdef __cplusplus
enum TVMFFIObjectDeleterFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIObjectDeleterFlagBitMaskStrong = 1 << 0, /* destroy contents, keep memory */
  kTVMFFIObjectDeleterFlagBitMaskWeak = 1 << 1,   /* free memory only */
  kTVMFFIObjectDeleterFlagBitMaskBoth = (1 << 0) | (1 << 1)
#ifdef __cplusplus
};
#else
} TVMFFIObjectDeleterFlagBitMask;
#endif

/*
 * The header every heap object starts with.  24 bytes, alignment 8.
 *
 * Rationale: strong (low 32 bits) and weak (high 32 bits) counts share one
 * 64-bit word so the common "last strong and no weak" release is a single
 * atomic op.  A new object holds 0x0000000100000001: one strong reference and
 * one weak unit owned collectively by the strong references.  C++ header code
 * manipulates this word inline, so the protocol is part of the ABI.
 */
typedef struct TVMFFIObject {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t __padding; /* must be 0 */
  union {
    void (*deleter)(void* self, int flags); /* may be NULL: never freed */
    int64_t __ensure_align;
  };
} TVMFFIObject;

/* ===================================================================== */
/* Section: values                                                       */
/* ===================================================================== */

/*
 * The 16-byte tagged value.  Producers write the canonical form: padding and
 * unused payload bytes are zero (Map keys hash and compare the raw bits).
 * An owned Any holds one strong reference when type_index >= 64; a view holds
 * none.  Kinds 7..10 appear only in views.
 */
typedef struct TVMFFIAny {
  int32_t type_index;
  union {
    uint32_t zero_padding;
    uint32_t small_str_len;
  };
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    TVMFFIObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
    uint64_t v_uint64;
  };
} TVMFFIAny;

/* A borrowed byte range; not necessarily NUL-terminated on input. */
typedef struct {
  const char* data;
  size_t size;
} TVMFFIByteArray;

/* Cell of ffi.Shape, at handle + 24. */
typedef struct {
  const int64_t* data;
  size_t size;
} TVMFFIShapeCell;

/* Cell of ffi.Array and ffi.List, at handle + 24. Elements are owned Anys. */
typedef struct {
  void* data;                      /* TVMFFIAny[capacity] */
  int64_t size;
  int64_t capacity;
  void (*data_deleter)(void* data); /* NULL when data lives inside the object */
} TVMFFISeqCell;

/* How TVMFFIErrorCell.update_backtrace changes the backtrace. */
#ifdef __cplusplus
enum TVMFFIBacktraceUpdateMode : int32_t {
#else
typedef enum {
#endif
  kTVMFFIBacktraceUpdateModeReplace = 0,
  kTVMFFIBacktraceUpdateModeAppend = 1
#ifdef __cplusplus
};
#else
} TVMFFIBacktraceUpdateMode;
#endif

/*
 * Cell of ffi.Error, at handle + 24.  All strings are NUL-terminated.
 * Errors made by 0.1.0-0.1.7 binaries end after update_backtrace (56 bytes).
 */
typedef struct {
  TVMFFIByteArray kind;      /* e.g. "ValueError" */
  TVMFFIByteArray message;
  TVMFFIByteArray backtrace; /* "  File \"f\", line N, in fn\n" lines, innermost first */
  void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                           int32_t update_mode);
  TVMFFIObjectHandle cause_chain;   /* owned ffi.Error or NULL (since 0.1.8) */
  TVMFFIObjectHandle extra_context; /* owned object or NULL (since 0.1.8) */
} TVMFFIErrorCell;

/*
 * The calling convention of every FFI function.  `args` are views; `result`
 * is initialised by the caller to a kind < 64 and receives an owned value.
 * Returns 0 on success, -1 (or legacy -2) with an error raised on failure.
 */
typedef int (*TVMFFISafeCallType)(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result);

/* Cell of ffi.Function, at handle + 24. */
typedef struct {
  TVMFFISafeCallType safe_call;
  void* cpp_call; /* C++ fast path of header-built functions; NULL from this runtime */
} TVMFFIFunctionCell;

/* Cell of ffi.OpaquePyObject, at handle + 24. */
typedef struct {
  void* handle;
} TVMFFIOpaqueObjectCell;

/* ===================================================================== */
/* Section: object allocation hook                                       */
/* ===================================================================== */

/* Placed immediately before an object body obtained from a custom allocator. */
typedef struct {
  void (*delete_space)(void* body); /* may be NULL */
} TVMFFIObjectAllocHeader;

/*
 * Allocator for object bodies.  Install once, single-threaded, at start-up;
 * the struct must outlive the process.  Currently advisory (see man page).
 */
typedef struct {
  void* (*allocate)(size_t size, size_t alignment, int32_t type_index, void* context);
  void* context;
} TVMFFICustomAllocator;

/* ===================================================================== */
/* Section: reflection descriptors                                       */
/* ===================================================================== */

#ifdef __cplusplus
enum TVMFFIFieldFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
  kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
  kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
  kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3,
  kTVMFFIFieldFlagBitMaskSEqHashDefRecursive = 1 << 4,
  kTVMFFIFieldFlagBitMaskSEqHashDef = 1 << 4, /* 0.1.0 name of the same bit */
  kTVMFFIFieldFlagBitMaskSEqHashDefPattern = 1 << 4, /* 0.1.16 name of the same bit */
  kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
  kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
  kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
  kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
  kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
  kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
  kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
  kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive = 1 << 12,
  kTVMFFIFieldFlagBitMaskSEqHashDefSimple = 1 << 12 /* 0.1.16 name of the same bit */
#ifdef __cplusplus
};
#else
} TVMFFIFieldFlagBitMask;
#endif

#ifdef __cplusplus
enum TVMFFISEqHashKind : int32_t {
#else
typedef enum {
#endif
  kTVMFFISEqHashKindUnsupported = 0,
  kTVMFFISEqHashKindTreeNode = 1,
  kTVMFFISEqHashKindFreeVar = 2,
  kTVMFFISEqHashKindDAGNode = 3,
  kTVMFFISEqHashKindConstTreeNode = 4,
  kTVMFFISEqHashKindUniqueInstance = 5
#ifdef __cplusplus
};
#else
} TVMFFISEqHashKind;
#endif

#ifdef __cplusplus
enum TVMFFIDefRegionKind : int32_t {
#else
typedef enum {
#endif
  kTVMFFIDefRegionKindNone = 0,
  kTVMFFIDefRegionKindRecursive = 1,
  kTVMFFIDefRegionKindNonRecursive = 2,
  kTVMFFIDefRegionKindPattern = 1, /* 0.1.16 names of the same kinds */
  kTVMFFIDefRegionKindSimple = 2
#ifdef __cplusplus
};
#else
} TVMFFIDefRegionKind;
#endif

/* Reads the field at field_addr into an owned Any. Returns 0/-1. */
typedef int (*TVMFFIFieldGetter)(void* field_addr, TVMFFIAny* result);
/* Writes value (a view) into the field at field_addr. Returns 0/-1. */
typedef int (*TVMFFIFieldSetter)(void* field_addr, const TVMFFIAny* value);
/* Creates a default instance of a type. Returns a new reference in *result. */
typedef int (*TVMFFIObjectCreator)(TVMFFIObjectHandle* result);

/* A reflected field. 120 bytes. Offsets are relative to the object header. */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata; /* JSON object text */
  int64_t flags;            /* TVMFFIFieldFlagBitMask bits */
  int64_t size;
  int64_t alignment;
  int64_t offset;
  TVMFFIFieldGetter getter;
  void* setter; /* TVMFFIFieldSetter, or a function handle with SetterIsFunctionObj */
  TVMFFIAny default_value_or_factory;
  int32_t field_static_type_index;
} TVMFFIFieldInfo;

/* A reflected method or global-function entry. 72 bytes. */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata;
  int64_t flags;
  TVMFFIAny method; /* view holding an ffi.Function */
} TVMFFIMethodInfo;

/* Type-level metadata. 32 bytes. */
typedef struct {
  TVMFFIByteArray doc;
  TVMFFIObjectCreator creator; /* may be NULL */
  int32_t total_size;          /* 0 = unknown */
  TVMFFISEqHashKind structural_eq_hash_kind; /* the one enum-typed ABI field */
} TVMFFITypeMetadata;

/*
 * One attribute across all types: the entry of type t is data[t - begin_index]
 * when begin_index <= t < begin_index + size, else None.  The column address
 * is stable; re-read data and size on every access.  begin_index stays 0.
 */
typedef struct {
  const TVMFFIAny* data;
  int32_t size;
  int32_t begin_index;
} TVMFFITypeAttrColumn;

/* An entry of the type table. 72 bytes; address stable for the process. */
typedef struct TVMFFITypeInfo {
  int32_t type_index;
  int32_t type_depth;
  TVMFFIByteArray type_key; /* NUL-terminated */
  const struct TVMFFITypeInfo** type_ancestors; /* [type_depth], parent last */
  uint64_t type_key_hash;
  int32_t num_fields;  /* on this type only */
  int32_t num_methods;
  const TVMFFIFieldInfo* fields;   /* may move when fields are added: re-read */
  const TVMFFIMethodInfo* methods; /* likewise */
  const TVMFFITypeMetadata* metadata; /* NULL until registered */
} TVMFFITypeInfo;

/* ===================================================================== */
/* Section: version                                                      */
/* ===================================================================== */

/* Writes the runtime's own version. Never fails; callable at any time. */
TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version);

/* ===================================================================== */
/* Section: object API                                                   */
/* ===================================================================== */

/* Adds one strong reference. `obj` must be live. Returns 0. */
TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);

/* Drops one strong reference, running the deleter as the protocol says.
 * NULL is a no-op. Returns 0. */
TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);

/*
 * Wraps a foreign handle (e.g. a PyObject*) in an object of `type_index`,
 * which must be kTVMFFIOpaquePyObject.  deleter(handle) runs when the last
 * strong reference goes.  Returns a new reference in *out.  Returns 0/-1.
 */
TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out);

/* The installed object allocator, or the built-in default. Never NULL. */
TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void);

/* Installs `allocator` (NULL restores the default). Not synchronised. Returns 0. */
TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator);

/* ===================================================================== */
/* Section: type table                                                   */
/* ===================================================================== */

/* Looks up a type key. Unknown key: -1 with kind InternalError. */
TVM_FFI_DLL int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex);

/*
 * Returns the index of `type_key`, registering it first if needed under
 * `parent_type_index` (-1: a root; -2: query only, returns -2 if absent).
 * Misuse is fatal (the process exits), as in the reference runtime.
 */
TVM_FFI_DLL int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key,
                                              int32_t static_type_index, int32_t type_depth,
                                              int32_t num_child_slots,
                                              int32_t child_slots_can_overflow,
                                              int32_t parent_type_index);

/* Returns the table entry of a registered index (stable pointer).  An
 * unregistered index returns NULL with a RuntimeError raised (the reference
 * runtime ends the process instead). */
TVM_FFI_DLL TVM_FFI_C_API_PURE const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index);

/* ===================================================================== */
/* Section: functions and the global registry                            */
/* ===================================================================== */

/*
 * Creates an ffi.Function calling safe_call.  With self == deleter == NULL
 * safe_call receives the function handle; otherwise it receives `self`, and
 * deleter(self) runs on destruction.  Returns a new reference in *out.
 * Returns 0/-1.
 */
TVM_FFI_DLL int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call,
                                     void (*deleter)(void* self), TVMFFIObjectHandle* out);

/* Converts a view into an owned Any (strings copied, objects IncRef'd,
 * rvalue slots stolen). *out is overwritten, not released. Returns 0/-1. */
TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out);

/* Calls `func` (borrowed). Returns the callee's return code.  `func` must be
 * a live ffi.Function: nothing is checked (one indirect jump, as upstream). */
TVM_FFI_DLL int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result);

/* Registers f (borrowed) under name. Duplicate without override: -1,
 * RuntimeError. Returns 0/-1. */
TVM_FFI_DLL int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f,
                                        int allow_override);

/* Registers method_info->method (an ffi.Function view) with its name, doc,
 * metadata and flags. Returns 0/-1. */
TVM_FFI_DLL int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info,
                                                      int allow_override);

/* Looks up a global function. Returns a new reference in *out, or NULL in
 * *out when absent (not an error). Returns 0/-1. */
TVM_FFI_DLL int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out);

/* ===================================================================== */
/* Section: errors                                                       */
/* ===================================================================== */

/* Moves the raised error out of this thread's slot: *result is a new
 * reference, or NULL when nothing was raised. The slot is left empty. */
TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result);

/* Stores `error` (borrowed; the slot takes its own reference) in this
 * thread's slot, releasing what was there. NULL clears the slot. */
TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);

/* Creates an error of `kind` with `message` and a backtrace of the caller,
 * and raises it. Never fails. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message);

/* As above; the message is the concatenation of num_parts strings (NULL
 * entries skipped). */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts);

/* Creates an ffi.Error with copies of the strings. Returns a new reference
 * in *out. Returns 0, or -1 on out-of-memory *without* raising. */
TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out);

/* As TVMFFIErrorCreate, also holding cause_chain and extra_context
 * (borrowed, may be NULL). Since 0.1.8. */
TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out);

/* ===================================================================== */
/* Section: tensors and DLPack                                           */
/* ===================================================================== */

/*
 * Wraps a DLPack managed tensor into an ffi.Tensor without copying.  On
 * success the tensor owns `from` (its deleter runs when the tensor dies) and
 * *out is a new reference; on failure the caller still owns `from`.
 * require_alignment (bytes, 0 = none) and require_contiguous are checked.
 * Returns 0/-1.
 * Errors: ValueError for a malformed tensor (NULL pointers, ndim outside
 * [0, 64], negative extents, unknown device type, negative device_id, NULL
 * data with a non-zero size; versioned: version.major != 1); RuntimeError
 * "FromDLPack: Data is not aligned to N bytes." / "FromDLPack: Tensor is not
 * contiguous." / (versioned) the sub-byte-padded flag.
 */
TVM_FFI_DLL int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                                       int32_t require_contiguous, TVMFFIObjectHandle* out);

/* Exports a tensor (borrowed). The caller owns *out and must call its
 * deleter once; the tensor stays alive until then. Returns 0/-1. */
TVM_FFI_DLL int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out);

/* Versioned forms of the two above (DLPack >= 1.0). */
TVM_FFI_DLL int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from,
                                                int32_t require_alignment,
                                                int32_t require_contiguous,
                                                TVMFFIObjectHandle* out);
TVM_FFI_DLL int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from,
                                              DLManagedTensorVersioned** out);

/* Creates a tensor described by `prototype` that keeps `source` alive.
 * prototype->strides must be non-NULL. No bounds check. Since 0.1.6. */
TVM_FFI_DLL int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                             TVMFFIObjectHandle* out);

/* ===================================================================== */
/* Section: strings, bytes and data types                                */
/* ===================================================================== */

/* Copies input into a new owned String (small form when size <= 7).
 * *out is overwritten, not released. Returns 0/-1. */
TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/* Copies input into a new owned Bytes (small form when size <= 7). */
TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/* Integer from whole 64-bit words (least significant first, native byte order, two's
 * complement; redundant sign words allowed, empty = 0): a kTVMFFIInt when it fits int64_t,
 * else an owned ffi.BigInt in its minimal form.  Size not a multiple of 8: ValueError. */
TVM_FFI_DLL int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/* The words of an Int (8 bytes, pointing into *value) or a BigInt (borrowed from the
 * object); {NULL, 0} for other kinds. */
TVM_FFI_DLL TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value);

/* Parses "float32", "int8x4", "bfloat16", "float8_e4m3fn", "bool", ...
 * Bad input: -1 with ValueError. */
TVM_FFI_DLL int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out);

/* Prints a data type into a new owned String in *out. Returns 0/-1. */
TVM_FFI_DLL int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out);

/* ===================================================================== */
/* Section: reflection registration                                      */
/* ===================================================================== */

TVM_FFI_DLL int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info);
TVM_FFI_DLL int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info);
TVM_FFI_DLL int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata);
TVM_FFI_DLL int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                                       const TVMFFIAny* attr_value);
/* The column of an attribute, or NULL when no type registered it. */
TVM_FFI_DLL const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name);

/* ===================================================================== */
/* Section: backtraces                                                   */
/* ===================================================================== */

/*
 * Captures the native stack as "  File \"f\", line N, in fn\n" lines,
 * innermost first, into a thread-local buffer valid until the next call on
 * this thread.  With filename and func non-NULL the first line names them.
 * cross_ffi_boundary == 0 stops at the first FFI boundary frame.  The number
 * of lines is capped by $TVM_TRACEBACK_LIMIT (default 512).  Never fails.
 */
TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary);

/* ===================================================================== */
/* Section: one-time initialisation                                      */
/* ===================================================================== */

/* Runs init_func once per *handle_addr (process-wide lock); a NULL result
 * is a RuntimeError. Returns 0/-1. Since 0.1.6. */
TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result));

/* Atomically takes *handle_addr and passes a non-NULL value to deinit_func.
 * Returns deinit_func's result, or 0. Since 0.1.6. */
TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle));

/* ===================================================================== */
/* Section: inline layout accessors (not exported)                       */
/* ===================================================================== */

#ifdef __cplusplus
#define TVM_FFI_C_INLINE inline
#else
#define TVM_FFI_C_INLINE static inline
#endif

/* The type index stored in an object header. */
TVM_FFI_C_INLINE int32_t TVMFFIObjectGetTypeIndex(TVMFFIObjectHandle obj) {
  return ((const TVMFFIObject*)obj)->type_index;
}

/* The cell of an ffi.String / ffi.Bytes object. */
TVM_FFI_C_INLINE TVMFFIByteArray* TVMFFIBytesGetByteArrayPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIByteArray*)((char*)obj + sizeof(TVMFFIObject));
}

/* The cell of an ffi.Error object. */
TVM_FFI_C_INLINE TVMFFIErrorCell* TVMFFIErrorGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIErrorCell*)((char*)obj + sizeof(TVMFFIObject));
}

/* The cell of an ffi.Function object. */
TVM_FFI_C_INLINE TVMFFIFunctionCell* TVMFFIFunctionGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIFunctionCell*)((char*)obj + sizeof(TVMFFIObject));
}

/* The cell of an opaque object. */
TVM_FFI_C_INLINE TVMFFIOpaqueObjectCell* TVMFFIOpaqueObjectGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIOpaqueObjectCell*)((char*)obj + sizeof(TVMFFIObject));
}

/* The cell of an ffi.Shape object. */
TVM_FFI_C_INLINE TVMFFIShapeCell* TVMFFIShapeGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIShapeCell*)((char*)obj + sizeof(TVMFFIObject));
}

/* The DLTensor embedded in an ffi.Tensor object. */
TVM_FFI_C_INLINE DLTensor* TVMFFITensorGetDLTensorPtr(TVMFFIObjectHandle obj) {
  return (DLTensor*)((char*)obj + sizeof(TVMFFIObject));
}

/* The cell of an ffi.Array / ffi.List object. */
TVM_FFI_C_INLINE TVMFFISeqCell* TVMFFISeqGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFISeqCell*)((char*)obj + sizeof(TVMFFIObject));
}

/* The content of a SmallStr / SmallBytes value, as a byte range into *value. */
TVM_FFI_C_INLINE TVMFFIByteArray TVMFFISmallBytesGetContentByteArray(const TVMFFIAny* value) {
  TVMFFIByteArray out;
  out.data = value->v_bytes;
  out.size = value->small_str_len;
  return out;
}

/* A DLDevice from two integers. */
TVM_FFI_C_INLINE DLDevice TVMFFIDLDeviceFromIntPair(int32_t device_type, int32_t device_id) {
  DLDevice d;
  d.device_type = (DLDeviceType)device_type;
  d.device_id = device_id;
  return d;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ABI guards: these sizes and offsets are the contract. */
#if defined(__cplusplus)
#define TVM_FFI_C_STATIC_ASSERT static_assert
#else
#define TVM_FFI_C_STATIC_ASSERT _Static_assert
#endif
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFIObject) == 24, "TVMFFIObject must be 24 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFIAny) == 16, "TVMFFIAny must be 16 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFIErrorCell) == 72, "TVMFFIErrorCell must be 72 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFIFieldInfo) == 120, "TVMFFIFieldInfo must be 120 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFIMethodInfo) == 72, "TVMFFIMethodInfo must be 72 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFITypeInfo) == 72, "TVMFFITypeInfo must be 72 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFITypeMetadata) == 32, "TVMFFITypeMetadata must be 32 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFITypeAttrColumn) == 16, "TVMFFITypeAttrColumn: 16 bytes");
TVM_FFI_C_STATIC_ASSERT(sizeof(TVMFFISeqCell) == 32, "TVMFFISeqCell must be 32 bytes");
#endif

#endif /* TVM_FFI_C_API_H_ */
