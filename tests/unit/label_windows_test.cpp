// Labels evolved side by side (evolve/label_windows.hpp, evolve/candidates.hpp): which labels share
// a round, and that a label's candidate pool is the same whichever labels share its round.
#include <gtest/gtest.h>

#include <cstdint>
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

using RankWindows = std::vector<std::vector<std::vector<std::size_t>>>;

TEST(LabelWindows, PacedWindowsMatchTheRanksCostsTurnByTurn) {
  // Rank 0 holds one large label, rank 1 several smaller ones: rank 1's first window takes labels
  // while its running cost stays within rank 0's first (100), then every rank goes on largest first.
  const std::vector<std::int64_t> cost{100, 60, 30, 20, 10, 10};
  EXPECT_EQ(paced_windows({{0, 4}, {3, 1, 2, 5}}, cost), (RankWindows{{{0}, {4}}, {{1, 2}, {3}, {5}}}));
  // In label order each window would hold one label, and rank 1's 60 met rank 0's 100 first.
}

TEST(LabelWindows, APacedWindowHoldsNoMoreThanTheLargestLabel) {
  // Rank 1 falls behind rank 0's labels of 100 and could catch up with several of its labels of
  // 20 at once; a window stops at the largest label's cost, 100, so that no rank holds more set
  // up at once than one label alone did ({4, 5} at the second turn, {5, ..., 10} at the third).
  std::vector<std::int64_t> cost{100, 100, 100, 90, 90};
  cost.resize(13, 20);
  const RankWindows w = paced_windows({{0, 1, 2}, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, cost);
  EXPECT_EQ(w, (RankWindows{{{0}, {1}, {2}}, {{3}, {4}, {5, 6, 7, 8, 9}, {10}, {11}, {12}}}));
}

TEST(LabelWindows, PacedWindowsHoldEveryLabelOnceAndTieByLabel) {
  const std::vector<std::int64_t> cost{5, 5, 5, 5, 5};
  EXPECT_EQ(paced_windows({{0, 2, 4}, {1, 3}}, cost), (RankWindows{{{0}, {2}, {4}}, {{1}, {3}}}));
  EXPECT_EQ(paced_windows({{}, {1}}, cost), (RankWindows{{}, {{1}}}));
  EXPECT_EQ(paced_windows({{}, {}}, cost), (RankWindows{{}, {}}));
  EXPECT_THROW(paced_windows({{7}}, cost), std::logic_error);
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
