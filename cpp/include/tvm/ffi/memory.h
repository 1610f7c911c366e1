/*
 * tvm/ffi/memory.h -- make_object and friends.
 *
 * Objects made here are freed by a deleter that lives in the binary that
 * created them (docs/abi.md §4.5): keep that library loaded while its objects live.
 */
#ifndef TVM_FFI_MEMORY_H_
#define TVM_FFI_MEMORY_H_

#include <tvm/ffi/object.h>

#include <cstdlib>
#include <new>

TVM_FFI_NS_BEGIN
namespace details {

inline void* ObjAllocBytes(size_t size, size_t align) {
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else if (posix_memalign(&p, align, size) != 0) {
    p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

/*
 * The address of a static local of an inline function is a GNU-unique symbol;
 * a binary that binds one is never unmapped by dlclose (glibc marks it NODELETE).
 * Objects made here carry a deleter inside the binary that made them, so every
 * binary that makes objects pins itself, as upstream-built libraries do.
 */
#if defined(__GNUC__) && !defined(_WIN32)
__attribute__((visibility("default"))) inline void* PinBinaryAnchor() {
  static char anchor;
  return &anchor;
}
#endif

/* The deleter of objects made by make_object<T> / make_inplace_array_object. */
template <typename T>
struct ObjAllocator {
  static void Deleter(void* self, int flags) {
#if defined(__GNUC__) && !defined(_WIN32)
    __asm__ volatile("" : : "r"(PinBinaryAnchor()));  // keeps the unique-symbol reference
#endif
    T* tptr = static_cast<T*>(reinterpret_cast<Object*>(self));
    if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) tptr->T::~T();
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(static_cast<void*>(tptr));
  }
};

/* Fills the header of a freshly constructed T and adopts it. */
template <typename T>
inline ObjectPtr<T> InitObjectHeader(T* ptr) {
  TVMFFIObject* h = ObjectUnsafe::GetHeader(static_cast<Object*>(ptr));
  h->combined_ref_count = kCombinedRefCountBothOne;
  h->type_index = T::RuntimeTypeIndex();
  h->deleter = ObjAllocator<T>::Deleter;
  return ObjectUnsafe::ObjectPtrFromOwned<T>(static_cast<Object*>(ptr));
}

template <typename T, typename... Args>
inline ObjectPtr<T> MakeObjectWithExtra(size_t extra_bytes, Args&&... args) {
  static_assert(std::is_base_of_v<Object, T>, "make_object needs an Object subclass");
  void* mem = ObjAllocBytes(sizeof(T) + extra_bytes, alignof(T));
  T* ptr;
  try {
    ptr = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    std::free(mem);
    throw;
  }
  return InitObjectHeader(ptr);
}
}  // namespace details

/*! \brief Allocates and constructs a T; the result holds the only reference. */
template <typename T, typename... Args>
inline ObjectPtr<T> make_object(Args&&... args) {
  return details::MakeObjectWithExtra<T>(0, std::forward<Args>(args)...);
}

/*! \brief make_object as a non-nullable Arc<T>. */
template <typename T, typename... Args>
inline Arc<T> make_arc(Args&&... args) {
  return details::ObjectUnsafe::ArcFromObjectPtr(
      details::MakeObjectWithExtra<T>(0, std::forward<Args>(args)...));
}

/*! \brief Allocates a T followed by room for `num_elems` Elem values (left uninitialised). */
template <typename ArrayType, typename ElemType, typename... Args>
inline ObjectPtr<ArrayType> make_inplace_array_object(size_t num_elems, Args&&... args) {
  static_assert(alignof(ArrayType) % alignof(ElemType) == 0 || alignof(ElemType) <= 8,
                "element alignment");
  return details::MakeObjectWithExtra<ArrayType>(num_elems * sizeof(ElemType),
                                                 std::forward<Args>(args)...);
}

TVM_FFI_NS_END
#endif  // TVM_FFI_MEMORY_H_
