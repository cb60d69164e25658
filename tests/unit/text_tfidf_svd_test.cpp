// The learned embedder: a truncated SVD that matches an exact one, rows of unit length, a model
// that depends on its inputs and seed only (not on threads), and clear errors.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <string_view>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "text/demo_corpus.hpp"
#include "text/ngrams.hpp"
#include "text/tfidf_svd_embedder.hpp"

namespace secpe {
namespace {

std::vector<std::string> demo_texts(std::size_t n) { return make_demo_corpus({.records = n}).corpus.texts; }

std::vector<std::string_view> views(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

// n texts of 3 to 12 words drawn from `words` distinct words (more records than terms when small).
std::vector<std::string> random_texts(std::size_t n, int words, std::uint64_t seed) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, Stream::kSimulation, i);
    std::string text;
    const int length = 3 + static_cast<int>(rng.uniform() * 10);
    for (int w = 0; w < length; ++w) {
      // Zipf-like: low word ids far more often, so the spectrum decays as real text's does.
      const int id = static_cast<int>(std::pow(rng.uniform(), 2.0) * words);
      text += "w" + std::to_string(id) + " ";
    }
    out.push_back(text);
  }
  return out;
}

bool same_model(const LearnedEmbedder& a, const LearnedEmbedder& b) {
  return a.name() == b.name() && a.vectorizer().terms() == b.vectorizer().terms() && a.vectorizer().idf() == b.vectorizer().idf() &&
         a.projection() == b.projection();
}

// The fitted projection spans nearly the top singular subspace of the public TF-IDF matrix A: its
// columns are orthonormal, |A p_k| never exceeds the k-th singular value of an exact
// decomposition (a Ritz value), is close to it where the spectrum has a gap (the top values),
// and together they capture nearly all of the best rank-d approximation's energy.
void expect_matches_exact_svd(const std::vector<std::string>& texts, int d) {
  const auto e = fit_tfidf_svd(views(texts), {.dim = d, .threads = 2});
  const Eigen::MatrixXd a = Eigen::MatrixXd(e.vectorizer().transform(words_of(texts)));
  const Eigen::MatrixXd p = e.projection().cast<double>();
  EXPECT_LT((p.transpose() * p - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff(), 1e-5);
  // The smaller Gram matrix has the same nonzero eigenvalues, the squared singular values.
  const Eigen::MatrixXd gram = a.rows() < a.cols() ? Eigen::MatrixXd(a * a.transpose()) : Eigen::MatrixXd(a.transpose() * a);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> exact(gram);  // ascending
  const Eigen::Index v = exact.eigenvalues().size();
  const Eigen::VectorXd fitted = (a * p).colwise().norm();
  double best = 0, captured = 0;
  for (int k = 0; k < d; ++k) {
    const double sigma = std::sqrt(std::max(0.0, exact.eigenvalues()(v - 1 - k)));
    EXPECT_LE(fitted(k), sigma * (1 + 1e-6)) << "singular value " << k;
    if (k < 3) EXPECT_NEAR(fitted(k), sigma, 1e-4 * sigma) << "singular value " << k;
    best += sigma * sigma;
    captured += fitted(k) * fitted(k);
  }
  EXPECT_GT(captured / best, 0.99);
}

TEST(TfidfSvdEmbedder, MatchesAnExactSvdWithFewerRecordsThanTerms) {
  const auto texts = demo_texts(300);
  expect_matches_exact_svd(texts, 64);
}

TEST(TfidfSvdEmbedder, MatchesAnExactSvdWithMoreRecordsThanTerms) {
  const auto texts = random_texts(1500, 30, 3);
  ASSERT_LT(fit_tfidf_svd(views(texts), {.dim = 64}).vectorizer().num_features(), texts.size());
  expect_matches_exact_svd(texts, 64);
}

TEST(TfidfSvdEmbedder, RowsAreUnitVectorsAndTextsWithoutKnownTermsGetTheFirstAxis) {
  const auto texts = demo_texts(400);
  const auto e = fit_tfidf_svd(views(texts), {.dim = 64});
  EXPECT_EQ(e.dim(), 64);
  EXPECT_TRUE(e.name().starts_with("tfidf-svd(d=64, V=" + std::to_string(e.vectorizer().num_features()) + ", digest=")) << e.name();
  const std::vector<std::string> probe = {texts[0], "", "!!!", "qwertyuiop zxcvbnm", texts[1] + " qwertyuiop"};
  MatrixF m;
  e.embed(probe, m);
  ASSERT_EQ(m.rows(), 5);
  ASSERT_EQ(m.cols(), 64);
  for (Eigen::Index i = 0; i < m.rows(); ++i) EXPECT_NEAR(m.row(i).norm(), 1.0f, 1e-5f) << i;
  for (Eigen::Index i = 1; i <= 3; ++i) {
    EXPECT_EQ(m(i, 0), 1.0f);
    EXPECT_EQ(m.row(i).tail(63).norm(), 0.0f);
  }
  // An unknown word changes nothing; case and punctuation are ignored, as for the hashing embedder.
  MatrixF again;
  e.embed(std::vector<std::string>{texts[1], "  " + texts[1] + " !"}, again);
  EXPECT_EQ(again.row(0), m.row(4));
  EXPECT_EQ(again.row(0), again.row(1));
}

TEST(TfidfSvdEmbedder, TheModelDependsOnItsInputsAndSeedOnly) {
  const auto texts = demo_texts(500);
  const auto a = fit_tfidf_svd(views(texts), {.dim = 64, .threads = 1});
  EXPECT_TRUE(same_model(a, fit_tfidf_svd(views(texts), {.dim = 64, .threads = 1})));
  EXPECT_TRUE(same_model(a, fit_tfidf_svd(views(texts), {.dim = 64, .threads = 3})));
  const auto other_seed = fit_tfidf_svd(views(texts), {.dim = 64, .seed = 1});
  EXPECT_EQ(other_seed.vectorizer().terms(), a.vectorizer().terms());
  EXPECT_NE(other_seed.name(), a.name());
  // Rebuilt from its parts (as `secpe run` does from the dataset), the model is the same one.
  const LearnedEmbedder rebuilt(LearnedEmbedderKind::kTfidfSvd, TfidfVectorizer(2, a.vectorizer().terms(), a.vectorizer().idf()), a.projection());
  EXPECT_TRUE(same_model(a, rebuilt));
}

TEST(TfidfSvdEmbedder, VocabularyKeepsTheMostFrequentTermsOfAtLeastMinDfTexts) {
  auto texts = demo_texts(300);
  texts.push_back("zyzzyva appears once");
  const auto e = fit_tfidf_svd(views(texts), {.dim = 64, .min_df = 2, .vocabulary = 100});
  EXPECT_EQ(e.vectorizer().num_features(), 100u);
  const auto& terms = e.vectorizer().terms();
  const auto key = ngram_key(word_keys("zyzzyva"));
  EXPECT_EQ(std::find(terms.begin(), terms.end(), key), terms.end());
  const auto all = fit_tfidf_svd(views(texts), {.dim = 64, .min_df = 1, .vocabulary = 1u << 20});
  EXPECT_NE(std::find(all.vectorizer().terms().begin(), all.vectorizer().terms().end(), key), all.vectorizer().terms().end());
}

TEST(TfidfSvdEmbedder, ClearErrors) {
  const auto texts = demo_texts(200);
  auto message = [&](const TfidfSvdOptions& o, const std::vector<std::string>& t) {
    try {
      fit_tfidf_svd(views(t), o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({.dim = 32}, texts).find("must be in [64, 1024], not 32"), std::string::npos);
  EXPECT_NE(message({.dim = 2048}, texts).find("not 2048"), std::string::npos);
  EXPECT_NE(message({.dim = 64, .vocabulary = 10}, texts).find("vocabulary"), std::string::npos);
  EXPECT_NE(message({.dim = 64}, std::vector<std::string>(texts.begin(), texts.begin() + 10)).find("fewer than the embedding dimension 64"),
            std::string::npos);
  EXPECT_NE(message({.dim = 64}, {}).find("0 public records"), std::string::npos);
  const auto e = fit_tfidf_svd(views(texts), {.dim = 64});
  const auto& v = e.vectorizer();
  EXPECT_THROW(LearnedEmbedder(LearnedEmbedderKind::kTfidfSvd, TfidfVectorizer(2, v.terms(), v.idf()), e.projection().topRows(3)), InputError);
  MatrixF nan = e.projection();
  nan(2, 3) = std::nanf("");
  EXPECT_THROW(LearnedEmbedder(LearnedEmbedderKind::kTfidfSvd, TfidfVectorizer(2, v.terms(), v.idf()), nan), InputError);
  auto repeated = v.terms();
  repeated[5] = repeated[4];
  EXPECT_THROW(TfidfVectorizer(2, repeated, v.idf()), InputError);
  auto negative = v.idf();
  negative[0] = -1;
  EXPECT_THROW(TfidfVectorizer(2, v.terms(), negative), InputError);
}

}  // namespace
}  // namespace secpe
