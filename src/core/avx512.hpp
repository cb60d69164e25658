#pragma once
// What AVX-512 code needs besides its intrinsics.
//
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

namespace secpe {

// Whether this CPU runs AVX-512 F with DQ (exact 64-bit integer <-> double conversions), which the
// secret normals' and the release's vector paths need; checked once.
inline bool avx512dq_runs_here() {
#if defined(__x86_64__)
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return available;
#else
  return false;
#endif
}

}  // namespace secpe
