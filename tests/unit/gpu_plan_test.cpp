// The CUDA backend's host-side planning (compute/gpu_plan.hpp), on the CPU: tile sizes stay in
// their memory budget, segments cover every included row exactly once with each centre once per
// tile, and the device follows the local rank.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <stdexcept>

#include "compute/gpu_plan.hpp"

namespace secpe::gpu {
namespace {

TEST(GpuPlan, LocalRankFromTheLaunchersEnvironment) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) unsetenv(name);
  EXPECT_EQ(local_rank_from_env(), 0);
  setenv("SLURM_LOCALID", "3", 1);
  EXPECT_EQ(local_rank_from_env(), 3);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);  // Open MPI's wins
  EXPECT_EQ(local_rank_from_env(), 2);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);  // unreadable: the next one
  EXPECT_EQ(local_rank_from_env(), 3);
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) unsetenv(name);
  EXPECT_EQ(device_for_local_rank(0, 4), 0);
  EXPECT_EQ(device_for_local_rank(5, 4), 1);
  EXPECT_EQ(device_for_local_rank(3, 0), 0);
}

TEST(GpuPlan, SearchTilesFitTheirBudget) {
  const std::size_t budget = std::size_t{64} << 20;
  for (const std::size_t n : {1, 7, 1000, 35000, 4000000}) {
    for (const std::size_t d : {1, 768}) {
      const std::size_t cap = candidate_capacity(3);
      const std::size_t rows = search_tile_rows(budget, n, d, cap, 1000000);
      EXPECT_GE(rows, 1u);
      if (rows > 1) EXPECT_LE(rows * (4 * n + 4 * d + 8 + 4 * cap + 4), budget);
      EXPECT_LE(rows * n, (std::size_t{1} << 31) - 1);
      EXPECT_EQ(search_tile_rows(budget, n, d, cap, 1), 1u);  // never more rows than there are
    }
  }
  EXPECT_EQ(search_tile_rows(1, 100, 10, 36, 50), 1u);  // a tiny budget still makes progress
  EXPECT_GE(candidate_capacity(5), 5u);
  EXPECT_EQ(sum_tile_rows(4 * 768 * 10 + 1000, 768, 1000000), 10u);
  EXPECT_EQ(sum_tile_rows(1, 768, 5), 1u);
}

TEST(GpuPlan, SegmentsGroupIncludedRowsByCentreStably) {
  const std::vector<std::int32_t> centre_of{2, 0, 2, 1, 0, 2};
  const std::vector<std::uint8_t> include{1, 1, 0, 1, 1, 1};
  const CentreSegments all = segment_by_centre(centre_of, {}, 4);
  EXPECT_EQ(all.order, (std::vector<std::int64_t>{1, 4, 3, 0, 2, 5}));
  EXPECT_EQ(all.offsets, (std::vector<std::int64_t>{0, 2, 3, 6, 6}));
  const CentreSegments some = segment_by_centre(centre_of, include, 4);
  EXPECT_EQ(some.order, (std::vector<std::int64_t>{1, 4, 3, 0, 5}));
  EXPECT_EQ(some.offsets, (std::vector<std::int64_t>{0, 2, 3, 5, 5}));
  EXPECT_THROW(segment_by_centre(std::vector<std::int32_t>{0, 4}, {}, 4), std::out_of_range);
  EXPECT_THROW(segment_by_centre(std::vector<std::int32_t>{-1}, {}, 4), std::out_of_range);
  EXPECT_NO_THROW(segment_by_centre(std::vector<std::int32_t>{0, 9}, std::vector<std::uint8_t>{1, 0}, 1));  // excluded
}

TEST(GpuPlan, TileSegmentsCoverEveryRowOnceWithDistinctCentres) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t k = 1 + gen() % 9, n = gen() % 200;
    std::vector<std::int32_t> centre_of(n);
    std::vector<std::uint8_t> include(n);
    for (std::size_t i = 0; i < n; ++i) centre_of[i] = static_cast<std::int32_t>(gen() % k), include[i] = gen() % 4 != 0;
    const CentreSegments s = segment_by_centre(centre_of, include, k);
    const auto total = static_cast<std::int64_t>(s.order.size());
    const std::int64_t tile = 1 + gen() % 40;
    std::vector<int> seen(n, 0);
    for (std::int64_t p0 = 0; p0 < total; p0 += tile) {
      const std::int64_t p1 = std::min(total, p0 + tile);
      std::set<std::int32_t> centres;
      std::int32_t next = 0;
      for (const TileSegment& seg : tile_segments(s, p0, p1)) {
        EXPECT_TRUE(centres.insert(seg.centre).second) << "centre twice in one tile";
        EXPECT_EQ(seg.begin, next) << "segments leave a gap";
        EXPECT_LT(seg.begin, seg.end);
        next = seg.end;
        for (std::int32_t r = seg.begin; r < seg.end; ++r) {
          const auto row = static_cast<std::size_t>(s.order[static_cast<std::size_t>(p0 + r)]);
          EXPECT_EQ(centre_of[row], seg.centre);
          ++seen[row];
        }
      }
      EXPECT_EQ(next, p1 - p0) << "segments do not reach the tile's end";
    }
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], include[i] ? 1 : 0) << "row " << i;
  }
}

}  // namespace
}  // namespace secpe::gpu
