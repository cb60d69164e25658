#pragma once
// Launchers of the device code (kernels.cu), called by the host side (cuda_kernel.cpp). Every
// pointer is device memory; every launch is asynchronous on `stream`, and its launch error is
// thrown by the caller's CUDA_CHECK(cudaGetLastError()).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/impl/tile_segment.hpp"
#include "compute/impl/search_bound.hpp"
#include "compute/impl/noisy_means_label.hpp"

namespace secpe::cuda {

// Per-row values of a matrix on the device (norms in double, as exact::norms computes them).
struct Norms {
  const double* norm;      // |r|
  const double* sq;        // |r|^2
  const double* inv_norm;  // 1 / |r| (cosine; 0 otherwise)
};
using CentreNorms = Norms;

// A matrix on the device: `rows` rows of d floats, row-major, with their norms.
struct DeviceRows {
  const float* data;
  std::int64_t rows;
  std::int64_t d;
  Norms norms;
};

// Device rescoring handles k up to this many results per row (the candidate lists of larger k
// are rescored on the host); its lists hold at most kMaxCapacity candidates (gpu::candidate_capacity).
inline constexpr int kMaxDeviceK = 16;
inline constexpr int kMaxCapacity = 32 + 4 * kMaxDeviceK;

// For each of the `rows` rows r of a tile: g + r * n is its row of G = X C^T (float), row_norm[r]
// its norm. Picks t, the k-th smallest upper bound A + E over the centres (ties by index), then
// writes the centres with A - E <= t to cand[r * capacity ...] (any order; at most `capacity`)
// and their number to count[r] (which may exceed capacity: the row then rescores every centre).
void launch_select_candidates(const float* g, std::int64_t rows, std::int64_t n, const double* row_norm, CentreNorms centres,
                              Metric metric, bound::ScoreBound score_bound, int k, int capacity, std::int32_t* cand,
                              std::int32_t* count, cudaStream_t stream);

// k = 1: launch_select_candidates' candidates in one read of each row (compute/impl/select_order.hpp),
// with one error bound per row from the centres' largest norm and inverse norm (max_norm,
// max_inv_norm: 1 / the smallest norm under cosine, else 0): a superset of its candidates.
void launch_select_one(const float* g, std::int64_t rows, std::int64_t n, const double* row_norm, CentreNorms centres, double max_norm,
                       double max_inv_norm, Metric metric, bound::ScoreBound score_bound, int capacity, std::int32_t* cand,
                       std::int32_t* count, cudaStream_t stream);

// For rows row0 .. row0 + rows - 1 of x, with cand/count as launch_select_candidates wrote them
// for that tile (row r's list at cand + r * capacity): each listed centre of c rescored exactly
// (compute/impl/exact_order.hpp: exact::pair_score's bits), and the k best, in the order of
// bound::better, written to nearest[r * k + j], score[r * k + j]. A row whose list overflowed
// (count > capacity) gets nearest[r * k] = -1: the host rescores it against every centre.
// k <= kMaxDeviceK, capacity <= kMaxCapacity.
void launch_rescore(DeviceRows x, std::int64_t row0, std::int64_t rows, DeviceRows c, Metric metric, int k, int capacity,
                    const std::int32_t* cand, const std::int32_t* count, std::int32_t* nearest, double* score,
                    cudaStream_t stream);

// For each run s (gpu::split_runs: positions s.begin .. s.end - 1 of `order`, rows of centre
// s.centre): sums[centre * d + j] += sum over its rows i = order[p] of round(rows[i * d + j] 2^32)
// (to nearest, ties to even), added with 64-bit integer atomics: exact, in any order.
void launch_add_kept(const float* rows, std::int64_t d, const std::int64_t* order, const gpu::TileSegment* runs,
                     std::int64_t n_runs, std::int64_t* sums, cudaStream_t stream);

// For each segment s (a run of rows of `rows`, d floats each, that belong to one centre):
// sums[centre * d + j] += sum over its rows of round(x_j 2^32) (to nearest, ties to even).
// Distinct segments have distinct centres, so no two threads write one sum.
void launch_add_segments(const float* rows, std::int64_t d, const gpu::TileSegment* segments, std::int64_t n_segments,
                         std::int64_t* sums, cudaStream_t stream);

// Every centre of `labels` (centre0 ascending, `centres` in all) released by
// privacy/centre_release.hpp: one thread per centre sums its rows in fixed point and draws its
// secret stream (chacha20::BlockStream, core/secret_normal.hpp with `tables`).
void launch_release(const NoisyMeansLabel* labels, int n_labels, std::int64_t centres, const SecretZiggurat* tables,
                    cudaStream_t stream);

}  // namespace secpe::cuda
