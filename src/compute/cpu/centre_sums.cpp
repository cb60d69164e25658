// The CPU per-centre fixed-point sum (NearestCentreKernel::add_to_centres): rows are split into
// chunks, each chunk sums into its own integer buffer, and the buffers are added in chunk order.
// Integer addition is exact, so the result is the same for any chunking. Each extra chunk costs a
// K x d buffer to clear and add, so unless the included rows outnumber the centres several times
// over, the threads split the centres instead: each scans every row and adds those of its own
// centres straight into the output (a few rows into many centres: k-means of a small label).
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "compute/impl/fast_float.hpp"
#include "compute/impl/fixed_point.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe {

void add_fixed_point(std::int64_t* sums, const float* x, Eigen::Index d) {
  // Rows with a coordinate of 2^19 or more would overflow the vectorised conversion
  // (|x 2^32| < 2^51); they take std::llrint, which rounds the same way.
  constexpr std::uint32_t big_bits = std::bit_cast<std::uint32_t>(524288.0f);
  if (fast::max_abs_bits(x, d) < big_bits) {
    fast::add_rounded(sums, x, d, kFixedPointScale);
  } else {
    for (Eigen::Index j = 0; j < d; ++j) sums[j] += std::llrint(static_cast<double>(x[j]) * kFixedPointScale);
  }
}

void NearestCentreKernel::add_to_centres(const MatrixF& x, std::span<const std::int32_t> centre_of,
                                         std::span<const std::uint8_t> include, std::span<std::int64_t> sums,
                                         std::span<std::int64_t> counts) const {
  const auto n = static_cast<std::size_t>(x.rows());
  const Eigen::Index d = x.cols();
  const std::size_t k = counts.size();
  if (centre_of.size() != n || (!include.empty() && include.size() != n) || sums.size() != k * static_cast<std::size_t>(d)) {
    throw std::logic_error("add_to_centres: sizes do not match");
  }
  constexpr std::size_t kRowsPerCentreToSplit = 8;
  const std::size_t included = include.empty() ? n : static_cast<std::size_t>(std::count(include.begin(), include.end(), 1));
  // Rows [b, e) of the centres [cb, ce) into s and cnt (indexed by centre).
  const auto add_rows = [&](std::size_t b, std::size_t e, std::size_t cb, std::size_t ce, std::int64_t* s, std::int64_t* cnt) {
    for (std::size_t i = b; i < e; ++i) {
      if (!include.empty() && !include[i]) continue;
      const auto c = static_cast<std::size_t>(centre_of[i]);
      if (c < cb || c >= ce) continue;
      ++cnt[c];
      add_fixed_point(s + c * static_cast<std::size_t>(d), x.row(static_cast<Eigen::Index>(i)).data(), d);
    }
  };
  if (included < kRowsPerCentreToSplit * k) {
    const double per_centre = 2.0 * double(d) * double(included) / double(std::max<std::size_t>(k, 1));
    run_chunks(chunk_count(threads(), k, per_centre), k, [&](int, std::size_t cb, std::size_t ce) {
      add_rows(0, n, cb, ce, sums.data(), counts.data());
    });
    return;
  }
  const int chunks = chunk_count(threads(), n, 2.0 * double(d));
  const std::size_t stride = sums.size() + k;  // per chunk: sums, then counts
  std::vector<std::int64_t> partial(stride * static_cast<std::size_t>(chunks), 0);
  run_chunks(chunks, n, [&](int q, std::size_t b, std::size_t e) {
    std::int64_t* s = partial.data() + stride * static_cast<std::size_t>(q);
    add_rows(b, e, 0, k, s, s + sums.size());
  });
  for (int q = 0; q < chunks; ++q) {
    const std::int64_t* s = partial.data() + stride * static_cast<std::size_t>(q);
    for (std::size_t j = 0; j < sums.size(); ++j) sums[j] += s[j];
    for (std::size_t c = 0; c < k; ++c) counts[c] += s[sums.size() + c];
  }
}

}  // namespace secpe
