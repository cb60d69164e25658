// The ppmi-sif embedder: words of the same contexts make texts close even without a shared word,
// unit rows, a model that depends on its inputs and seed only (not on threads), and clear errors.
#include <gtest/gtest.h>

#include <string_view>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "text/ppmi_sif_embedder.hpp"

namespace secpe {
namespace {

std::vector<std::string_view> views(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

// Texts about topic a (words a0..a99) or topic b (b0..b99), each with a few common fillers f0..f9.
std::vector<std::string> topic_texts(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(11, Stream::kSimulation, i);
    const char topic = i % 2 ? 'a' : 'b';
    std::string text;
    for (int w = 0; w < 12; ++w) {
      if (w % 3 == 2) {
        text += "f" + std::to_string(rng.below(10)) + " ";
      } else {
        text += std::string(1, topic) + std::to_string(rng.below(100)) + " ";
      }
    }
    out.push_back(text);
  }
  return out;
}

double cosine(const MatrixF& e, Eigen::Index i, Eigen::Index j) { return double(e.row(i).dot(e.row(j))); }

TEST(PpmiSifEmbedder, WordsOfTheSameContextsMakeTextsClose) {
  const auto texts = topic_texts(2000);
  const LearnedEmbedder e = fit_ppmi_sif(views(texts), {.dim = 64, .threads = 2});
  EXPECT_TRUE(e.name().starts_with("ppmi-sif(d=64, V=210, digest=")) << e.name();
  EXPECT_EQ(e.vectorizer().max_n(), 1);
  MatrixF x;
  e.embed(std::vector<std::string>{"a1 a2 a3 a4", "a11 a12 a13 a14", "b1 b2 b3 b4", "zzz unknown"}, x);
  for (Eigen::Index i = 0; i < x.rows(); ++i) EXPECT_NEAR(x.row(i).norm(), 1.0, 1e-5);
  EXPECT_GT(cosine(x, 0, 1), cosine(x, 0, 2) + 0.3);  // no shared word, the same topic
  EXPECT_EQ(x(3, 0), 1.0f);                           // no known word: the first axis
}

TEST(PpmiSifEmbedder, TheModelDependsOnItsInputsAndSeedOnly) {
  const auto texts = topic_texts(1000);
  const LearnedEmbedder a = fit_ppmi_sif(views(texts), {.dim = 64, .threads = 1});
  const LearnedEmbedder b = fit_ppmi_sif(views(texts), {.dim = 64, .threads = 3});
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.projection(), b.projection());
  EXPECT_EQ(a.vectorizer().idf(), b.vectorizer().idf());
  EXPECT_NE(fit_ppmi_sif(views(texts), {.dim = 64, .seed = 1}).name(), a.name());
  // SIF weights a / (a + p(w)): in (0, 1], smaller for the frequent fillers.
  for (const double w : a.vectorizer().idf()) EXPECT_TRUE(w > 0 && w <= 1);
  const LearnedEmbedder rebuilt(LearnedEmbedderKind::kPpmiSif, TfidfVectorizer(1, a.vectorizer().terms(), a.vectorizer().idf()), a.projection());
  EXPECT_EQ(rebuilt.name(), a.name());
  // The same model stored as another kind is another model.
  EXPECT_THROW(LearnedEmbedder(LearnedEmbedderKind::kTfidfSvd, TfidfVectorizer(1, a.vectorizer().terms(), a.vectorizer().idf()), a.projection()),
               InputError);
}

TEST(PpmiSifEmbedder, ClearErrors) {
  const auto texts = topic_texts(1000);
  auto message = [&](const PpmiSifOptions& o) {
    try {
      fit_ppmi_sif(views(texts), o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({.dim = 32}).find("ppmi-sif embedder: the embedding dimension must be in [64, 1024], not 32"), std::string::npos);
  EXPECT_NE(message({.dim = 1024}).find("210 words that occur in at least 2 of them, fewer than the embedding dimension 1024"), std::string::npos);
}

}  // namespace
}  // namespace secpe
