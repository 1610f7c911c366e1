/*
 * tvm/ffi/extra/base64.h -- base64 (RFC 4648, "+/" alphabet, "=" padding)
 * between bytes and text, as the releases' header of this name declares it:
 * Base64Encode(bytes) -> String, Base64Decode(text) -> Bytes.  Decoding
 * rejects text whose length is not a multiple of 4 or that holds a character
 * outside the alphabet or misplaced padding, with a ValueError.
 */
#ifndef TVM_FFI_EXTRA_BASE64_H_
#define TVM_FFI_EXTRA_BASE64_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <cstddef>
#include <cstdint>
#include <string>

TVM_FFI_NS_BEGIN

inline String Base64Encode(TVMFFIByteArray bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char* in = reinterpret_cast<const unsigned char*>(bytes.data);
  std::string out;
  out.reserve((bytes.size + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size; i += 3) {
    size_t n = bytes.size - i < 3 ? bytes.size - i : 3;
    uint32_t group = static_cast<uint32_t>(in[i]) << 16;
    if (n > 1) group |= static_cast<uint32_t>(in[i + 1]) << 8;
    if (n > 2) group |= in[i + 2];
    // n input bytes give n + 1 characters; '=' pads the group to 4
    for (size_t k = 0; k < 4; ++k)
      out.push_back(k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 63] : '=');
  }
  return String(out);
}

inline String Base64Encode(const Bytes& data) {
  return Base64Encode(TVMFFIByteArray{data.data(), data.size()});
}

inline Bytes Base64Decode(TVMFFIByteArray text) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size % 4 != 0) {
    TVM_FFI_THROW(ValueError) << "Base64Decode: the length of base64 text must be a multiple of 4, "
                              << "got " << text.size;
  }
  std::string out;
  out.reserve(text.size / 4 * 3);
  for (size_t i = 0; i < text.size; i += 4) {
    // padding only at the end of the last group: "xx==" or "xxx="
    size_t pad = 0;
    if (i + 4 == text.size) pad = text.data[i + 3] != '=' ? 0 : text.data[i + 2] == '=' ? 2 : 1;
    uint32_t group = 0;
    for (size_t k = 0; k < 4; ++k) {
      int v = k < 4 - pad ? value_of(text.data[i + k]) : 0;
      if (v < 0) {
        TVM_FFI_THROW(ValueError) << "Base64Decode: invalid character at offset " << (i + k)
                                  << " of the base64 text";
      }
      group = (group << 6) | static_cast<uint32_t>(v);
    }
    for (size_t k = 0; k < 3 - pad; ++k)
      out.push_back(static_cast<char>((group >> (16 - 8 * k)) & 255));
  }
  return Bytes(out);
}

inline Bytes Base64Decode(const String& text) {
  return Base64Decode(TVMFFIByteArray{text.data(), text.size()});
}

TVM_FFI_NS_END

#endif  // TVM_FFI_EXTRA_BASE64_H_
