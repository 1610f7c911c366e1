/* tvm/ffi/endian.h -- byte-order macros. */
#ifndef TVM_FFI_ENDIAN_H_
#define TVM_FFI_ENDIAN_H_
#ifndef TVM_FFI_LITTLE_ENDIAN
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TVM_FFI_LITTLE_ENDIAN 0
#else
#define TVM_FFI_LITTLE_ENDIAN 1
#endif
#endif
#define TVM_FFI_IO_NO_ENDIAN_SWAP TVM_FFI_LITTLE_ENDIAN
#endif  // TVM_FFI_ENDIAN_H_
