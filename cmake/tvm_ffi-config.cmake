# tvm_ffi-config.cmake -- CMake package of tvm_ffi (find_package(tvm_ffi CONFIG)).
#
# Point CMake at it with the directory `python -m tvm_ffi.config --cmakedir` prints:
#
#   execute_process(COMMAND "${Python_EXECUTABLE}" -m tvm_ffi.config --cmakedir
#                   OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE tvm_ffi_ROOT)
#   find_package(tvm_ffi CONFIG REQUIRED)
#   target_link_libraries(my_ext tvm_ffi::shared)
#
# Imported targets, under the apache-tvm-ffi package's names and, as aliases, the plain names
# this package used first:
#   tvm_ffi::header  (tvm_ffi_header)   headers only (C, C++17, dlpack); enough for a library
#                    that does not want NEEDED libtvm_ffi.so (its symbols then come from the
#                    process)
#   tvm_ffi::shared  (tvm_ffi_shared)   libtvm_ffi.so, plus tvm_ffi::header
#   tvm_ffi::testing (tvm_ffi_testing)  libtvm_ffi_testing.so (the testing.* globals), when
#                    present
# Variables: tvm_ffi_INCLUDE_DIRS, tvm_ffi_LIBRARY, tvm_ffi_LIBRARY_DIR.
#
# One file serves both layouts, so it works unchanged from a source checkout:
#   installed  <pkg>/share/cmake/tvm_ffi/ -> <pkg>/include, <pkg>/lib
#   checkout   <repo>/cmake/              -> <repo>/cpp/include + <repo>/c/include, and the
#              runtime from $TVM_FFI_LIBRARY_PATH (file or directory, as for the Python
#              package), <repo>/c/.libs or <repo>/build/c/.libs
# The cache variable TVM_FFI_LIBRARY (path of libtvm_ffi) overrides the search.
cmake_minimum_required(VERSION 3.18)

if(TARGET tvm_ffi::shared AND TARGET tvm_ffi::header)
  set(tvm_ffi_FOUND TRUE)  # already defined (found twice, or add_subdirectory of the sources)
  return()
endif()

get_filename_component(_tvm_ffi_pkg "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
get_filename_component(_tvm_ffi_repo "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

if(EXISTS "${_tvm_ffi_pkg}/include/tvm/ffi/c_api.h")
  set(tvm_ffi_INCLUDE_DIRS "${_tvm_ffi_pkg}/include")
  set(_tvm_ffi_lib_hints "${_tvm_ffi_pkg}/lib")
elseif(EXISTS "${_tvm_ffi_repo}/c/include/tvm/ffi/c_api.h")
  set(tvm_ffi_INCLUDE_DIRS "${_tvm_ffi_repo}/cpp/include" "${_tvm_ffi_repo}/c/include")
  set(_tvm_ffi_lib_hints "${_tvm_ffi_repo}/c/.libs" "${_tvm_ffi_repo}/build/c/.libs")
else()
  set(tvm_ffi_FOUND FALSE)
  set(tvm_ffi_NOT_FOUND_MESSAGE
      "tvm_ffi headers not found next to ${CMAKE_CURRENT_LIST_FILE}")
  return()
endif()

if(DEFINED ENV{TVM_FFI_LIBRARY_PATH} AND NOT "$ENV{TVM_FFI_LIBRARY_PATH}" STREQUAL "")
  if(IS_DIRECTORY "$ENV{TVM_FFI_LIBRARY_PATH}")
    list(INSERT _tvm_ffi_lib_hints 0 "$ENV{TVM_FFI_LIBRARY_PATH}")
  elseif(NOT TVM_FFI_LIBRARY)
    set(TVM_FFI_LIBRARY "$ENV{TVM_FFI_LIBRARY_PATH}" CACHE FILEPATH "libtvm_ffi")
  endif()
endif()
find_library(TVM_FFI_LIBRARY NAMES tvm_ffi PATHS ${_tvm_ffi_lib_hints} NO_DEFAULT_PATH)
find_library(TVM_FFI_TESTING_LIBRARY NAMES tvm_ffi_testing PATHS ${_tvm_ffi_lib_hints}
             NO_DEFAULT_PATH)
if(NOT TVM_FFI_LIBRARY)
  set(tvm_ffi_FOUND FALSE)
  set(tvm_ffi_NOT_FOUND_MESSAGE
      "libtvm_ffi not found in ${_tvm_ffi_lib_hints}; build it (make) or set TVM_FFI_LIBRARY_PATH")
  return()
endif()
set(tvm_ffi_LIBRARY "${TVM_FFI_LIBRARY}")
get_filename_component(tvm_ffi_LIBRARY_DIR "${TVM_FFI_LIBRARY}" DIRECTORY)

# GLOBAL, so the names reach every directory of the project that found the package (upstream's
# are too, and an ALIAS of an imported target needs it to be visible there).
add_library(tvm_ffi::header INTERFACE IMPORTED GLOBAL)
set_target_properties(tvm_ffi::header PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${tvm_ffi_INCLUDE_DIRS}"
  INTERFACE_COMPILE_FEATURES cxx_std_17)

add_library(tvm_ffi::shared SHARED IMPORTED GLOBAL)
set_target_properties(tvm_ffi::shared PROPERTIES
  IMPORTED_LOCATION "${TVM_FFI_LIBRARY}"
  IMPORTED_SONAME "libtvm_ffi${CMAKE_SHARED_LIBRARY_SUFFIX}"
  INTERFACE_LINK_LIBRARIES tvm_ffi::header)
add_library(tvm_ffi_header ALIAS tvm_ffi::header)
add_library(tvm_ffi_shared ALIAS tvm_ffi::shared)

if(TVM_FFI_TESTING_LIBRARY)
  add_library(tvm_ffi::testing SHARED IMPORTED GLOBAL)
  set_target_properties(tvm_ffi::testing PROPERTIES
    IMPORTED_LOCATION "${TVM_FFI_TESTING_LIBRARY}"
    INTERFACE_LINK_LIBRARIES tvm_ffi::shared)
  add_library(tvm_ffi_testing ALIAS tvm_ffi::testing)
endif()

# tvm_ffi_configure_target(<target> [STUB_DIR <dir> [STUB_INIT ON STUB_PKG <dist>
#                          STUB_PREFIX <prefix>]]): link the headers and the runtime, C++17,
# built as lib<target>.so as upstream does, the name tvm_ffi.libinfo.load_lib_module (and so the
# generated _ffi_api.py) looks for.  With
# STUB_DIR, every build of the target refreshes the tvm-ffi-stubgen blocks under <dir> from the
# built library (python -m tvm_ffi.stub.cli --dlls <library>); STUB_INIT ON first creates
# _ffi_api.py/__init__.py for the globals and types under STUB_PREFIX, loading the library
# from the pip distribution STUB_PKG.  Uses Python_EXECUTABLE (found if unset).
function(tvm_ffi_configure_target target)
  cmake_parse_arguments(ARG "" "STUB_DIR;STUB_INIT;STUB_PKG;STUB_PREFIX" "" ${ARGN})
  if(ARG_STUB_DIR)
    if(NOT Python_EXECUTABLE)
      find_package(Python COMPONENTS Interpreter REQUIRED)
    endif()
    set(_stub_args --dlls "$<TARGET_FILE:${target}>")
    if(ARG_STUB_INIT)
      if(NOT ARG_STUB_PKG OR NOT ARG_STUB_PREFIX)
        message(FATAL_ERROR "tvm_ffi_configure_target(${target}): STUB_INIT needs STUB_PKG and STUB_PREFIX")
      endif()
      list(APPEND _stub_args --init-pypkg "${ARG_STUB_PKG}" --init-lib "${target}"
           --init-prefix "${ARG_STUB_PREFIX}")
    endif()
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${Python_EXECUTABLE}" -m tvm_ffi.stub.cli ${_stub_args} "${ARG_STUB_DIR}"
      COMMENT "tvm-ffi-stubgen: refreshing stubs in ${ARG_STUB_DIR}" VERBATIM)
  endif()
  target_link_libraries(${target} PUBLIC tvm_ffi::shared)
  target_compile_features(${target} PUBLIC cxx_std_17)
endfunction()

set(tvm_ffi_FOUND TRUE)
unset(_tvm_ffi_pkg)
unset(_tvm_ffi_repo)
unset(_tvm_ffi_lib_hints)
