#pragma once
// The secret normal's common case (core/secret_normal.hpp), several draws at a time: a release
// draws hundreds of normals per centre from one stream (SecretRng::normals), and one draw at a
// time spends more on the ziggurat's branches and table loads than ChaCha20 spends on its words.
// Each path does the scalar draw's operations in the same order, so all give the same bits; the
// tests compare every path this CPU runs with the scalar one.
#include <cstddef>
#include <cstdint>

#include "core/secret_normal.hpp"

namespace secpe {

enum class NormalPath { kScalar, kAvx2, kAvx512 };

// The widest path this CPU runs (AVX-512 with DQ, AVX2, or scalar).
NormalPath fastest_normal_path();
bool runs_here(NormalPath path);

// One draw per word of w[0 .. n): out[k] = u x[i] while word k's draw lies inside its layer's
// rectangle (secret_normal's first test). Returns the first k whose draw does not (n if none):
// that draw, with the words after it, is secret_normal's to finish. `path` must run here.
std::size_t rectangle_normals(NormalPath path, const std::uint64_t* w, std::size_t n, const SecretZiggurat& z, double* out);

}  // namespace secpe
