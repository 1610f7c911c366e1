// tests/compat/ours_big_int.cc -- BigInt arithmetic of OUR headers (big_int.h) in a
// kernel that upstream's apache-tvm-ffi package calls (test_cpp_compat.sh): its
// runtime makes the ffi.BigInt arguments, these headers read them and make the
// results, its Python turns them back into ints.
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

namespace {
ffi::BigInt MulAdd(ffi::BigInt a, ffi::BigInt b, ffi::BigInt c) { return a * b + c; }
ffi::BigInt FloorDiv(ffi::BigInt a, ffi::BigInt b) { return floordiv(a, b); }
ffi::BigInt FloorMod(ffi::BigInt a, ffi::BigInt b) { return floormod(a, b); }
ffi::BigInt Xor(ffi::BigInt a, ffi::BigInt b) { return a ^ b; }
ffi::BigInt Shr(ffi::BigInt a, int64_t k) { return a >> k; }
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_mul_add, MulAdd);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_floordiv, FloorDiv);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_floormod, FloorMod);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_xor, Xor);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_shr, Shr);
