#pragma once
// The host-side planning of the CUDA backend: pure functions on sizes and indices, compiled in
// every build and tested on the CPU (tests/unit/gpu_plan_test.cpp), so that what the device code
// is given (tile sizes, segments, the device) is checked even where no GPU is.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/impl/tile_segment.hpp"

namespace secpe::gpu {

// The launcher's local rank of this process on its node: OMPI_COMM_WORLD_LOCAL_RANK (Open MPI),
// else SLURM_LOCALID (srun), else MPI_LOCALRANKID (MPICH); 0 when none is set or readable.
int local_rank_from_env();
// One GPU per local rank: local_rank mod devices (devices > 0).
int device_for_local_rank(int local_rank, int devices);

// Candidates kept per row on the device before a row falls back to rescoring every centre
// (a tie among many centres): enough for the usual handful near the best.
std::size_t candidate_capacity(std::size_t k);

// Rows per search tile, so that one tile's device buffers (its rows, their block of G = X C^T in
// float, norms, candidates and counts) fit in tile_bytes: at least 1, at most m (m > 0).
std::size_t search_tile_rows(std::size_t tile_bytes, std::size_t n_centres, std::size_t dim, std::size_t capacity,
                             std::size_t m);
// Rows per tile of add_to_centres (rows and their segment list): at least 1, at most n (n > 0).
std::size_t sum_tile_rows(std::size_t tile_bytes, std::size_t dim, std::size_t n);

// Rows grouped by centre (a counting sort, stable): order[offsets[c] .. offsets[c+1]) are the
// included rows of centre c in ascending order. std::out_of_range for a centre outside [0, k).
struct CentreSegments {
  std::vector<std::int64_t> order;
  std::vector<std::int64_t> offsets;  // k + 1 entries
};
CentreSegments segment_by_centre(std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                                 std::size_t k);

// The non-empty runs of the tile, by ascending centre; each centre at most once, so the device
// adds each run into its centre's sums without atomics.
std::vector<TileSegment> tile_segments(const CentreSegments& segments, std::int64_t p0, std::int64_t p1);

// Runs of at most max_rows positions of segments.order each (positions counted from 0), by
// ascending centre, covering every position once: the work items of the per-centre sums of kept
// rows, which the device reads where they are kept (no tiles) and adds with integer atomics (so
// a centre may have several runs). std::length_error beyond 2^31 - 1 positions (int32 offsets).
std::vector<TileSegment> split_runs(const CentreSegments& segments, std::size_t max_rows);

// Whether `bytes` of kept rows stay in device memory: at most `free_bytes` (what the device has
// free) less `reserve_bytes` (kept free for the searches' tiles, centres and results). Rows that
// do not fit stream through in tiles instead, as rows used once do.
bool fits_on_device(std::size_t bytes, std::size_t free_bytes, std::size_t reserve_bytes);

// Byte offsets of consecutive blocks in one buffer, each starting at a multiple of `align` (a
// power of two): one upload (or download) for a whole batch. offsets has one entry per block.
struct Packing {
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
};
Packing pack(std::span<const std::size_t> bytes, std::size_t align);
// The alignment of every block the CUDA backend packs (256 bytes: cudaMalloc's, so that each block
// may be read as any type).
inline constexpr std::size_t kPackAlign = 256;

}  // namespace secpe::gpu
