/*
 * tvm/ffi/extra/c_container.h -- inline implementation of the ABI container
 * layouts; used by the runtime and the C++ headers.
 *
 * Valid C11 and C++17.  Everything here is `static inline` and reaches the
 * runtime only through public entry points (TVMFFIGetTypeAttrColumn,
 * TVMFFIFunctionCall, TVMFFIObjectDecRef, TVMFFIErrorSetRaisedFromCStr), so
 * the same algorithms run in libtvm_ffi.so and, inlined, in every C or C++
 * binary that reads or mutates Array/List/Map/Dict objects (docs/abi.md §5.6,
 * §6.3, §7.6-§7.8).  Maps built by one party are mutated in place by another,
 * so the table algorithms (c_map.h) reproduce the reference ones exactly.
 *
 * Two headers, included here: <tvm/ffi/extra/c_container_base.h> (hashing, sequences)
 * and <tvm/ffi/extra/c_map.h> (maps).
 *
 * Contents
 *   Hashing (docs/abi.md §5.6):
 *     TVMFFIContainerHashCombine, TVMFFIContainerHashBytes,
 *     TVMFFIContainerAnyHash (0/-1), TVMFFIContainerAnyEqual (1/0/-1).
 *   Sequences (Array, List; TVMFFISeqCell of c_api.h):
 *     TVMFFISeqCellItems, TVMFFISeqCellReleaseItems, TVMFFIListCellReserve.
 *   Maps (Map, Dict):
 *     TVMFFIMapCell, TVMFFIMapKV, TVMFFIMapDenseItem, TVMFFIMapGetCellPtr,
 *     TVMFFIMapCellIsSmall, TVMFFIMapCellNumSlots,
 *     TVMFFIMapCellInitSmall, TVMFFIMapCellInitDense, TVMFFIMapCellDestroy,
 *     TVMFFIMapCellClear, TVMFFIMapCellFind, TVMFFIMapCellIterBegin/Next/Prev,
 *     TVMFFIMapCellKey, TVMFFIMapCellValue, TVMFFIMapCellInsert,
 *     TVMFFIMapCellGrowCapacity, TVMFFIMapCellGrowInto, TVMFFIMapCellErase,
 *     TVMFFIMapJump, TVMFFIMapDenseMeta, TVMFFIMapDenseItemPtr.
 *
 * Names containing "Impl" are helpers of the functions above, not API.
 *
 * Typical use (what the reference C++ containers do):
 *   read      TVMFFIMapGetCellPtr, TVMFFIMapCellFind, TVMFFIMapCellIterBegin/Next,
 *             TVMFFIMapCellKey/Value; sequences through TVMFFISeqGetCellPtr.
 *   Dict      mutate in place: TVMFFIMapCellInsert(cell, &k, &v, 1),
 *             TVMFFIMapCellErase, TVMFFIMapCellClear (storage transplanted on
 *             growth, the object keeps its address).
 *   Map       copy-on-write: on a uniquely owned object TVMFFIMapCellInsert(..., 0);
 *             a result of 1 means "grow": allocate a new object for
 *             TVMFFIMapCellGrowCapacity (n > 0: small with n pairs inline at
 *             +56; 0: an 80-byte dense object) and TVMFFIMapCellGrowInto it.
 *   build     from c entries: c >= 4 -> TVMFFIMapCellInitDense(c); else small
 *             with max(c, 2) pairs inline; then TVMFFIMapCellInsert each.
 *   destroy   TVMFFIMapCellDestroy / TVMFFISeqCellReleaseItems + data_deleter.
 *   List      grow with TVMFFIListCellReserve (x2, at least 4).
 *
 * Ownership: container elements are owned TVMFFIAny values.  Functions that
 * "move in" a value take its reference and reset the caller's slot to None.
 * Fallible functions return 0/-1 (-1 with an error raised, see c_api.h);
 * the only failures are out-of-memory and errors of user __any_hash__ /
 * __any_equal__ hooks.
 *
 * Storage rule: every buffer allocated here comes from malloc and is
 * released by `free`, which is stored as data_deleter.  Storage made by
 * others is released only through its own data_deleter (NULL = inline).
 */
#ifndef TVM_FFI_EXTRA_C_CONTAINER_H_
#define TVM_FFI_EXTRA_C_CONTAINER_H_

#include <tvm/ffi/extra/c_container_base.h>
#include <tvm/ffi/extra/c_map.h>

#endif /* TVM_FFI_EXTRA_C_CONTAINER_H_ */
