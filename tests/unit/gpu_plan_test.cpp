// The CUDA backend's host-side planning (compute/impl/gpu_plan.hpp), on the CPU: tile sizes stay in
// their memory budget, segments cover every included row exactly once with each centre once per
// tile, the kept rows' sum runs cover every row once, kept rows stay only when the reserve is
// left, a batch's blocks are aligned and disjoint, the device follows the local rank, and the
// traffic and phase counters subtract and report as the benchmarks read them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <stdexcept>

#include "bench/bench_report.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "compute/impl/gpu_plan.hpp"

namespace secpe::gpu {
namespace {

using secpe::DeviceTraffic;

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

TEST(GpuPlan, SplitRunsCoverEveryPositionOnceInShortRunsOfOneCentre) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t k = 1 + gen() % 9, n = gen() % 300, max_rows = 1 + gen() % 20;
    std::vector<std::int32_t> centre_of(n);
    std::vector<std::uint8_t> include(n);
    for (std::size_t i = 0; i < n; ++i) centre_of[i] = static_cast<std::int32_t>(gen() % k), include[i] = gen() % 4 != 0;
    const CentreSegments s = segment_by_centre(centre_of, include, k);
    std::vector<int> seen(s.order.size(), 0);
    std::int32_t next = 0, last_centre = -1;
    for (const TileSegment& run : split_runs(s, max_rows)) {
      EXPECT_EQ(run.begin, next) << "runs leave a gap";
      EXPECT_LT(run.begin, run.end);
      EXPECT_LE(static_cast<std::size_t>(run.end - run.begin), max_rows);
      EXPECT_GE(run.centre, last_centre) << "runs by ascending centre";
      last_centre = run.centre, next = run.end;
      for (std::int32_t p = run.begin; p < run.end; ++p) {
        EXPECT_EQ(centre_of[static_cast<std::size_t>(s.order[static_cast<std::size_t>(p)])], run.centre);
        ++seen[static_cast<std::size_t>(p)];
      }
    }
    EXPECT_EQ(static_cast<std::size_t>(next), s.order.size());
    for (const int v : seen) EXPECT_EQ(v, 1);
  }
  const CentreSegments one = segment_by_centre(std::vector<std::int32_t>(10, 2), {}, 3);
  const std::vector<TileSegment> runs = split_runs(one, 4);
  ASSERT_EQ(runs.size(), 3u);  // 4 + 4 + 2 rows of centre 2
  EXPECT_EQ(runs[2].centre, 2);
  EXPECT_EQ(runs[2].end - runs[2].begin, 2);
  EXPECT_TRUE(split_runs(segment_by_centre({}, {}, 3), 4).empty());
}

TEST(GpuPlan, KeptRowsStayOnlyWhenTheReserveIsLeft) {
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_TRUE(fits_on_device(6 * gib, 80 * gib, 2 * gib));
  EXPECT_TRUE(fits_on_device(78 * gib, 80 * gib, 2 * gib));
  EXPECT_FALSE(fits_on_device(78 * gib + 1, 80 * gib, 2 * gib));
  EXPECT_FALSE(fits_on_device(1, gib, 2 * gib));  // less free than the reserve: nothing stays
  EXPECT_FALSE(fits_on_device(0, 2 * gib, 2 * gib));
}

TEST(GpuPlan, PackedBlocksAreAlignedAndDisjoint) {
  const std::vector<std::size_t> bytes{10, 0, 256, 1, 300, 7};
  const Packing p = pack(bytes, 256);
  ASSERT_EQ(p.offsets.size(), bytes.size());
  std::size_t end = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % 256, 0u) << i;
    EXPECT_GE(p.offsets[i], end) << "block " << i << " overlaps the one before";
    end = p.offsets[i] + bytes[i];
  }
  EXPECT_EQ(p.total, end);
  EXPECT_EQ(p.offsets, (std::vector<std::size_t>{0, 256, 256, 512, 768, 1280}));
  EXPECT_EQ(pack({}, 256).total, 0u);
}

TEST(GpuPlan, TrafficCountersSubtractFieldByField) {
  const DeviceTraffic a{.bytes_up = 10, .bytes_down = 20, .syncs = 3, .batches = 2, .host_rescored_rows = 5, .check_failures = 1, .releases = 4};
  const DeviceTraffic b{.bytes_up = 4, .bytes_down = 5, .syncs = 1, .batches = 1, .host_rescored_rows = 2, .check_failures = 0, .releases = 1};
  const DeviceTraffic d = a - b;
  EXPECT_EQ(d.bytes_up, 6u);
  EXPECT_EQ(d.bytes_down, 15u);
  EXPECT_EQ(d.syncs, 2u);
  EXPECT_EQ(d.batches, 1u);
  EXPECT_EQ(d.host_rescored_rows, 3u);
  EXPECT_EQ(d.check_failures, 1u);
  EXPECT_EQ(d.releases, 3u);
}

TEST(GpuPlan, PhasesSubtractAndReportByKind) {
  DeviceTraffic a, b;
  a.phases[secpe::DevicePhase::kWait] = 3.0, a.phases[secpe::DevicePhase::kGemm] = 5.0, a.phases[secpe::DevicePhase::kDownload] = 1.0;
  b.phases[secpe::DevicePhase::kWait] = 1.0, b.phases[secpe::DevicePhase::kGemm] = 1.0;
  const secpe::DevicePhases d = (a - b).phases;
  EXPECT_EQ(d[secpe::DevicePhase::kWait], 2.0);
  EXPECT_EQ(d[secpe::DevicePhase::kGemm], 4.0);
  EXPECT_EQ(d[secpe::DevicePhase::kDownload], 1.0);
  // Per repetition (scale 1/2), the host's phases apart from the device's, each kind summed.
  const nlohmann::ordered_json j = secpe::device_phases_json(d, 0.5);
  EXPECT_EQ(j["host"]["host_wait"], 1.0);
  EXPECT_EQ(j["device"]["gemm"], 2.0);
  EXPECT_EQ(j["device"]["download"], 0.5);
  EXPECT_EQ(j["host_seconds"], 1.0);
  EXPECT_EQ(j["device_seconds"], 2.5);
  EXPECT_EQ(j["host"].size() + j["device"].size(), secpe::kDevicePhases) << "every phase is reported, once";
  for (std::size_t p = 0; p < secpe::kDevicePhases; ++p) {
    const std::string name = secpe::kDevicePhaseNames[p];
    EXPECT_EQ(secpe::is_host_phase(p), name.rfind("host_", 0) == 0) << name << ": a host phase's name says host";
  }
}

}  // namespace
}  // namespace secpe::gpu
