#include "compute/impl/gpu_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace secpe::gpu {

int local_rank_from_env() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < (1L << 20)) return static_cast<int>(rank);
  }
  return 0;
}

int device_for_local_rank(int local_rank, int devices) { return devices > 0 ? local_rank % devices : 0; }

std::size_t candidate_capacity(std::size_t k) { return 32 + 4 * k; }

std::size_t search_tile_rows(std::size_t tile_bytes, std::size_t n_centres, std::size_t dim, std::size_t capacity,
                             std::size_t m) {
  // float G row and row of X, the row's norm (double), candidates (int32) and count (int32).
  const std::size_t per_row = 4 * n_centres + 4 * dim + 8 + 4 * capacity + 4;
  // Also at most 2^31 - 1 entries of G, so cuBLAS's int arguments and offsets stay in range.
  const std::size_t by_gemm = std::max<std::size_t>(1, ((std::size_t{1} << 31) - 1) / std::max<std::size_t>(n_centres, 1));
  return std::clamp<std::size_t>(std::min(tile_bytes / per_row, by_gemm), 1, m);
}

std::size_t sum_tile_rows(std::size_t tile_bytes, std::size_t dim, std::size_t n) {
  const std::size_t per_row = 4 * dim + sizeof(TileSegment);  // a row, and at worst a segment of its own
  const std::size_t by_index = std::size_t{1} << 30;         // TileSegment's int32 row offsets
  return std::clamp<std::size_t>(std::min(tile_bytes / per_row, by_index), 1, n);
}

CentreSegments segment_by_centre(std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                                 std::size_t k) {
  CentreSegments s;
  s.offsets.assign(k + 1, 0);
  const auto included = [&](std::size_t i) { return include.empty() || include[i] != 0; };
  for (std::size_t i = 0; i < centre_of.size(); ++i) {
    if (!included(i)) continue;
    const std::int32_t c = centre_of[i];
    if (c < 0 || static_cast<std::size_t>(c) >= k) {
      throw std::out_of_range("add_to_centres: row " + std::to_string(i) + " belongs to no centre of " + std::to_string(k));
    }
    ++s.offsets[static_cast<std::size_t>(c) + 1];
  }
  for (std::size_t c = 0; c < k; ++c) s.offsets[c + 1] += s.offsets[c];
  s.order.resize(static_cast<std::size_t>(s.offsets[k]));
  std::vector<std::int64_t> next(s.offsets.begin(), s.offsets.end() - 1);
  for (std::size_t i = 0; i < centre_of.size(); ++i) {
    if (included(i)) s.order[static_cast<std::size_t>(next[static_cast<std::size_t>(centre_of[i])]++)] = static_cast<std::int64_t>(i);
  }
  return s;
}

std::vector<TileSegment> tile_segments(const CentreSegments& segments, std::int64_t p0, std::int64_t p1) {
  std::vector<TileSegment> out;
  const auto& off = segments.offsets;
  // The first centre whose run ends after p0.
  auto c = static_cast<std::size_t>(std::upper_bound(off.begin(), off.end(), p0) - off.begin());
  for (c = c == 0 ? 0 : c - 1; c + 1 < off.size() && off[c] < p1; ++c) {
    const std::int64_t b = std::max(off[c], p0), e = std::min(off[c + 1], p1);
    if (b < e) out.push_back({static_cast<std::int32_t>(c), static_cast<std::int32_t>(b - p0), static_cast<std::int32_t>(e - p0)});
  }
  return out;
}

std::vector<TileSegment> split_runs(const CentreSegments& segments, std::size_t max_rows) {
  const auto& off = segments.offsets;
  if (!off.empty() && off.back() > std::numeric_limits<std::int32_t>::max()) {
    throw std::length_error("per-centre sums on the GPU: more than 2^31 - 1 rows");
  }
  const auto step = static_cast<std::int64_t>(std::max<std::size_t>(max_rows, 1));
  std::vector<TileSegment> out;
  for (std::size_t c = 0; c + 1 < off.size(); ++c) {
    for (std::int64_t b = off[c]; b < off[c + 1]; b += step) {
      out.push_back({static_cast<std::int32_t>(c), static_cast<std::int32_t>(b), static_cast<std::int32_t>(std::min(b + step, off[c + 1]))});
    }
  }
  return out;
}

bool fits_on_device(std::size_t bytes, std::size_t free_bytes, std::size_t reserve_bytes) {
  return free_bytes > reserve_bytes && bytes <= free_bytes - reserve_bytes;
}

Packing pack(std::span<const std::size_t> bytes, std::size_t align) {
  Packing p;
  for (const std::size_t b : bytes) {
    p.total = (p.total + align - 1) & ~(align - 1);
    p.offsets.push_back(p.total);
    p.total += b;
  }
  return p;
}

}  // namespace secpe::gpu
