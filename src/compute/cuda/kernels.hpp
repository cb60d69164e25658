#pragma once
// Launchers of the device code (kernels.cu), called by the host side (cuda_kernel.cpp). Every
// pointer is device memory; every launch is asynchronous on `stream`, and its launch error is
// thrown by the caller's CUDA_CHECK(cudaGetLastError()).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/tile_segment.hpp"
#include "compute/search_bound.hpp"

namespace secpe::cuda {

// Per-centre values the candidate selection reads (norms in double, as exact::prepare computes them).
struct CentreNorms {
  const double* norm;      // |c|
  const double* sq;        // |c|^2
  const double* inv_norm;  // 1 / |c| (cosine; 0 otherwise)
};

// For each of the `rows` rows r of a tile: g + r * n is its row of G = X C^T (float), row_norm[r]
// its norm. Picks t, the k-th smallest upper bound A + E over the centres (ties by index), then
// writes the centres with A - E <= t to cand[r * capacity ...] (any order; at most `capacity`)
// and their number to count[r] (which may exceed capacity: the row then rescores every centre).
void launch_select_candidates(const float* g, std::int64_t rows, std::int64_t n, const double* row_norm, CentreNorms centres,
                              Metric metric, bound::ScoreBound score_bound, int k, int capacity, std::int32_t* cand,
                              std::int32_t* count, cudaStream_t stream);

// For each segment s (a run of rows of `rows`, d floats each, that belong to one centre):
// sums[centre * d + j] += sum over its rows of round(x_j 2^32) (to nearest, ties to even).
// Distinct segments have distinct centres, so no two threads write one sum.
void launch_add_segments(const float* rows, std::int64_t d, const gpu::TileSegment* segments, std::int64_t n_segments,
                         std::int64_t* sums, cudaStream_t stream);

}  // namespace secpe::cuda
