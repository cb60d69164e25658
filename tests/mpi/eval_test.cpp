// secpe eval's figures do not depend on the rank count: evaluate() over MPI_COMM_WORLD (the real
// set's chunks dealt to the ranks, the classifiers trained on different ranks) gives the same
// report, timings aside, as over MPI_COMM_SELF.
#include <gtest/gtest.h>

#include "comms/mpi_communicator.hpp"
#include "eval/evaluate.hpp"
#include "eval/report.hpp"
#include "text/demo_corpus.hpp"

namespace secpe {
namespace {

Corpus demo(std::size_t records, std::uint64_t seed) {
  DemoCorpusOptions o;
  o.records = records;
  o.seed = seed;
  return make_demo_corpus(o).corpus;
}

nlohmann::ordered_json figures(const Corpus& synthetic, const Corpus& real, const Communicator& comm) {
  const RealSetOptions r{.embedding_dim = 64, .sample_records = 150, .seed = 4, .chunk_records = 37};
  const RealSet set = prepare_real_set(std::make_shared<MemoryRealSource>(real, "real"), r, comm);
  EvalOptions e;
  e.features = {ClassifierFeatures::kTfidf, ClassifierFeatures::kEmbeddings};
  e.sample_records = 120;
  e.seed = 4;
  auto j = eval_report_json(evaluate(synthetic, set, e, comm));
  j.erase("run");
  return j;
}

TEST(Evaluate, SameFiguresForAnyRankCount) {
  const MpiCommunicator world, self(MPI_COMM_SELF);
  const Corpus synthetic = demo(300, 1), real = demo(500, 2);
  const auto sharded = figures(synthetic, real, world);
  const auto single = figures(synthetic, real, self);
  EXPECT_EQ(sharded.dump(), single.dump());
  EXPECT_EQ(sharded["real"]["records"], 500);
  EXPECT_EQ(sharded["knn"]["synthetic"], 120);
  EXPECT_TRUE(sharded["fid"].is_number());
  EXPECT_TRUE(sharded["classification"]["label2"]["embeddings"]["accuracy"].is_number());
}

}  // namespace
}  // namespace secpe
