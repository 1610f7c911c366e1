/*
 * test_abi_layout.c -- pins the size and every field offset of the ABI
 * structs (docs/abi.md §2, §4, §5, §6, §12) and the enum values, at compile time,
 * plus the runtime's reported version.
 */
#include <stdalign.h>
#include <stddef.h>

#include "check.h"

#define OFF(T, f, o) _Static_assert(offsetof(T, f) == (o), #T "." #f " at " #o)
#define SIZE(T, s, a)                                       \
  _Static_assert(sizeof(T) == (s), "sizeof " #T " == " #s); \
  _Static_assert(alignof(T) == (a), "alignof " #T " == " #a)

SIZE(TVMFFIVersion, 12, 4);
OFF(TVMFFIVersion, major, 0);
OFF(TVMFFIVersion, minor, 4);
OFF(TVMFFIVersion, patch, 8);

SIZE(TVMFFIObject, 24, 8);
OFF(TVMFFIObject, combined_ref_count, 0);
OFF(TVMFFIObject, type_index, 8);
OFF(TVMFFIObject, __padding, 12);
OFF(TVMFFIObject, deleter, 16);

SIZE(TVMFFIAny, 16, 8);
OFF(TVMFFIAny, type_index, 0);
OFF(TVMFFIAny, zero_padding, 4);
OFF(TVMFFIAny, small_str_len, 4);
OFF(TVMFFIAny, v_int64, 8);
OFF(TVMFFIAny, v_float64, 8);
OFF(TVMFFIAny, v_ptr, 8);
OFF(TVMFFIAny, v_c_str, 8);
OFF(TVMFFIAny, v_obj, 8);
OFF(TVMFFIAny, v_dtype, 8);
OFF(TVMFFIAny, v_device, 8);
OFF(TVMFFIAny, v_bytes, 8);
OFF(TVMFFIAny, v_uint64, 8);

SIZE(TVMFFIByteArray, 16, 8);
OFF(TVMFFIByteArray, data, 0);
OFF(TVMFFIByteArray, size, 8);

SIZE(TVMFFIShapeCell, 16, 8);
OFF(TVMFFIShapeCell, data, 0);
OFF(TVMFFIShapeCell, size, 8);

SIZE(TVMFFISeqCell, 32, 8);
OFF(TVMFFISeqCell, data, 0);
OFF(TVMFFISeqCell, size, 8);
OFF(TVMFFISeqCell, capacity, 16);
OFF(TVMFFISeqCell, data_deleter, 24);

SIZE(TVMFFIErrorCell, 72, 8);
OFF(TVMFFIErrorCell, kind, 0);
OFF(TVMFFIErrorCell, message, 16);
OFF(TVMFFIErrorCell, backtrace, 32);
OFF(TVMFFIErrorCell, update_backtrace, 48);
OFF(TVMFFIErrorCell, cause_chain, 56);
OFF(TVMFFIErrorCell, extra_context, 64);

SIZE(TVMFFIFunctionCell, 16, 8);
OFF(TVMFFIFunctionCell, safe_call, 0);
OFF(TVMFFIFunctionCell, cpp_call, 8);

SIZE(TVMFFIOpaqueObjectCell, 8, 8);
OFF(TVMFFIOpaqueObjectCell, handle, 0);

SIZE(TVMFFIObjectAllocHeader, 8, 8);
OFF(TVMFFIObjectAllocHeader, delete_space, 0);

SIZE(TVMFFICustomAllocator, 16, 8);
OFF(TVMFFICustomAllocator, allocate, 0);
OFF(TVMFFICustomAllocator, context, 8);

SIZE(TVMFFIFieldInfo, 120, 8);
OFF(TVMFFIFieldInfo, name, 0);
OFF(TVMFFIFieldInfo, doc, 16);
OFF(TVMFFIFieldInfo, metadata, 32);
OFF(TVMFFIFieldInfo, flags, 48);
OFF(TVMFFIFieldInfo, size, 56);
OFF(TVMFFIFieldInfo, alignment, 64);
OFF(TVMFFIFieldInfo, offset, 72);
OFF(TVMFFIFieldInfo, getter, 80);
OFF(TVMFFIFieldInfo, setter, 88);
OFF(TVMFFIFieldInfo, default_value_or_factory, 96);
OFF(TVMFFIFieldInfo, field_static_type_index, 112);

SIZE(TVMFFIMethodInfo, 72, 8);
OFF(TVMFFIMethodInfo, name, 0);
OFF(TVMFFIMethodInfo, doc, 16);
OFF(TVMFFIMethodInfo, metadata, 32);
OFF(TVMFFIMethodInfo, flags, 48);
OFF(TVMFFIMethodInfo, method, 56);

SIZE(TVMFFITypeMetadata, 32, 8);
OFF(TVMFFITypeMetadata, doc, 0);
OFF(TVMFFITypeMetadata, creator, 16);
OFF(TVMFFITypeMetadata, total_size, 24);
OFF(TVMFFITypeMetadata, structural_eq_hash_kind, 28);

SIZE(TVMFFITypeAttrColumn, 16, 8);
OFF(TVMFFITypeAttrColumn, data, 0);
OFF(TVMFFITypeAttrColumn, size, 8);
OFF(TVMFFITypeAttrColumn, begin_index, 12);

SIZE(TVMFFITypeInfo, 72, 8);
OFF(TVMFFITypeInfo, type_index, 0);
OFF(TVMFFITypeInfo, type_depth, 4);
OFF(TVMFFITypeInfo, type_key, 8);
OFF(TVMFFITypeInfo, type_ancestors, 24);
OFF(TVMFFITypeInfo, type_key_hash, 32);
OFF(TVMFFITypeInfo, num_fields, 40);
OFF(TVMFFITypeInfo, num_methods, 44);
OFF(TVMFFITypeInfo, fields, 48);
OFF(TVMFFITypeInfo, methods, 56);
OFF(TVMFFITypeInfo, metadata, 64);

/* DLPack pieces carried inside TVMFFIAny. */
SIZE(DLDataType, 4, 2);
SIZE(DLDevice, 8, 4);

/* Every ABI enum is 4 bytes. */
_Static_assert(sizeof(TVMFFITypeIndex) == 4, "enum size");
_Static_assert(sizeof(TVMFFIObjectDeleterFlagBitMask) == 4, "enum size");
_Static_assert(sizeof(TVMFFIBacktraceUpdateMode) == 4, "enum size");
_Static_assert(sizeof(TVMFFIFieldFlagBitMask) == 4, "enum size");
_Static_assert(sizeof(TVMFFISEqHashKind) == 4, "enum size");

/* Enum values of docs/abi.md §3, §4.4, §6.4, §12.4. */
_Static_assert(kTVMFFIAny == -1 && kTVMFFINone == 0 && kTVMFFIInt == 1 && kTVMFFIBool == 2 &&
                   kTVMFFIFloat == 3 && kTVMFFIOpaquePtr == 4 && kTVMFFIDataType == 5 &&
                   kTVMFFIDevice == 6 && kTVMFFIDLTensorPtr == 7 && kTVMFFIRawStr == 8 &&
                   kTVMFFIByteArrayPtr == 9 && kTVMFFIObjectRValueRef == 10 &&
                   kTVMFFISmallStr == 11 && kTVMFFISmallBytes == 12 && kTVMFFIUnchanged == 13,
               "POD type indices");
_Static_assert(kTVMFFIStaticObjectBegin == 64 && kTVMFFIObject == 64 && kTVMFFIStr == 65 &&
                   kTVMFFIBytes == 66 && kTVMFFIError == 67 && kTVMFFIFunction == 68 &&
                   kTVMFFIShape == 69 && kTVMFFITensor == 70 && kTVMFFIArray == 71 &&
                   kTVMFFIMap == 72 && kTVMFFIModule == 73 && kTVMFFIOpaquePyObject == 74 &&
                   kTVMFFIList == 75 && kTVMFFIDict == 76 && kTVMFFIVisitInterrupt == 77 &&
                   kTVMFFIBigInt == 78 && kTVMFFIStaticObjectEnd == 79 &&
                   kTVMFFIDynObjectBegin == 128,
               "object type indices");
_Static_assert(kTVMFFIObjectDeleterFlagBitMaskStrong == 1 &&
                   kTVMFFIObjectDeleterFlagBitMaskWeak == 2 &&
                   kTVMFFIObjectDeleterFlagBitMaskBoth == 3,
               "deleter flags");
_Static_assert(kTVMFFIBacktraceUpdateModeReplace == 0 && kTVMFFIBacktraceUpdateModeAppend == 1,
               "backtrace update modes");
_Static_assert(kTVMFFIFieldFlagBitMaskWritable == 1 && kTVMFFIFieldFlagBitMaskHasDefault == 2 &&
                   kTVMFFIFieldFlagBitMaskIsStaticMethod == 4 &&
                   kTVMFFIFieldFlagBitMaskSEqHashIgnore == 8 &&
                   kTVMFFIFieldFlagBitMaskSEqHashDefRecursive == 16 &&
                   kTVMFFIFieldFlagBitMaskSEqHashDef == 16 &&
                   kTVMFFIFieldFlagBitMaskDefaultFromFactory == 32 &&
                   kTVMFFIFieldFlagBitMaskReprOff == 64 &&
                   kTVMFFIFieldFlagBitMaskCompareOff == 128 &&
                   kTVMFFIFieldFlagBitMaskHashOff == 256 && kTVMFFIFieldFlagBitMaskInitOff == 512 &&
                   kTVMFFIFieldFlagBitMaskKwOnly == 1024 &&
                   kTVMFFIFieldFlagBitSetterIsFunctionObj == 2048 &&
                   kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive == 4096,
               "field flags");
_Static_assert(kTVMFFISEqHashKindUnsupported == 0 && kTVMFFISEqHashKindTreeNode == 1 &&
                   kTVMFFISEqHashKindFreeVar == 2 && kTVMFFISEqHashKindDAGNode == 3 &&
                   kTVMFFISEqHashKindConstTreeNode == 4 && kTVMFFISEqHashKindUniqueInstance == 5,
               "structural eq/hash kinds");

int main(void) {
  /* The version is the runtime's, and matches the header it was built with. */
  TVMFFIVersion v = {99, 99, 99};
  TVMFFIGetVersion(&v);
  CHECK_EQ_INT(v.major, 0);
  CHECK_EQ_INT(v.minor, 1);
  CHECK_EQ_INT(v.patch, 16); /* the ABI of the apache-tvm-ffi 0.1.15.post2 wheel */
  CHECK_EQ_INT(v.patch, TVM_FFI_VERSION_PATCH);
  CHECK_SLOT_CLEAN();

  /* The cell accessors are "handle + 24". */
  TVMFFIObject header;
  CHECK((char*)TVMFFIBytesGetByteArrayPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFIErrorGetCellPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFIFunctionGetCellPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFIOpaqueObjectGetCellPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFIShapeGetCellPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFITensorGetDLTensorPtr(&header) == (char*)&header + 24);
  CHECK((char*)TVMFFISeqGetCellPtr(&header) == (char*)&header + 24);
  header.type_index = kTVMFFIArray;
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(&header), kTVMFFIArray);
  DLDevice d = TVMFFIDLDeviceFromIntPair(2, 3);
  CHECK_EQ_INT(d.device_type, 2);
  CHECK_EQ_INT(d.device_id, 3);
  printf("test_abi_layout: ok\n");
  return 0;
}
