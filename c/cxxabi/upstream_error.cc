/*
 * upstream_error.cc -- upstream's tvm::ffi::Error as the ABI library exports
 * it, and the catch that raises a C++ exception in flight as an FFI error
 * (for the trampolines of module_bridge.cc).
 *
 * From 0.1.13 upstream's headers mark Error TVM_FFI_DLL, and the wheel's
 * libtvm_ffi.so exports its vtable and typeinfo; binaries built against any
 * release emit their own weak copies (Error has no key function), and with
 * default visibility those bind to the runtime's when it comes first in the
 * lookup scope.  Defining them here keeps that so on this runtime.  The
 * class is laid out as upstream's by the Itanium ABI: `class Error : public
 * ObjectRef, public std::exception` puts the polymorphic std::exception
 * first (vtable pointer at 0) and the ObjectRef, one pointer to the error
 * object, at 8.  Its out-of-line destructor makes this file the one that
 * emits the vtable and typeinfo.  what() is 0.1.13+'s: the message.
 *
 * An exception thrown by code built against upstream's headers is caught
 * here by its name (how the C++ runtime matches exception types across
 * libraries).  This file must not include our C++ headers (the names would
 * clash with tvm::ffi::cimpl's).
 */
#include <tvm/ffi/c_api.h>

#include <exception>

namespace tvm {
namespace ffi {
class ObjectRef {
 public:
  TVMFFIObjectHandle data_;
};
class __attribute__((visibility("default"))) Error : public ObjectRef, public std::exception {
 public:
  ~Error() override;
  const char* what() const noexcept override;
};

// The ObjectRef base releases its reference; ~exception runs after.
Error::~Error() {
  if (data_ != nullptr) TVMFFIObjectDecRef(data_);
}

const char* Error::what() const noexcept { return TVMFFIErrorGetCellPtr(data_)->message.data; }
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
