#pragma once
// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_*() and then warn that the
// value is uninitialised (GCC bug 105593). Code that uses those intrinsics sits between
// SECPE_AVX512_CODE_BEGIN and SECPE_AVX512_CODE_END, which silence the two warnings there only.
#if defined(__GNUC__) && !defined(__clang__)
#define SECPE_AVX512_CODE_BEGIN                                   \
  _Pragma("GCC diagnostic push")                                  \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")     \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")
#define SECPE_AVX512_CODE_END _Pragma("GCC diagnostic pop")
#else
#define SECPE_AVX512_CODE_BEGIN
#define SECPE_AVX512_CODE_END
#endif
