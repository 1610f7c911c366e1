/*
 * tvm/ffi/rvalue_ref.h -- RValueRef<Ref>: pass an object as an
 * ObjectRValueRef (kind 10) so the callee can take sole ownership, e.g. to
 * mutate a unique Array without copying.  The payload points at the caller's
 * ObjectPtr slot; the callee steals the reference by nulling the slot.
 */
#ifndef TVM_FFI_RVALUE_REF_H_
#define TVM_FFI_RVALUE_REF_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/object.h>

TVM_FFI_NS_BEGIN

template <typename TObjRef>
class RValueRef {
  static_assert(std::is_base_of_v<ObjectRef, TObjRef>, "RValueRef needs an ObjectRef type");

 public:
  explicit RValueRef(TObjRef&& ref) : data_(std::move(ref)) {}
  /// The referenced value, moved out.
  TObjRef operator*() && { return std::move(data_); }

 private:
  TObjRef data_;
  template <typename, typename>
  friend struct TypeTraits;
};
template <typename TObjRef>
RValueRef(TObjRef&&) -> RValueRef<TObjRef>;

template <typename TObjRef>
struct TypeTraits<RValueRef<TObjRef>> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIObjectRValueRef;
  using Inner = TypeTraits<TObjRef>;

  static void CopyToAnyView(const RValueRef<TObjRef>& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIObjectRValueRef;
    r->zero_padding = 0;
    r->v_ptr = details::ObjectUnsafe::RawObjectPtrSlot(
        &details::ObjectUnsafe::GetObjectPtrRef(const_cast<TObjRef&>(v.data_)));
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  /* Steals from an rvalue slot whose object converts, or converts any other value. */
  static std::optional<RValueRef<TObjRef>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIObjectRValueRef) {
      Object** slot = static_cast<Object**>(s->v_ptr);
      if (*slot == nullptr) return std::nullopt;
      TVMFFIAny view = ObjectView(*slot);
      if (!Inner::CheckAnyStrict(&view)) return std::nullopt;
      Object* obj = *slot;
      *slot = nullptr;
      return RValueRef<TObjRef>(details::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
          details::ObjectUnsafe::ObjectPtrFromOwned<Object>(obj)));
    }
    if (std::optional<TObjRef> v = Inner::TryCastFromAnyView(s)) {
      return RValueRef<TObjRef>(*std::move(v));
    }
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIObjectRValueRef) {
      Object* obj = *static_cast<Object**>(s->v_ptr);
      if (obj == nullptr) return "RValueRef<None>";
      TVMFFIAny view = ObjectView(obj);
      return "RValueRef<" + Inner::GetMismatchTypeInfo(&view) + ">";
    }
    return Inner::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return "RValueRef<" + Inner::TypeStr() + ">"; }
  static std::string TypeSchema() { return Inner::TypeSchema(); }

 private:
  static TVMFFIAny ObjectView(Object* obj) {
    TVMFFIAny v;
    v.type_index = obj->type_index();
    v.zero_padding = 0;
    v.v_obj = details::ObjectUnsafe::GetHeader(obj);
    return v;
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_RVALUE_REF_H_
