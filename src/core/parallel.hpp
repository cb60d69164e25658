#pragma once
// A minimal fork-join helper for the CPU code paths (k-means sums, noise, synthetic data).
// Results never depend on the number of chunks: callers give each chunk a fixed share of the
// work and combine partial results exactly (integers) or in a fixed order.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

namespace secpe {

// Worker threads when none is given: SECPE_THREADS if set (a positive integer; InputError
// otherwise), else the hardware's. Commands pass --threads explicitly; this is the fallback.
int default_threads();

// Chunks worth starting for n items of `cost` operations each: at most `threads`, and none
// smaller than about 2^17 operations (a thread costs more than that).
inline int chunk_count(int threads, std::size_t n, double cost) {
  const double useful = std::floor(double(n) * cost / double(1 << 17));
  return static_cast<int>(std::max(1.0, std::min({double(threads), useful, double(n)})));
}

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
