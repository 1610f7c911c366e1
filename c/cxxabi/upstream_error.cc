/*
 * upstream_error.cc -- raises the C++ exception in flight as an FFI error,
 * for the trampolines of module_bridge.cc.  An exception thrown by code built
 * against upstream's headers is a tvm::ffi::Error (our headers' Error is
 * another class, tvm::ffi::cimpl::Error): it is caught here by its name,
 * which is how the C++ runtime matches exception types across libraries,
 * and its error object is raised with its kind, message and backtrace.
 * This file must not include our C++ headers (the names would clash).
 */
#include <tvm/ffi/c_api.h>

#include <exception>

namespace tvm {
namespace ffi {
// Upstream's Error as laid out by the Itanium ABI: `class Error : public
// ObjectRef, public std::exception` puts the polymorphic std::exception
// first (its vtable pointer at 0) and the ObjectRef, one pointer to the
// error object, at 8.
class Error {
 public:
  void* exception_vptr_;
  TVMFFIObjectHandle data_;
};
}  // namespace ffi
}  // namespace tvm

namespace tvm {
namespace ffi {
namespace cxxabi {

// Must be called from a catch block; returns -1 with the error raised.
int RaiseCurrentException() {
  try {
    throw;
  } catch (const ::tvm::ffi::Error& err) {
    TVMFFIErrorSetRaised(err.data_);
  } catch (const std::exception& err) {
    TVMFFIErrorSetRaisedFromCStr("InternalError", err.what());
  } catch (...) {
    TVMFFIErrorSetRaisedFromCStr("InternalError", "unknown C++ exception in a C++ module");
  }
  return -1;
}

}  // namespace cxxabi
}  // namespace ffi
}  // namespace tvm
