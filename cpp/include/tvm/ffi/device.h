/*
 * tvm/ffi/device.h -- DLDevice conversions: Device payloads, and strings of
 * the form "<name>[:<id>]" (e.g. "cuda:1", "cpu").
 */
#ifndef TVM_FFI_DEVICE_H_
#define TVM_FFI_DEVICE_H_

#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <string_view>

TVM_FFI_NS_BEGIN
namespace details {
/* Parses "<name>[:<id>]"; text after a space is ignored.  Empty on failure. */
inline std::optional<DLDevice> ParseDevice(std::string_view s) {
  size_t sp = s.find(' ');
  if (sp != std::string_view::npos) s = s.substr(0, sp);
  size_t colon = s.find(':');
  std::string_view name = s.substr(0, colon);
  static const struct {
    const char* name;
    int type;
  } kNames[] = {{"cpu", kDLCPU},         {"cuda", kDLCUDA},   {"opencl", kDLOpenCL},
                {"vulkan", kDLVulkan},   {"metal", kDLMetal}, {"mps", kDLMetal},
                {"vpi", kDLVPI},         {"rocm", kDLROCM},   {"ext_dev", kDLExtDev},
                {"hexagon", kDLHexagon}, {"wgpu", kDLWebGPU}, {"webgpu", kDLWebGPU},
                {"maia", kDLMAIA},       {"trn", kDLTrn}};
  int type = -1;
  for (const auto& e : kNames) {
    if (name == e.name) type = e.type;
  }
  if (type < 0) return std::nullopt;
  int64_t id = 0;
  if (colon != std::string_view::npos) {
    std::string_view digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 10) return std::nullopt;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      id = id * 10 + (c - '0');
    }
    if (id > 2147483647) return std::nullopt;
  }
  return TVMFFIDLDeviceFromIntPair(type, static_cast<int32_t>(id));
}
}  // namespace details

template <>
struct TypeTraits<DLDevice> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIDevice;
  static void CopyToAnyView(const DLDevice& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIDevice;
    r->zero_padding = 0;
    r->v_device = v;
  }
  static void MoveToAny(DLDevice v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIDevice; }
  static DLDevice CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return s->v_device; }
  static DLDevice MoveFromAnyAfterCheck(TVMFFIAny* s) { return s->v_device; }
  template <typename T = DLDevice>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    switch (s->type_index) {
      case kTVMFFIDevice:
        return s->v_device;
      case kTVMFFIRawStr:
        return details::ParseDevice(s->v_c_str);
      case kTVMFFISmallStr:
        return details::ParseDevice(std::string_view(s->v_bytes, s->small_str_len));
      case kTVMFFIStr: {
        const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(s->v_obj);
        return details::ParseDevice(std::string_view(b->data, b->size));
      }
      default:
        return std::nullopt;
    }
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDevice; }
  static std::string TypeSchema() { return details::SchemaOf("Device"); }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_DEVICE_H_
