// Loading a dataset by record or by label over the job's ranks: every record on exactly one rank,
// in ascending record id, with its own label, secrets and embedding; by label, each label's
// records all on the rank assign_labels chose, and the global counts the same either way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "comms/mpi_communicator.hpp"
#include "evolve/shard.hpp"
#include "io/dataset.hpp"

namespace secpe {
namespace {

// Record i's data, from i alone: five labels of unequal size, a secret on every third record.
std::int32_t label_of(std::size_t i) { return static_cast<std::int32_t>(i % 7 < 3 ? 0 : i % 7 - 2); }
bool holds_secret(std::size_t i) { return i % 3 == 0; }

// A dataset of n records written by rank 0, at a path every rank knows; removed at the end.
class SharedDataset {
 public:
  SharedDataset(const Communicator& comm, std::size_t n) : comm_(comm) {
    std::string name = "secpe_mpi_shard_" + std::to_string(::getpid()) + ".h5";
    comm.broadcast(name);
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    if (comm.is_root()) {
      DatasetContents c;
      c.labels.columns = {"label"};
      c.labels.prefixes = {""};
      c.labels.values = {{"a"}, {"b"}, {"c"}, {"d"}, {"e"}};
      c.secret_names = {"s0", "s1"};
      c.secrets.indptr.push_back(0);
      c.embeddings.resize(static_cast<Eigen::Index>(n), 2);
      for (std::size_t i = 0; i < n; ++i) {
        c.label_ids.push_back(label_of(i));
        if (holds_secret(i)) c.secrets.indices.push_back(static_cast<std::int32_t>(i % 2));
        c.secrets.indptr.push_back(static_cast<std::int64_t>(c.secrets.indices.size()));
        c.embeddings.row(static_cast<Eigen::Index>(i)) << static_cast<float>(i), -static_cast<float>(i);
      }
      c.secrets.num_secrets = 2;
      c.provenance = {{"source", "shard_test"}, {"embedder", "hashing"}};
      write_dataset(path_, c);
    }
    comm.barrier();
  }
  ~SharedDataset() {
    comm_.barrier();
    if (comm_.is_root()) std::filesystem::remove(path_);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  const Communicator& comm_;
  std::filesystem::path path_;
};

TEST(Shard, ByRecordOrByLabelHoldsEveryRecordOnceWithItsOwnData) {
  const MpiCommunicator world;
  const std::size_t n = 150000;  // several of the label loader's windows per rank
  const SharedDataset data(world, n);
  std::vector<std::int64_t> public_counts;
  for (const ShardBy by : {ShardBy::kRecord, ShardBy::kLabel}) {
    SCOPED_TRACE(shard_by_name(by));
    const Shard s(world, data.path(), by);
    EXPECT_EQ(s.by, by);
    ASSERT_EQ(s.labels.size(), s.ids.size());
    ASSERT_EQ(s.secrets.rows(), s.ids.size());
    ASSERT_EQ(static_cast<std::size_t>(s.embeddings.rows()), s.ids.size());
    EXPECT_TRUE(std::is_sorted(s.ids.begin(), s.ids.end()));
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
      const auto id = static_cast<std::size_t>(s.ids[i]);
      ASSERT_EQ(s.labels[i], label_of(id));
      ASSERT_EQ(s.embeddings(static_cast<Eigen::Index>(i), 0), static_cast<float>(id));
      ASSERT_EQ(s.secrets.is_private(i), holds_secret(id));
      if (holds_secret(id)) ASSERT_EQ(s.secrets.secrets_of(i)[0], static_cast<std::int32_t>(id % 2));
      ASSERT_TRUE(s.evolves(static_cast<std::size_t>(s.labels[i])));
    }
    // Every record exactly once over the ranks.
    const auto local = std::vector<std::int64_t>(s.ids.begin(), s.ids.end());
    std::vector<std::int64_t> all = world.allgather(std::span<const std::int64_t>(local));
    std::sort(all.begin(), all.end());
    std::vector<std::int64_t> expected(n);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(all, expected);
    EXPECT_EQ(&s.label_comm() == &world, by == ShardBy::kRecord);
    if (by == ShardBy::kLabel) {
      for (std::size_t l = 0; l < s.num_labels(); ++l)
        EXPECT_EQ(s.evolves(l), s.label_rank[l] == world.rank()) << "label " << l;
    }
    if (public_counts.empty()) public_counts = s.public_counts;
    EXPECT_EQ(s.public_counts, public_counts);
  }
  // auto: by label from 2 ranks (5 labels, the largest 3/7 of the records: within twice a rank's
  // share up to 4 ranks), else by record.
  const Shard automatic(world, data.path(), ShardBy::kAuto);
  EXPECT_EQ(automatic.by, world.size() >= 2 && world.size() <= 4 ? ShardBy::kLabel : ShardBy::kRecord);
}

}  // namespace
}  // namespace secpe
