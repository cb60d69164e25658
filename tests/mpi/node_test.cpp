// Ranks spread over nodes (tests/e2e/two_hosts.sh runs this across two hosts; mpi_tests_np* on
// one): each rank's local rank as the launcher gives it, which picks its GPU, is its place among
// the ranks on its own host, so a node with a GPU per rank gives each rank its own; and the hosts
// recorded in run.json and bench JSON name every host once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <set>

#include "compute/impl/gpu_plan.hpp"
#include "comms/mpi_communicator.hpp"

namespace secpe {
namespace {

TEST(Nodes, LocalRankIsThePlaceAmongTheRanksOnTheHost) {
  const MpiCommunicator comm;
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  const std::string host = name;
  const std::vector<std::string> host_of = comm.allgather_strings({host});
  int place = 0, on_host = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (host_of[static_cast<std::size_t>(r)] != host) continue;
    place += r < comm.rank();
    ++on_host;
  }
  const int local = gpu::local_rank_from_env();
  EXPECT_EQ(local, place) << "rank " << comm.rank() << " on " << host;

  // With one GPU per rank on every node, each node's ranks take distinct devices.
  const std::int64_t device = gpu::device_for_local_rank(local, on_host);
  const std::vector<std::int64_t> device_of = comm.allgather(std::span<const std::int64_t>(&device, 1));
  std::map<std::string, std::set<std::int64_t>> devices_on;
  std::map<std::string, int> ranks_on;
  for (std::size_t r = 0; r < host_of.size(); ++r) {
    devices_on[host_of[r]].insert(device_of[r]);
    ++ranks_on[host_of[r]];
  }
  for (const auto& [h, devices] : devices_on) EXPECT_EQ(static_cast<int>(devices.size()), ranks_on[h]) << "ranks on " << h << " share a GPU";

  const std::vector<std::string> hosts = comm.hosts();
  EXPECT_EQ(hosts.size(), ranks_on.size());
  EXPECT_EQ(hosts.front(), host_of.front());
}

}  // namespace
}  // namespace secpe
