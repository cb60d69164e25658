#pragma once
// A minimal fork-join helper for the CPU code paths (k-means sums, noise, synthetic data).
// Results never depend on the number of chunks: callers give each chunk a fixed share of the
// work and combine partial results exactly (integers) or in a fixed order.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace secpe {

// f(chunk, begin, end) over `chunks` contiguous pieces of [0, n), one thread each. f must not throw.
template <typename F>
inline void run_chunks(int chunks, std::size_t n, F&& f) {
  // Never more chunks than items: a thread for an empty chunk costs more than small work (one
  // centre's noise, say) itself.
  const std::size_t c = std::min(static_cast<std::size_t>(std::max(1, chunks)), std::max<std::size_t>(n, 1));
  const std::size_t per = (n + c - 1) / c;
  if (c == 1 || per == 0) {
    f(0, std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(c - 1);
  try {
    for (std::size_t q = 1; q < c; ++q) {
      const std::size_t b = std::min(n, q * per), e = std::min(n, b + per);
      pool.emplace_back([&f, q, b, e] { f(static_cast<int>(q), b, e); });
    }
  } catch (...) {  // no thread to be had: wait for those started, then report
    for (auto& t : pool) t.join();
    throw;
  }
  f(0, std::size_t{0}, std::min(n, per));
  for (auto& t : pool) t.join();
}

}  // namespace secpe
