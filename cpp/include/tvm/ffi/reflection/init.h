/*
 * tvm/ffi/reflection/init.h -- MakeInit(type_index): the generated
 * `__ffi_init__` of a reflected type, as the 0.1.10 release's header of this
 * name declared it (later releases dropped the header; ObjectDef installs the
 * same constructor itself).
 *
 * Positional arguments bind to the type's init fields in the order of the
 * generated constructor (ancestors' fields first; required ones before
 * defaulted ones; keyword-only and InitOff fields excluded); after the KWARGS
 * sentinel (ffi.GetKwargsObject) come name/value pairs.  The object is then
 * made by ffi.MakeObjectFromPackedArgs, which rejects unknown, repeated or
 * missing fields and fills the defaults (tvm_ffi_reflection(3)).
 */
#ifndef TVM_FFI_REFLECTION_INIT_H_
#define TVM_FFI_REFLECTION_INIT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <vector>

TVM_FFI_NS_BEGIN
namespace reflection {

inline Function MakeInit(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr)
    throw ::tvm::ffi::details::MoveFromSafeCallRaised();  // the runtime's RuntimeError
  std::vector<String> names, defaulted;
  ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
    if (f->flags & (kTVMFFIFieldFlagBitMaskInitOff | kTVMFFIFieldFlagBitMaskKwOnly)) return;
    String name(f->name.data, f->name.size);
    (f->flags & kTVMFFIFieldFlagBitMaskHasDefault ? defaulted : names).push_back(name);
  });
  names.insert(names.end(), defaulted.begin(), defaulted.end());
  std::string who = std::string(info->type_key.data, info->type_key.size) + ".__ffi_init__()";
  Function make = Function::GetGlobalRequired("ffi.MakeObjectFromPackedArgs");
  Any kwargs = Function::GetGlobalRequired("ffi.GetKwargsObject")();
  return Function::FromPacked([=](PackedArgs args, Any* rv) {
    int32_t n = args.size(), npos = n;
    for (int32_t i = 0; i < n; ++i) {
      if (Any(args[i]).same_as(kwargs)) {
        npos = i;
        break;
      }
    }
    if (static_cast<size_t>(npos) > names.size()) {
      TVM_FFI_THROW(TypeError) << who << " takes at most " << names.size()
                               << " positional argument(s), but " << npos << " were given";
    }
    if (npos < n && (n - npos - 1) % 2 != 0) {
      TVM_FFI_THROW(TypeError) << who << " needs name/value pairs after KWARGS";
    }
    std::vector<AnyView> call;
    call.reserve(static_cast<size_t>(2 * n + 1));
    call.emplace_back(type_index);
    for (int32_t i = 0; i < npos; ++i) {
      call.emplace_back(names[static_cast<size_t>(i)]);
      call.emplace_back(args[i]);
    }
    for (int32_t i = npos + 1; i < n; ++i) call.emplace_back(args[i]);
    make.CallPacked(call.data(), static_cast<int32_t>(call.size()), rv);
  });
}

}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_INIT_H_
