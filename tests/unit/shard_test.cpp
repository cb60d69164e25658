// How labels are dealt to ranks, and when --shard-by auto shards by label (the loading itself is
// tested over MPI: tests/mpi/shard_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "evolve/shard.hpp"

namespace secpe {
namespace {

TEST(AssignLabels, EveryRankGetsItsShareOfLabelsAndTheRecordsAreBalanced) {
  // Ten labels of very different sizes over three ranks: 4, 3 and 3 labels.
  const std::vector<std::int64_t> records = {900, 10, 500, 20, 400, 30, 300, 40, 200, 50};
  const auto owner = assign_labels(records, 3);
  ASSERT_EQ(owner.size(), records.size());
  std::vector<std::size_t> labels(3, 0);
  std::vector<std::int64_t> load(3, 0);
  for (std::size_t l = 0; l < records.size(); ++l) {
    ASSERT_GE(owner[l], 0);
    ASSERT_LT(owner[l], 3);
    ++labels[static_cast<std::size_t>(owner[l])];
    load[static_cast<std::size_t>(owner[l])] += records[l];
  }
  EXPECT_EQ(labels, (std::vector<std::size_t>{4, 3, 3}));
  const auto [least, most] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*most - *least, 400) << "the largest label alone is 900 of 2450 records";
  EXPECT_EQ(assign_labels(records, 3), owner) << "the same every time, on every rank";
  EXPECT_EQ(assign_labels(records, 1), std::vector<int>(records.size(), 0));
  // More ranks than labels: each label on its own rank, the last ranks idle.
  const auto spread = assign_labels({5, 5}, 4);
  EXPECT_NE(spread[0], spread[1]);
}

TEST(ShardBy, NamesAndAuto) {
  for (const ShardBy by : {ShardBy::kAuto, ShardBy::kRecord, ShardBy::kLabel}) EXPECT_EQ(parse_shard_by(shard_by_name(by)), by);
  try {
    parse_shard_by("rows");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard-by must be auto, record or label, not 'rows'"), std::string::npos) << e.what();
  }
  // The dev set's shape: 50 labels, the largest with 26.5% of the records.
  std::vector<std::int64_t> yelp(50, 3675);
  yelp[0] = 1325 * 50;
  EXPECT_EQ(resolve_shard_by(ShardBy::kAuto, 1, yelp), ShardBy::kRecord);
  EXPECT_EQ(resolve_shard_by(ShardBy::kAuto, 2, yelp), ShardBy::kLabel);
  EXPECT_EQ(resolve_shard_by(ShardBy::kAuto, 7, yelp), ShardBy::kLabel);   // 26.5% <= 2/7
  EXPECT_EQ(resolve_shard_by(ShardBy::kAuto, 8, yelp), ShardBy::kRecord);  // 26.5% > 2/8
  EXPECT_EQ(resolve_shard_by(ShardBy::kAuto, 64, std::vector<std::int64_t>(50, 10)), ShardBy::kRecord);  // fewer labels than ranks
  EXPECT_EQ(resolve_shard_by(ShardBy::kLabel, 64, yelp), ShardBy::kLabel);
  EXPECT_EQ(resolve_shard_by(ShardBy::kRecord, 2, yelp), ShardBy::kRecord);
  EXPECT_EQ(shard_by_for(ShardBy::kAuto, /*augpe=*/true), ShardBy::kRecord);
  EXPECT_EQ(shard_by_for(ShardBy::kLabel, /*augpe=*/true), ShardBy::kLabel);
  EXPECT_EQ(shard_by_for(ShardBy::kAuto, /*augpe=*/false), ShardBy::kAuto);
}

}  // namespace
}  // namespace secpe
