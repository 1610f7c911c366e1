// tests/cpp/test_tensor.cc -- Tensor, TensorView, Shape, DLPack, allocation, dtype helpers.
#include <sstream>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::AnyView;
using ffi::Shape;
using ffi::Tensor;
using ffi::TensorView;

const DLDataType kF32{kDLFloat, 32, 1};
const DLDevice kCPU{kDLCPU, 0};

struct CountingAlloc {
  int* frees;
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t) + 16); }
  void FreeData(DLTensor* t) {
    std::free(t->data);
    ++*frees;
  }
};
struct CPUNDAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t) + 16); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};
struct ThrowingAlloc {
  void AllocData(DLTensor*) { TVM_FFI_THROW(MemoryError) << "no memory today"; }
  void FreeData(DLTensor*) { FAIL("FreeData must not run after a failed AllocData"); }
};

Tensor MakeTensor(ffi::ShapeView shape) {
  return Tensor::FromNDAlloc(CPUNDAlloc(), shape, kF32, kCPU);
}

TEST_SUITE("tensor") {
  TEST_CASE("GetDataSize") {
    CHECK_EQ(ffi::GetDataSize(1, DLDataType{kDLUInt, 1, 1}), 1u);
    CHECK_EQ(ffi::GetDataSize(8, DLDataType{kDLUInt, 1, 1}), 1u);
    CHECK_EQ(ffi::GetDataSize(9, DLDataType{kDLUInt, 1, 1}), 2u);
    CHECK_EQ(ffi::GetDataSize(9, DLDataType{kDLBool, 8, 1}), 9u);
    CHECK_EQ(ffi::GetDataSize(2, DLDataType{kDLFloat4_e2m1fn, 4, 1}), 1u);
  }

  TEST_CASE("FromNDAlloc layout and a single FreeData") {
    int frees = 0;
    {
      Tensor t = Tensor::FromNDAlloc(CountingAlloc{&frees}, {1, 2, 3}, kF32, kCPU);
      CHECK_EQ(std::vector<int64_t>(t.shape().begin(), t.shape().end()),
               std::vector<int64_t>{1, 2, 3});
      CHECK_EQ(std::vector<int64_t>(t.strides().begin(), t.strides().end()),
               std::vector<int64_t>{6, 3, 1});
      CHECK_EQ(t.numel(), 6);
      CHECK_EQ(t.ndim(), 3);
      CHECK_EQ(t.dim(), 3);
      CHECK_EQ(t.data_ptr(), t.GetDLTensorPtr()->data);
      CHECK(t.IsContiguous());
      CHECK(t.dtype() == kF32);
      Tensor copy = t;
      CHECK_EQ(frees, 0);
    }
    CHECK_EQ(frees, 1);
    CHECK_THROWS_FFI(Tensor::FromNDAlloc(ThrowingAlloc(), {2}, kF32, kCPU), "MemoryError",
                     "no memory today");
  }

  TEST_CASE("FromNDAllocStrided") {
    Tensor t = Tensor::FromNDAllocStrided(CPUNDAlloc(), {2, 3}, {1, 2}, kF32, kCPU);
    CHECK_EQ(t.stride(0), 1);
    CHECK_EQ(t.stride(1), 2);
    Tensor z = Tensor::FromNDAllocStrided(CPUNDAlloc(), {4, 0, 4}, {0, 0, 0}, kF32, kCPU);
    CHECK_EQ(z.numel(), 0);
    CHECK(z.IsContiguous());
    CHECK_THROWS_FFI(Tensor::FromNDAllocStrided(CPUNDAlloc(), {2, 3}, {1}, kF32, kCPU),
                     "ValueError", "shape and strides must have the same size.");
  }

  TEST_CASE("size/stride with negative and bad indices") {
    Tensor t = MakeTensor({2, 3, 4});
    TensorView v = t;
    CHECK_EQ(t.size(-1), 4);
    CHECK_EQ(t.stride(-3), 12);
    CHECK_EQ(v.size(-1), 4);
    CHECK_EQ(v.stride(0), 12);
    CHECK_THROWS_FFI(t.size(3), "IndexError", "Index 3 out of bounds for tensor with 3 dimensions");
    CHECK_THROWS_FFI(t.size(-4), "IndexError",
                     "Index -4 out of bounds for tensor with 3 dimensions");
    CHECK_THROWS_FFI(v.stride(3), "IndexError",
                     "Index 3 out of bounds for tensor with 3 dimensions");
  }

  TEST_CASE("DLPack export and import") {
    Tensor t = MakeTensor({2, 2});
    DLManagedTensor* m = t.ToDLPack();
    CHECK_EQ(t.use_count(), 2);
    CHECK_EQ(m->dl_tensor.data, t.data_ptr());
    CHECK_EQ(m->dl_tensor.ndim, 2);
    {
      Tensor back = Tensor::FromDLPack(m);
      CHECK_EQ(back.use_count(), 1);
      CHECK_EQ(back.data_ptr(), t.data_ptr());
    }
    CHECK_EQ(t.use_count(), 1);
    DLManagedTensorVersioned* mv = t.ToDLPackVersioned();
    CHECK_EQ(mv->version.major, DLPACK_MAJOR_VERSION);
    CHECK_EQ(mv->version.minor, DLPACK_MINOR_VERSION);
    Tensor bv = Tensor::FromDLPackVersioned(mv);
    CHECK_EQ(bv.data_ptr(), t.data_ptr());
  }

  TEST_CASE("FromDLPack alignment failure keeps ownership with the caller") {
    static int deleted = 0;
    static float storage[8];
    static int64_t shape[1] = {4};
    DLManagedTensor m{};
    m.dl_tensor.data = reinterpret_cast<char*>(storage) + 1;
    m.dl_tensor.device = kCPU;
    m.dl_tensor.ndim = 1;
    m.dl_tensor.dtype = DLDataType{kDLUInt, 8, 1};
    m.dl_tensor.shape = shape;
    m.deleter = [](DLManagedTensor*) { ++deleted; };
    CHECK_THROWS_FFI(Tensor::FromDLPack(&m, 64), "RuntimeError",
                     "FromDLPack: Data is not aligned to 64 bytes.");
    CHECK_EQ(deleted, 0);
    m.dl_tensor.data = storage;
    {
      Tensor t = Tensor::FromDLPack(&m);
      CHECK_EQ(t.strides()[0], 1);  // compact strides synthesised
    }
    CHECK_EQ(deleted, 1);
  }

  TEST_CASE("FromEnvAlloc") {
    DLPackManagedTensorAllocator old = nullptr;
    TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &old);
    CHECK_THROWS_FFI_HAS(Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, kF32, kCPU),
                         "RuntimeError", "TVMFFIEnvTensorAlloc: allocator is nullptr");
    auto failing = [](DLTensor*, DLManagedTensorVersioned**, void* ctx,
                      void (*set_error)(void*, const char*, const char*)) -> int {
      set_error(ctx, "MemoryError", "X");
      return -1;
    };
    TVMFFIEnvSetDLPackManagedTensorAllocator(failing, 0, nullptr);
    CHECK_THROWS_FFI(Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, kF32, kCPU), "MemoryError",
                     "X");
    auto working = [](DLTensor* proto, DLManagedTensorVersioned** out, void*,
                      void (*)(void*, const char*, const char*)) -> int {
      Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), ffi::ShapeView(proto->shape, proto->ndim),
                                     proto->dtype, proto->device);
      *out = t.ToDLPackVersioned();
      return 0;
    };
    TVMFFIEnvSetDLPackManagedTensorAllocator(working, 0, nullptr);
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 2}, kF32, kCPU);
    CHECK_EQ(t.use_count(), 1);
    CHECK_EQ(t.numel(), 6);
    TVMFFIEnvSetDLPackManagedTensorAllocator(old, 0, nullptr);
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("TensorView and Any") {
    Tensor t = MakeTensor({2});
    TensorView tv = t;
    AnyView av = tv;
    CHECK_EQ(av.type_index(), kTVMFFIDLTensorPtr);
    CHECK_EQ(av.as<TensorView>().value().data_ptr(), t.data_ptr());
    CHECK_EQ(AnyView(t).cast<TensorView>().data_ptr(), t.data_ptr());
    CHECK_EQ(AnyView(t).cast<DLTensor*>(), t.GetDLTensorPtr());
    CHECK_FALSE(AnyView(tv).try_cast<Tensor>().has_value());
    static_assert(!std::is_constructible_v<TensorView, Tensor&&>,
                  "a view of a temporary tensor must not compile");
    static_assert(sizeof(TensorView) == sizeof(DLTensor));
  }

  TEST_CASE("as_strided") {
    Tensor t = MakeTensor({6});
    float* data = static_cast<float*>(t.data_ptr());
    for (int i = 0; i < 6; ++i) data[i] = static_cast<float>(i);
    Tensor s = t.as_strided({3, 2}, {1, 3});
    CHECK_EQ(s.data_ptr(), t.data_ptr());
    CHECK_EQ(s.byte_offset(), 0u);
    CHECK_EQ(s.size(0), 3);
    CHECK_EQ(t.use_count(), 2);  // the view keeps the source alive
    Tensor o = t.as_strided({2}, {1}, 1);
    CHECK_EQ(static_cast<char*>(o.data_ptr()), static_cast<char*>(t.data_ptr()) + 4);
    CHECK_EQ(o.byte_offset(), 0u);
    CHECK_EQ(static_cast<float*>(o.data_ptr())[0], 1.0f);
    TensorView tv = t;
    int64_t shape[] = {2}, strides[] = {1};
    TensorView vo = tv.as_strided(ffi::ShapeView(shape, 1), ffi::ShapeView(strides, 1), 1);
    CHECK_EQ(static_cast<float*>(vo.data_ptr())[0], 1.0f);
  }

  TEST_CASE("Shape") {
    Shape a({1, 2, 3});
    Shape b(ffi::Array<int64_t>{4, 5, 6, 7});
    CHECK_EQ(b.size(), 4u);
    CHECK_EQ(Shape(std::vector<int64_t>{8, 9, 10}).Product(), 720);
    CHECK_EQ(Shape().Product(), 1);
    Shape c = Any(ffi::Array<Any>{1, 2}).cast<Shape>();
    CHECK_EQ(c[1], 2);
    CHECK_THROWS_FFI(Shape({1, 2}).at(3), "IndexError", "indexing 3 on a Shape of size 2");
    std::ostringstream os;
    os << Shape({2, 3});
    CHECK_EQ(os.str(), "[2, 3]");
    CHECK_EQ(Shape::StridesFromShape({2, 3, 4})[0], 12);
    Shape r = ffi::Function::GetGlobalRequired("ffi.Shape")(5, 6).cast<Shape>();
    CHECK_EQ(r.Product(), 30);
  }

  TEST_CASE("dtype helpers") {
    std::ostringstream os;
    os << DLDataType{kDLFloat, 32, 1};
    CHECK_EQ(os.str(), "float32");
    CHECK(kF32 == DLDataType{kDLFloat, 32, 1});
    CHECK_EQ(ffi::DLDataTypeToString({kDLInt, 16, 2}), "int16x2");
    CHECK_EQ(ffi::DLDataTypeToString({kDLOpaqueHandle, 0, 0}), "");
    CHECK(ffi::StringToDLDataType("void") == DLDataType{kDLOpaqueHandle, 0, 0});
    CHECK(ffi::StringToDLDataType("i32") == DLDataType{kDLInt, 32, 1});
    CHECK(ffi::StringToDLDataType("bf16") == DLDataType{kDLBfloat, 16, 1});
    CHECK_EQ(ffi::DTypeAbbrev({kDLFloat, 16, 4}), "f16x4");
    CHECK_EQ(ffi::DLDataTypeToString({kDLBool, 8, 1}), "bool");
    CHECK_THROWS_FFI_HAS(ffi::StringToDLDataType("notadtype"), "ValueError", "notadtype");
  }
}
}  // namespace
