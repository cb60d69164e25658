#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "text/embedder.hpp"

namespace secpe {
namespace {

TEST(TextEmbedder, NameAndDimension) {
  HashingEmbedder e(256);
  EXPECT_EQ(e.dim(), 256);
  EXPECT_EQ(e.name(), "hashing-uni+bigram-d256");
  EXPECT_THROW(HashingEmbedder(0), InputError);
}

TEST(TextEmbedder, RowsAreUnitOrZero) {
  HashingEmbedder e(64);
  const std::vector<std::string> texts = {"Great food, friendly staff!", "", "!!! ...", "the the the the",
                                          "Terrible service and cold soup."};
  MatrixF m;
  e.embed(texts, m);
  ASSERT_EQ(m.rows(), 5);
  ASSERT_EQ(m.cols(), 64);
  EXPECT_NEAR(m.row(0).norm(), 1.0f, 1e-5f);
  EXPECT_EQ(m.row(1).norm(), 0.0f);
  EXPECT_EQ(m.row(2).norm(), 0.0f);
  EXPECT_NEAR(m.row(3).norm(), 1.0f, 1e-5f);
  EXPECT_NEAR(m.row(4).norm(), 1.0f, 1e-5f);
}

TEST(TextEmbedder, DeterministicCaseAndPunctuationInsensitive) {
  HashingEmbedder e(128);
  const std::vector<std::string> texts = {"Great food, friendly staff", "great FOOD friendly staff!",
                                          "Great food, friendly staff"};
  MatrixF a, b;
  e.embed(texts, a);
  e.embed(texts, b);
  EXPECT_EQ(a, b);
  EXPECT_NEAR((a.row(0) - a.row(1)).norm(), 0.0f, 1e-6f);
  EXPECT_EQ(a.row(0), a.row(2));
  // A fixed hash: the same text always lands in the same buckets (guards against std::hash use).
  MatrixF single;
  e.embed(std::vector<std::string>{"pizza"}, single);
  int nonzero = 0;
  for (int k = 0; k < 128; ++k) nonzero += single(0, k) != 0.0f;
  EXPECT_EQ(nonzero, 1);
  EXPECT_NEAR(std::abs(single.row(0).sum()), 1.0f, 1e-6f);
}

TEST(TextEmbedder, SimilarTextsAreCloserThanUnrelatedOnes) {
  HashingEmbedder e(512);
  const std::vector<std::string> texts = {"the pizza was hot and the crust was crispy",
                                          "the pizza was cold but the crust was crispy",
                                          "my dentist cleaned my teeth and took x-rays"};
  MatrixF m;
  e.embed(texts, m);
  EXPECT_GT(m.row(0).dot(m.row(1)), m.row(0).dot(m.row(2)) + 0.3f);
}

TEST(TextEmbedder, WordOrderMattersThroughBigrams) {
  HashingEmbedder e(1024);
  MatrixF m;
  e.embed(std::vector<std::string>{"dog bites man", "man bites dog"}, m);
  EXPECT_LT(m.row(0).dot(m.row(1)), 0.99f);
}

}  // namespace
}  // namespace secpe
