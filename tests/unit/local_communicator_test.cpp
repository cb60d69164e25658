#include <gtest/gtest.h>

#include "comms/communicator.hpp"

namespace secpe {
namespace {

// One process without MPI: every collective is the identity and nothing is sent.
TEST(LocalCommunicator, CollectivesOverOneRank) {
  const LocalCommunicator self;
  EXPECT_EQ(self.rank(), 0);
  EXPECT_EQ(self.size(), 1);
  EXPECT_TRUE(self.is_root());
  EXPECT_EQ(self.shard(17), (std::pair<std::uint64_t, std::uint64_t>{0, 17}));
  EXPECT_EQ(self.allreduce_sum(std::int64_t{5}), 5);
  EXPECT_EQ(self.allreduce_max(2.5), 2.5);
  EXPECT_EQ(self.exclusive_scan_sum(9), 0);
  std::vector<MinLoc> m{{1.0, 3}, {0.5, 1}};
  self.allreduce_min_loc(m);
  EXPECT_EQ(m[1].index, 1);
  const std::vector<std::string> texts{"a", "", "three words here"};
  EXPECT_EQ(self.allgather_strings(texts), texts);
  std::string s = "kept";
  self.broadcast(s);
  EXPECT_EQ(s, "kept");
  const std::vector<float> f{1.0f, 2.0f};
  EXPECT_EQ(self.allgather(std::span<const float>(f)), f);
  EXPECT_EQ(self.bytes_sent(), 0u);
}

}  // namespace
}  // namespace secpe
