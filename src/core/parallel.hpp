#pragma once
// A minimal fork-join helper for the CPU code paths (k-means sums, noise, synthetic data).
// Results never depend on the number of chunks: callers give each chunk a fixed share of the
// work and combine partial results exactly (integers) or in a fixed order.
//
// The chunks run on a pool of worker threads started once per process (core/parallel.cpp) and on
// the calling thread: starting a thread costs about 0.1 ms of CPU (its stack mapped, faulted in
// and unmapped again), which a release of 50 labels x 2 parallel loops x 16 threads paid 1,600
// times per iteration (0.17 s on a 16-core node, for 0.01 s of work). The caller claims chunks
// too, so a run_chunks inside a chunk (nested) always finishes, whatever the pool is doing.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>

namespace secpe {

// Worker threads when none is given: SECPE_THREADS if set (a positive integer; InputError
// otherwise), else the hardware's. Commands pass --threads explicitly; this is the fallback.
int default_threads();

// Chunks worth starting for n items of `cost` operations each: at most `threads`, and none
// smaller than about 2^17 operations (handing out a chunk costs more than that).
inline int chunk_count(int threads, std::size_t n, double cost) {
  const double useful = std::floor(double(n) * cost / double(1 << 17));
  return static_cast<int>(std::max(1.0, std::min({double(threads), useful, double(n)})));
}

namespace detail {
// body(q) for every q in [0, count), on the pool's workers (at most count - 1 of them) and the
// calling thread; returns when every call has returned. body must not throw.
void run_on_pool(std::size_t count, const std::function<void(std::size_t)>& body);
}  // namespace detail

// f(chunk, begin, end) over `chunks` contiguous pieces of [0, n), concurrently. f must not throw.
template <typename F>
inline void run_chunks(int chunks, std::size_t n, F&& f) {
  // Never more chunks than items: handing out an empty chunk costs more than small work (one
  // centre's noise, say) itself.
  const std::size_t c = std::min(static_cast<std::size_t>(std::max(1, chunks)), std::max<std::size_t>(n, 1));
  const std::size_t per = (n + c - 1) / c;
  if (c == 1 || per == 0) {
    f(0, std::size_t{0}, n);
    return;
  }
  detail::run_on_pool(c, [&](std::size_t q) {
    const std::size_t b = std::min(n, q * per), e = std::min(n, b + per);
    f(static_cast<int>(q), b, e);
  });
}

}  // namespace secpe
