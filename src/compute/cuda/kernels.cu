// Device code of the CUDA backend: the candidate selection fused onto cuBLAS's G = X C^T, and
// the segmented fixed-point sums. Kept small: it is compiled for every architecture in
// CMAKE_CUDA_ARCHITECTURES on every build.
#include "compute/cuda/kernels.hpp"

#include <climits>
#include <stdexcept>

#include "compute/impl/exact_order.hpp"
#include "compute/impl/select_order.hpp"

namespace secpe::cuda {
namespace {

constexpr int kThreads = 256;  // one block per row / per segment and column chunk

// A (value, index) pair and the block-wide minimum in the order of bound::better.
struct Best {
  double value;
  long long index;
};

__device__ Best block_min(Best mine, Best* shared) {
  const int t = threadIdx.x;
  shared[t] = mine;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (t < w && bound::better(shared[t + w].value, shared[t + w].index, shared[t].value, shared[t].index)) {
      shared[t] = shared[t + w];
    }
    __syncthreads();
  }
  const Best out = shared[0];
  __syncthreads();  // shared is reused by the next call
  return out;
}

__global__ void select_candidates(const float* __restrict__ g, std::int64_t n, const double* __restrict__ row_norm,
                                  CentreNorms centres, Metric metric, bound::ScoreBound score_bound, int k, int capacity,
                                  std::int32_t* __restrict__ cand, std::int32_t* __restrict__ count) {
  __shared__ Best shared[kThreads];
  __shared__ int found;
  const std::int64_t r = blockIdx.x;
  const float* __restrict__ gr = g + r * n;
  const double rx = row_norm[r];
  const double sq_x = rx * rx;
  const double inv_x = metric == Metric::kCosine ? 1.0 / rx : 0.0;  // rx > 0 under cosine (checked on the host)
  auto approx = [&](std::int64_t j) {
    return bound::approx_score(metric, gr[j], sq_x, centres.sq[j], inv_x, centres.inv_norm[j]);
  };
  auto error = [&](std::int64_t j) { return bound::score_error(score_bound, metric, rx, centres.norm[j], centres.inv_norm[j]); };

  // t: k rounds, each taking the smallest (upper bound, index) after the previous round's.
  Best last{-__builtin_huge_val(), -1};
  for (int round = 0; round < k; ++round) {
    Best mine{__builtin_huge_val(), LLONG_MAX};
    for (std::int64_t j = threadIdx.x; j < n; j += kThreads) {
      const double upper = approx(j) + error(j);
      if (bound::better(last.value, last.index, upper, j) && bound::better(upper, j, mine.value, mine.index)) {
        mine = {upper, j};
      }
    }
    last = block_min(mine, shared);
  }
  const double t = last.value;

  if (threadIdx.x == 0) found = 0;
  __syncthreads();
  std::int32_t* __restrict__ out = cand + r * capacity;
  for (std::int64_t j = threadIdx.x; j < n; j += kThreads) {
    if (approx(j) - error(j) <= t) {
      const int at = atomicAdd(&found, 1);
      if (at < capacity) out[at] = static_cast<std::int32_t>(j);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) count[r] = found;
}

// k = 1 in one read of the row (compute/impl/select_order.hpp): a warp per row for rows of up to
// kWarpRowLimit centres, a block per row beyond. The candidates go out through ballots (a warp)
// or a shared counter (a block), in any order, as select_candidates' do.
constexpr std::int64_t kWarpRowLimit = 4096;
constexpr int kSelectWarps = 4;  // rows per block of the warp variant

struct SelectArgs {
  const float* g;
  std::int64_t rows, n;
  const double* row_norm;
  CentreNorms centres;
  double max_norm, max_inv_norm;
  Metric metric;
  bound::ScoreBound score_bound;
  int capacity;
  std::int32_t* cand;
  std::int32_t* count;
};

// Each metric reads only the centre terms its score uses.
__device__ double approx_of(const SelectArgs& a, const float* gr, select_order::RowTerms t, std::int64_t j) {
  const double sq_c = a.metric == Metric::kL2 ? a.centres.sq[j] : 0.0;
  const double inv_c = a.metric == Metric::kCosine ? a.centres.inv_norm[j] : 0.0;
  return bound::approx_score(a.metric, gr[j], t.sq_x, sq_c, t.inv_x, inv_c);
}

__global__ void select_one_warp(SelectArgs a) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kSelectWarps + static_cast<int>(threadIdx.x) / 32;
  if (r >= a.rows) return;  // the whole warp
  const float* gr = a.g + r * a.n;
  const double rx = a.row_norm[r];
  const select_order::RowTerms terms = select_order::row_terms(a.metric, rx);
  const double width = select_order::row_width(a.score_bound, a.metric, rx, a.max_norm, a.max_inv_norm);
  select_order::Scan scan;
  for (std::int64_t j = lane; j < a.n; j += 32) scan.see(approx_of(a, gr, terms, j), static_cast<std::int32_t>(j), width);
  double m = scan.best;
  for (int offset = 16; offset > 0; offset /= 2) m = fmin(m, __shfl_xor_sync(0xffffffffu, m, offset));
  const double threshold = ieee::add_rn(m, width);
  std::int32_t* out = a.cand + r * a.capacity;
  const unsigned below = (1u << lane) - 1u;
  int found = 0;
  const auto emit = [&](bool ok, std::int32_t j) {
    const unsigned mask = __ballot_sync(0xffffffffu, ok);
    const int at = found + __popc(mask & below);
    if (ok && at < a.capacity) out[at] = j;
    found += __popc(mask);
  };
  if (!__any_sync(0xffffffffu, scan.overflow)) {
    for (int h = 0; h < select_order::kHeld; ++h) emit(h < scan.held && scan.value[h] <= threshold, h < scan.held ? scan.index[h] : 0);
  } else {  // a second read: every centre under the threshold
    for (std::int64_t j0 = 0; j0 < a.n; j0 += 32) {
      const std::int64_t j = j0 + lane;
      emit(j < a.n && approx_of(a, gr, terms, j) <= threshold, static_cast<std::int32_t>(j));
    }
  }
  if (lane == 0) a.count[r] = found;
}

__global__ void select_one_block(SelectArgs a) {
  __shared__ double mins[kThreads];
  __shared__ int found;
  const std::int64_t r = blockIdx.x;
  const float* gr = a.g + r * a.n;
  const double rx = a.row_norm[r];
  const select_order::RowTerms terms = select_order::row_terms(a.metric, rx);
  const double width = select_order::row_width(a.score_bound, a.metric, rx, a.max_norm, a.max_inv_norm);
  select_order::Scan scan;
  for (std::int64_t j = threadIdx.x; j < a.n; j += kThreads) scan.see(approx_of(a, gr, terms, j), static_cast<std::int32_t>(j), width);
  mins[threadIdx.x] = scan.best;
  if (threadIdx.x == 0) found = 0;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) mins[threadIdx.x] = fmin(mins[threadIdx.x], mins[threadIdx.x + w]);
    __syncthreads();
  }
  const double threshold = ieee::add_rn(mins[0], width);
  const bool second = __syncthreads_or(scan.overflow ? 1 : 0) != 0;
  std::int32_t* out = a.cand + r * a.capacity;
  const auto emit = [&](std::int32_t j) {
    const int at = atomicAdd(&found, 1);
    if (at < a.capacity) out[at] = j;
  };
  if (!second) {
    for (int h = 0; h < scan.held; ++h)
      if (scan.value[h] <= threshold) emit(scan.index[h]);
  } else {
    for (std::int64_t j = threadIdx.x; j < a.n; j += kThreads)
      if (approx_of(a, gr, terms, j) <= threshold) emit(static_cast<std::int32_t>(j));
  }
  __syncthreads();
  if (threadIdx.x == 0) a.count[r] = found;
}

// Block (segment, column chunk); thread j of the chunk sums column j over the segment's rows
// (coalesced: consecutive threads read consecutive floats of a row).
__global__ void add_segments(const float* __restrict__ rows, std::int64_t d, const gpu::TileSegment* __restrict__ segments,
                             std::int64_t* __restrict__ sums) {
  const gpu::TileSegment s = segments[blockIdx.x];
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (j >= d) return;
  long long acc = 0;
  for (std::int64_t i = s.begin; i < s.end; ++i) acc += __double2ll_rn(static_cast<double>(rows[i * d + j]) * 4294967296.0);
  sums[static_cast<std::int64_t>(s.centre) * d + j] += acc;
}

// One warp per row: the lanes rescore the row's candidates (lane q: candidates q, q + 32, ...),
// keep the scores in shared memory, then take the k best in rounds, each round a warp-wide
// minimum after the previous winner (compute/impl/exact_order.hpp, emulated on the CPU in its test).
constexpr int kRescoreWarps = 4;

__device__ exact_order::Scored warp_min(exact_order::Scored mine) {
  for (int offset = exact_order::kLanes / 2; offset > 0; offset /= 2) {
    const exact_order::Scored other{__shfl_down_sync(0xffffffffu, mine.score, offset),
                                    __shfl_down_sync(0xffffffffu, mine.index, offset)};
    mine = exact_order::combine(mine, other);
  }
  return {__shfl_sync(0xffffffffu, mine.score, 0), __shfl_sync(0xffffffffu, mine.index, 0)};
}

__global__ void rescore(DeviceRows x, std::int64_t row0, std::int64_t rows, DeviceRows c, Metric metric, int k, int capacity,
                        const std::int32_t* __restrict__ cand, const std::int32_t* __restrict__ count,
                        std::int32_t* __restrict__ nearest, double* __restrict__ score) {
  __shared__ double scores[kRescoreWarps][kMaxCapacity];
  const int warp = static_cast<int>(threadIdx.x) / exact_order::kLanes, lane = static_cast<int>(threadIdx.x) % exact_order::kLanes;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kRescoreWarps + warp;
  if (r >= rows) return;  // the whole warp: r is the same for its lanes
  const int found = count[r];
  if (found > capacity || found < k) {  // overflowed (found < k cannot happen: the k best bounds are in)
    if (lane == 0) nearest[r * k] = -1;
    return;
  }
  const std::int32_t* ids = cand + r * capacity;
  const std::int64_t i = row0 + r;
  const float* xi = x.data + i * x.d;
  const double rx = x.norms.norm[i];
  for (int q = lane; q < found; q += exact_order::kLanes) {
    const std::int64_t j = ids[q];
    scores[warp][q] = exact_order::pair_score(metric, xi, c.data + j * c.d, c.d, rx, c.norms.norm[j]);
  }
  __syncwarp();
  exact_order::Scored last = exact_order::before_all();
  for (int round = 0; round < k; ++round) {
    last = warp_min(exact_order::lane_best(scores[warp], ids, found, lane, last));
    if (lane == 0) {
      nearest[r * k + round] = static_cast<std::int32_t>(last.index);
      score[r * k + round] = last.score;
    }
  }
}

// Block (run, column chunk), as add_segments, reading the rows where they are kept through
// `order` and adding into the sums with integer atomics (a centre may have several runs).
__global__ void add_kept(const float* __restrict__ rows, std::int64_t d, const std::int64_t* __restrict__ order,
                         const gpu::TileSegment* __restrict__ runs, std::int64_t* __restrict__ sums) {
  const gpu::TileSegment s = runs[blockIdx.x];
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (j >= d) return;
  long long acc = 0;
  for (std::int32_t p = s.begin; p < s.end; ++p) acc += __double2ll_rn(static_cast<double>(rows[order[p] * d + j]) * 4294967296.0);
  atomicAdd(reinterpret_cast<unsigned long long*>(sums + static_cast<std::int64_t>(s.centre) * d + j), static_cast<unsigned long long>(acc));
}

}  // namespace

void launch_rescore(DeviceRows x, std::int64_t row0, std::int64_t rows, DeviceRows c, Metric metric, int k, int capacity,
                    const std::int32_t* cand, const std::int32_t* count, std::int32_t* nearest, double* score,
                    cudaStream_t stream) {
  if (rows <= 0) return;
  if (k < 1 || k > kMaxDeviceK || capacity > kMaxCapacity) throw std::logic_error("device rescoring: k or the candidate list too large");
  const std::int64_t blocks = (rows + kRescoreWarps - 1) / kRescoreWarps;
  if (blocks > INT_MAX) throw std::length_error("device rescoring: too many rows in one tile");
  rescore<<<static_cast<unsigned>(blocks), kRescoreWarps * exact_order::kLanes, 0, stream>>>(x, row0, rows, c, metric, k, capacity,
                                                                                             cand, count, nearest, score);
}

void launch_add_kept(const float* rows, std::int64_t d, const std::int64_t* order, const gpu::TileSegment* runs,
                     std::int64_t n_runs, std::int64_t* sums, cudaStream_t stream) {
  if (n_runs <= 0 || d <= 0) return;
  const std::int64_t chunks = (d + kThreads - 1) / kThreads;
  if (chunks > 65535 || n_runs > INT_MAX) throw std::length_error("per-centre sums on the GPU: too many dimensions or runs");
  const dim3 grid(static_cast<unsigned>(n_runs), static_cast<unsigned>(chunks));
  add_kept<<<grid, kThreads, 0, stream>>>(rows, d, order, runs, sums);
}

void launch_select_candidates(const float* g, std::int64_t rows, std::int64_t n, const double* row_norm, CentreNorms centres,
                              Metric metric, bound::ScoreBound score_bound, int k, int capacity, std::int32_t* cand,
                              std::int32_t* count, cudaStream_t stream) {
  if (rows <= 0) return;
  select_candidates<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(g, n, row_norm, centres, metric, score_bound, k,
                                                                          capacity, cand, count);
}

void launch_select_one(const float* g, std::int64_t rows, std::int64_t n, const double* row_norm, CentreNorms centres, double max_norm,
                       double max_inv_norm, Metric metric, bound::ScoreBound score_bound, int capacity, std::int32_t* cand,
                       std::int32_t* count, cudaStream_t stream) {
  if (rows <= 0) return;
  const SelectArgs args{g, rows, n, row_norm, centres, max_norm, max_inv_norm, metric, score_bound, capacity, cand, count};
  if (n <= kWarpRowLimit) {
    const std::int64_t blocks = (rows + kSelectWarps - 1) / kSelectWarps;
    if (blocks > INT_MAX) throw std::length_error("candidate selection: too many rows in one tile");
    select_one_warp<<<static_cast<unsigned>(blocks), kSelectWarps * 32, 0, stream>>>(args);
  } else {
    if (rows > INT_MAX) throw std::length_error("candidate selection: too many rows in one tile");
    select_one_block<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(args);
  }
}

void launch_add_segments(const float* rows, std::int64_t d, const gpu::TileSegment* segments, std::int64_t n_segments,
                         std::int64_t* sums, cudaStream_t stream) {
  if (n_segments <= 0 || d <= 0) return;
  const std::int64_t chunks = (d + kThreads - 1) / kThreads;
  if (chunks > 65535) throw std::length_error("per-centre sums on the GPU: more than 16 million dimensions");  // grid.y's limit
  const dim3 grid(static_cast<unsigned>(n_segments), static_cast<unsigned>(chunks));
  add_segments<<<grid, kThreads, 0, stream>>>(rows, d, segments, sums);
}

}  // namespace secpe::cuda
