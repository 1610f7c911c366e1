/*
 * tvm/ffi/base_details.h -- compiler helpers and the static-init macro.
 *
 * Header-only C++17 layer over the C ABI in <tvm/ffi/c_api.h>.  Everything
 * lives in namespace tvm::ffi; an inline namespace (`cimpl`) gives our
 * classes their own mangled names so that a process may also hold binaries
 * built against other implementations of these headers without ODR clashes.
 */
#ifndef TVM_FFI_BASE_DETAILS_H_
#define TVM_FFI_BASE_DETAILS_H_

#include <tvm/ffi/c_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#if defined(_MSC_VER)
#define TVM_FFI_INLINE [[msvc::forceinline]] inline
#define TVM_FFI_NO_INLINE __declspec(noinline)
#define TVM_FFI_UNREACHABLE() __assume(false)
#define TVM_FFI_COLD_CODE
#define TVM_FFI_COLD_UNOPT
#define TVM_FFI_PREDICT_FALSE(x) (x)
#define TVM_FFI_PREDICT_TRUE(x) (x)
#define TVM_FFI_FUNC_SIG __FUNCSIG__
#else
#define TVM_FFI_INLINE inline __attribute__((always_inline))
#define TVM_FFI_NO_INLINE __attribute__((noinline))
#define TVM_FFI_UNREACHABLE() __builtin_unreachable()
#define TVM_FFI_COLD_CODE __attribute__((cold))
/* Our own cold code (error text, signatures, schemas, registration) runs at most once per
 * error or load, so it is built without optimization: -O2 on it was 3-4 % of a kernel TU's
 * compile time (bench/README.md, C++ layer).  TVM_FFI_COLD_CODE, upstream's name that user
 * code may use, stays a plain hint.  Not under nvcc or classic icc, which may not know the
 * attributes; GCC also builds a lambda written inside such a function at -O0, so hot code
 * must not be defined inside one. */
#if defined(__NVCC__) || defined(__INTEL_COMPILER)
#define TVM_FFI_COLD_UNOPT __attribute__((cold))
#elif defined(__clang__)
#define TVM_FFI_COLD_UNOPT __attribute__((cold, noinline, optnone))
#else
#define TVM_FFI_COLD_UNOPT __attribute__((cold, optimize("O0")))
#endif
#define TVM_FFI_PREDICT_FALSE(x) __builtin_expect(!!(x), 0)
#define TVM_FFI_PREDICT_TRUE(x) __builtin_expect(!!(x), 1)
#define TVM_FFI_FUNC_SIG __PRETTY_FUNCTION__
#endif

#define TVM_FFI_STR_CONCAT_(a, b) a##b
#define TVM_FFI_STR_CONCAT(a, b) TVM_FFI_STR_CONCAT_(a, b)

/* Opens/closes the namespace all public classes live in. */
#define TVM_FFI_NS_BEGIN \
  namespace tvm {        \
  namespace ffi {        \
  inline namespace cimpl {
#define TVM_FFI_NS_END \
  }                    \
  }                    \
  }

#define TVM_FFI_DEFINE_DEFAULT_COPY_MOVE_AND_ASSIGN(TypeName) \
  TypeName(const TypeName&) = default;                        \
  TypeName(TypeName&&) = default;                             \
  TypeName& operator=(const TypeName&) = default;             \
  TypeName& operator=(TypeName&&) = default

/*
 * TVM_FFI_STATIC_INIT_BLOCK() { body }   -- the 0.1.x form
 * TVM_FFI_STATIC_INIT_BLOCK({ body });   -- the older form (packaging guide)
 * Both expand to a uniquely named static function that runs at load time:
 * the old form's braces simply become the function body (commas inside
 * the body are fine because the macro is variadic).
 */
#if defined(_MSC_VER)
#define TVM_FFI_STATIC_INIT_BLOCK_IMPL_(Fn, ...)             \
  static void Fn();                                          \
  static const int TVM_FFI_STR_CONCAT(Fn, _reg) = (Fn(), 0); \
  static void Fn() __VA_ARGS__
#else
#define TVM_FFI_STATIC_INIT_BLOCK_IMPL_(Fn, ...) \
  __attribute__((constructor)) static void Fn() __VA_ARGS__
#endif
#define TVM_FFI_STATIC_INIT_BLOCK(...)                                                     \
  TVM_FFI_STATIC_INIT_BLOCK_IMPL_(TVM_FFI_STR_CONCAT(__tvm_ffi_static_init_, __COUNTER__), \
                                  __VA_ARGS__)

/* try/catch that reports and exits: for code that must not throw (destructors of globals). */
#define TVM_FFI_LOG_EXCEPTION_CALL_BEGIN() try {
#define TVM_FFI_LOG_EXCEPTION_CALL_END(Name)                     \
  }                                                              \
  catch (const std::exception& err) {                            \
    ::tvm::ffi::details::LogExceptionAndExit(#Name, err.what()); \
  }

#ifndef TVM_FFI_ALWAYS_LOG_BEFORE_THROW
#define TVM_FFI_ALWAYS_LOG_BEFORE_THROW 0
#endif

TVM_FFI_NS_BEGIN
/*! \brief Tag: build an ObjectRef-like value holding null even if it is non-nullable. */
struct UnsafeInit {};
namespace details {
/*! \brief Always-false value for static_assert in discarded branches. */
template <typename...>
inline constexpr bool always_false_v = false;
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void LogExceptionAndExit(const char* name,
                                                                     const char* what) {
  std::fprintf(stderr, "Exception caught during %s:\n%s\n", name, what);
  std::exit(-1);
}
}  // namespace details
/* Upstream's headers name the internals namespace `detail`; code reaching them compiles. */
namespace detail = details;
TVM_FFI_NS_END

#endif  // TVM_FFI_BASE_DETAILS_H_
