// Labels evolved side by side (evolve/label_windows.hpp, evolve/candidates.hpp): which labels share
// a round, and that a label's candidate pool is the same whichever labels share its round.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comms/communicator.hpp"
#include "evolve/candidates.hpp"
#include "evolve/label_windows.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"

namespace secpe {
namespace {

// Writes each text from its own stream and counts the calls (a server keeps one call's requests
// in flight together).
class CountingGenerator final : public Generator {
 public:
  std::vector<std::string> generate(std::vector<GenerationTask>& tasks) const override {
    ++calls;
    return Generator::generate(tasks);
  }
  std::string random_text(std::size_t label, CounterRng& rng) const override {
    return "label " + std::to_string(label) + " draw " + std::to_string(rng.next_u64() % 1000);
  }
  std::string vary(std::size_t label, const std::string& parent, CounterRng& rng) const override {
    return parent + " / " + random_text(label, rng);
  }
  std::string describe() const override { return "counting"; }
  std::size_t in_flight() const override { return 16; }
  mutable int calls = 0;
};

TEST(LabelWindows, OneLabelEachForAGeneratorThatMakesItsOwnTexts) {
  const std::vector<std::size_t> labels{0, 3, 4}, requests{1, 2, 500};
  EXPECT_EQ(label_windows(labels, requests, 1), (std::vector<std::vector<std::size_t>>{{0}, {3}, {4}}));
}

TEST(LabelWindows, FillsEachRoundToEightRequestsPerSlot) {
  // 16 in flight: a window closes once it holds 8 x 16 = 128 requests per round.
  const std::vector<std::size_t> labels{0, 1, 2, 3, 4, 5}, requests{60, 60, 10, 200, 5, 5};
  EXPECT_EQ(label_windows(labels, requests, 16), (std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3}, {4, 5}}));
  EXPECT_TRUE(label_windows({}, {}, 16).empty());
  EXPECT_THROW(label_windows(labels, std::vector<std::size_t>{1}, 16), std::logic_error);
}

TEST(LabelWindows, APoolIsTheSameWhicheverLabelsShareItsRound) {
  const LocalCommunicator comm;
  const HashingEmbedder embedder(32);
  const CountingGenerator generator;
  const std::vector<std::string> parents_a{"a one", "a two"}, parents_b{"b one"};
  const std::vector<PoolRequest> round{{.label = 2, .iteration = 0, .synthetic = 3, .parents = &parents_a},
                                       {.label = 5, .iteration = 1, .synthetic = 2, .parents = &parents_a},
                                       {.label = 7, .iteration = 3, .synthetic = 1, .parents = &parents_b}};
  const std::vector<CandidatePool> together = make_candidate_pools(comm, generator, embedder, 9, 2, round);
  EXPECT_EQ(generator.calls, 1);  // one call for the whole round
  ASSERT_EQ(together.size(), round.size());
  for (std::size_t i = 0; i < round.size(); ++i) {
    const std::vector<CandidatePool> alone = make_candidate_pools(comm, generator, embedder, 9, 2, std::span(round).subspan(i, 1));
    EXPECT_EQ(together[i].texts, alone.front().texts) << "label " << round[i].label;
    EXPECT_EQ(together[i].embeddings, alone.front().embeddings) << "label " << round[i].label;
    EXPECT_EQ(together[i].texts.size(), candidate_count(round[i], 2));
  }
  // Iteration 0: N_syn x L random texts; later: the parents first, then L variations of each.
  EXPECT_EQ(together[0].texts.size(), 6u);
  EXPECT_EQ(together[1].texts[0], "a one");
  EXPECT_EQ(together[1].texts[1], "a two");
  EXPECT_EQ(together[1].texts[2].rfind("a one / label 5", 0), 0u);
  EXPECT_EQ(together[1].texts[4].rfind("a two / label 5", 0), 0u);
  EXPECT_EQ(together[2].texts.size(), 3u);
}

}  // namespace
}  // namespace secpe
