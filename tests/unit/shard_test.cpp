// Loading a shard by record or by label: every record on exactly one rank, in ascending record
// id, with its own label, secrets and embedding; by label, each label's records all on the rank
// assign_labels chose.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "evolve/shard.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

// Rank `rank` of `size` as the shard sees it: who it is. The counts' reductions add nothing here.
class SeenAsRank final : public Communicator {
 public:
  SeenAsRank(int rank, int size) : Communicator(rank, size) {}
  using Communicator::allreduce_sum;
  using Communicator::broadcast;
  void allreduce_sum(std::span<std::int64_t>) const override {}
  double allreduce_max(double value) const override { return value; }
  void allreduce_min_loc(std::span<MinLoc>) const override {}
  std::int64_t exclusive_scan_sum(std::int64_t) const override { return 0; }
  void broadcast(std::span<float>, int) const override {}
  void broadcast(std::span<double>, int) const override {}
  void broadcast(std::span<std::int64_t>, int) const override {}
  void broadcast(std::span<unsigned char>, int) const override {}
  std::vector<float> allgather(std::span<const float> v) const override { return {v.begin(), v.end()}; }
  std::vector<double> allgather(std::span<const double> v) const override { return {v.begin(), v.end()}; }
  std::vector<std::int64_t> allgather(std::span<const std::int64_t> v) const override { return {v.begin(), v.end()}; }
  std::vector<unsigned char> allgather(std::span<const unsigned char> v) const override { return {v.begin(), v.end()}; }
  std::vector<unsigned char> alltoallv(std::span<const unsigned char>, std::span<const std::size_t>, std::vector<std::size_t>&) const override {
    return {};
  }
  void barrier() const override {}
};

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
}

TEST(Shard, ByRecordOrByLabelHoldsEveryRecordOnceWithItsOwnData) {
  TempFile file("shard.h5");
  const std::size_t n = 150000;  // more than two of the label loader's chunks
  const DatasetContents c = testing_io::make_contents(n, /*with_text=*/false);
  write_dataset(file.path(), c);
  for (const ShardBy by : {ShardBy::kRecord, ShardBy::kLabel}) {
    for (const int ranks : {1, 2, 3}) {
      SCOPED_TRACE(shard_by_name(by) + " at " + std::to_string(ranks) + " ranks");
      std::vector<int> seen(n, 0);
      for (int r = 0; r < ranks; ++r) {
        const SeenAsRank comm(r, ranks);
        const Shard s(comm, file.path(), by);
        EXPECT_EQ(s.by, by);
        ASSERT_EQ(s.labels.size(), s.ids.size());
        ASSERT_EQ(s.secrets.rows(), s.ids.size());
        ASSERT_EQ(static_cast<std::size_t>(s.embeddings.rows()), s.ids.size());
        EXPECT_TRUE(std::is_sorted(s.ids.begin(), s.ids.end()));
        for (std::size_t i = 0; i < s.ids.size(); ++i) {
          const auto id = static_cast<std::size_t>(s.ids[i]);
          ++seen[id];
          ASSERT_EQ(s.labels[i], c.label_ids[id]);
          ASSERT_TRUE(s.embeddings.row(static_cast<Eigen::Index>(i)).isApprox(c.embeddings.row(static_cast<Eigen::Index>(id)), 0.0f));
          const auto secrets = s.secrets.secrets_of(i);
          ASSERT_TRUE(std::equal(secrets.begin(), secrets.end(), c.secrets.indices.begin() + c.secrets.indptr[id],
                                 c.secrets.indices.begin() + c.secrets.indptr[id + 1]));
          ASSERT_TRUE(s.evolves(static_cast<std::size_t>(s.labels[i])) || by == ShardBy::kRecord);
        }
        std::size_t rows = 0;
        for (std::size_t l = 0; l < s.num_labels(); ++l) rows += s.public_rows[l].size() + s.private_rows[l].size();
        EXPECT_EQ(rows, s.ids.size());
        EXPECT_EQ(&s.label_comm() == &comm, by == ShardBy::kRecord);
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
    }
  }
}

}  // namespace
}  // namespace secpe
