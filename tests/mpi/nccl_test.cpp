// The NCCL communicator (GPU ranks) against the MPI one: the same exact int64 sums, large (NCCL)
// and small (delegated), and every other collective delegated. Skips without a GPU per rank or
// in a build without NCCL.
#include <gtest/gtest.h>

#include "compute/cuda/cuda_backend.hpp"
#include "comms/mpi_communicator.hpp"
#include "comms/nccl_communicator.hpp"

namespace secpe {
namespace {

TEST(NcclCommunicator, SumsAndCollectivesEqualMpis) {
  const MpiCommunicator world;
  if (cuda_device_count() < world.size()) GTEST_SKIP() << "fewer CUDA devices than ranks: NCCL needs one GPU per rank";
  const auto nccl = make_nccl_communicator(world);
  if (!nccl) GTEST_SKIP() << "a build without NCCL, or ranks sharing a GPU: GPU ranks reduce over MPI";
  ASSERT_EQ(nccl->rank(), world.rank());
  ASSERT_EQ(nccl->size(), world.size());
  for (const std::size_t n : {std::size_t{1}, kNcclMinValues - 1, kNcclMinValues, std::size_t{100003}}) {
    std::vector<std::int64_t> a(n);
    for (std::size_t i = 0; i < n; ++i) {
      // Values beyond 2^53 (a double reduction would round them) and of both signs.
      a[i] = (std::int64_t{1} << 58) / world.size() + static_cast<std::int64_t>(i) * (world.rank() % 2 ? -3 : 7) + world.rank();
    }
    std::vector<std::int64_t> b = a;
    const std::uint64_t before = nccl->bytes_sent();
    nccl->allreduce_sum(a);
    const std::uint64_t nccl_bytes = nccl->bytes_sent() - before, world_before = world.bytes_sent();
    world.allreduce_sum(b);
    EXPECT_EQ(a, b) << n << " values";
    EXPECT_EQ(nccl_bytes, world.bytes_sent() - world_before) << "the same bytes counted on the wire";
  }
  EXPECT_EQ(nccl->allreduce_max(double(world.rank())), double(world.size() - 1));
  EXPECT_EQ(nccl->exclusive_scan_sum(1), world.rank());
  std::string s = world.is_root() ? "from rank 0" : "";
  nccl->broadcast(s);
  EXPECT_EQ(s, "from rank 0");
  const std::vector<std::int64_t> mine{world.rank()};
  EXPECT_EQ(nccl->allgather(std::span<const std::int64_t>(mine)).size(), static_cast<std::size_t>(world.size()));
  nccl->barrier();
}

}  // namespace
}  // namespace secpe
