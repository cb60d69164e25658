// The downstream classifier: L-BFGS, TF-IDF features, logistic regression and the scores.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/classification.hpp"
#include "eval/lbfgs.hpp"
#include "eval/logistic.hpp"
#include "text/ngrams.hpp"
#include "text/tfidf.hpp"

namespace secpe {
namespace {

TEST(Lbfgs, FindsTheMinimumOfAnIllConditionedQuadratic) {
  // f(x) = sum_i w_i (x_i - i)^2 / 2 with weights over four orders of magnitude.
  const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(20, 0.01, 100.0);
  const Eigen::VectorXd target = Eigen::VectorXd::LinSpaced(20, 0, 19);
  const Objective f = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    g = w.cwiseProduct(x - target);
    return 0.5 * (x - target).dot(g);
  };
  Eigen::VectorXd x = Eigen::VectorXd::Zero(20);
  const LbfgsResult r = minimize_lbfgs(f, x, {.max_iterations = 200, .gradient_tolerance = 1e-10, .history = 10});
  EXPECT_TRUE(r.converged);
  EXPECT_LT((x - target).lpNorm<Eigen::Infinity>(), 1e-8);
}

TEST(Tfidf, VocabularyIdfAndUnitRows) {
  const std::vector<std::string> train = {"good food", "good service", "bad food"};
  const TfidfVectorizer v(words_of(train), {.max_n = 2, .min_df = 1, .max_features = 100});
  // Terms: good, food, service, bad, and the bigrams good food, good service, bad food.
  EXPECT_EQ(v.num_features(), 7u);
  const TfidfVectorizer frequent(words_of(train), {.max_n = 2, .min_df = 2, .max_features = 100});
  EXPECT_EQ(frequent.num_features(), 2u);  // good, food
  const TfidfVectorizer capped(words_of(train), {.max_n = 2, .min_df = 1, .max_features = 3});
  EXPECT_EQ(capped.num_features(), 3u);

  // "good good" under {good, food}: one term, so its row is (1) whatever its weight; "food unknown
  // words" keeps food only; a text of unknown words is an empty row.
  const SparseRows x = frequent.transform(words_of(std::vector<std::string>{"good good", "food unknown words", "nothing known", "Good, FOOD!"}));
  ASSERT_EQ(x.rows(), 4);
  EXPECT_EQ(x.row(0).nonZeros(), 1);
  EXPECT_NEAR(x.row(0).norm(), 1.0, 1e-12);
  EXPECT_EQ(x.row(1).nonZeros(), 1);
  EXPECT_EQ(x.row(2).nonZeros(), 0);
  // idf(good) = idf(food) = ln(4 / 3) + 1, tf 1 each: equal weights 1 / sqrt(2) (case and punctuation ignored).
  const Eigen::VectorXd row3 = Eigen::VectorXd(x.row(3).transpose());
  EXPECT_NEAR(row3(0), 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(row3(1), 1.0 / std::sqrt(2.0), 1e-12);
}

TEST(Tfidf, SublinearTermFrequency) {
  const std::vector<std::string> train = {"a b", "a c", "b c"};
  const TfidfVectorizer v(words_of(train), {.max_n = 1, .min_df = 1, .max_features = 10});
  // Every word has df 2: equal idf, so "a a a b" weighs a by 1 + ln 3 and b by 1.
  const SparseRows x = v.transform(words_of(std::vector<std::string>{"a a a b"}));
  std::vector<double> weights;
  for (SparseRows::InnerIterator it(x, 0); it; ++it) weights.push_back(it.value());
  ASSERT_EQ(weights.size(), 2u);
  const double a = std::max(weights[0], weights[1]), b = std::min(weights[0], weights[1]);
  EXPECT_NEAR(a / b, 1.0 + std::log(3.0), 1e-12);
}

TEST(Logistic, SeparableToyProblemIsLearnedPerfectly) {
  const std::vector<std::string> train = {
      "great food and lovely staff", "lovely place great pasta", "great service lovely wine",
      "awful food and rude staff",   "rude waiter awful pasta",  "awful service rude owner",
      "the hotel room was clean",    "clean room quiet hotel",   "quiet hotel clean sheets"};
  const std::vector<std::int32_t> y = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  const std::vector<std::string> test = {"lovely and great", "rude and awful", "a clean quiet room",
                                         "great lovely food", "awful rude pasta"};
  const std::vector<std::int32_t> truth = {0, 1, 2, 0, 1};
  const TfidfVectorizer v(words_of(train), {.max_n = 2, .min_df = 1, .max_features = 1000});
  const LogisticModel m = train_logistic(v.transform(words_of(train)), y, 3, {.c = 10.0});
  EXPECT_TRUE(m.converged);
  EXPECT_EQ(m.predict(v.transform(words_of(train))), y);
  EXPECT_EQ(m.predict(v.transform(words_of(test))), truth);
}

TEST(Logistic, OneClassAlwaysPredictsIt) {
  const TfidfVectorizer v(words_of(std::vector<std::string>{"a b", "c d"}), {.max_n = 1, .min_df = 1, .max_features = 10});
  const LogisticModel m = train_logistic(v.transform(words_of(std::vector<std::string>{"a b", "c d"})), std::vector<std::int32_t>{0, 0}, 1, {});
  EXPECT_EQ(m.predict(v.transform(words_of(std::vector<std::string>{"x", "a"}))), (std::vector<std::int32_t>{0, 0}));
}

TEST(Logistic, TiesGoToTheLowerClass) {
  LogisticModel m;
  m.weights = RowMatrixD::Zero(2, 3);
  m.weights(0, 2) = 1.0;  // feature 0 votes for class 2 only
  m.bias = Eigen::RowVectorXd::Constant(3, 0.5);
  m.bias(0) = 0.0;  // classes 1 and 2 tie on an empty row
  SparseRows x(2, 2);
  x.insert(1, 0) = 1.0;
  x.makeCompressed();
  EXPECT_EQ(m.predict(x), (std::vector<std::int32_t>{1, 2}));
}

TEST(Classification, AccuracyAndMacroF1AsScikitLearn) {
  // y_true = [0, 0, 1, 1, 2], y_pred = [0, 1, 1, 1, 0]: accuracy 3/5; F1 = 1/2, 4/5, 0
  // (sklearn.metrics.f1_score(..., average="macro") = 0.4333...).
  ConfusionCounts c(3);
  const int truth[] = {0, 0, 1, 1, 2}, predicted[] = {0, 1, 1, 1, 0};
  for (int i = 0; i < 5; ++i) c.add(truth[i], predicted[i]);
  const ClassificationScores s = score_classification(c, 0);
  EXPECT_EQ(s.records, 5);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.6);
  EXPECT_NEAR(s.macro_f1, (0.5 + 0.8 + 0.0) / 3.0, 1e-15);
  // Per class: test records, predictions, correct ones (class 2 is never predicted right).
  ASSERT_EQ(s.per_class.size(), 3u);
  const std::int64_t expected[3][3] = {{2, 2, 1}, {2, 3, 2}, {1, 0, 0}};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(s.per_class[k].support, expected[k][0]) << k;
    EXPECT_EQ(s.per_class[k].predicted, expected[k][1]) << k;
    EXPECT_EQ(s.per_class[k].correct, expected[k][2]) << k;
  }
}

TEST(Classification, UnseenValuesCountAsErrorsAndAsClasses) {
  // Two training classes; test: 2 of class 0 (both right), 1 of class 1 (right), 1 unseen (predicted 0).
  ConfusionCounts c(2);
  c.add(0, 0, 2);
  c.add(1, 1);
  c.add(2, 0);
  const ClassificationScores s = score_classification(c, 1);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.75);
  // F1: class 0: tp 2, support 2, predicted 3 -> 0.8; class 1: 1; the unseen class: 0.
  EXPECT_NEAR(s.macro_f1, (0.8 + 1.0 + 0.0) / 3.0, 1e-15);
}

TEST(Classification, ClassesNeitherTestedNorPredictedAreLeftOut) {
  ConfusionCounts c(3);
  c.add(0, 0);
  c.add(1, 1);
  EXPECT_DOUBLE_EQ(score_classification(c, 0).macro_f1, 1.0);
}

TEST(Classification, MajorityBaseline) {
  // Synthetic labels a, a, b, b, c -> majority a (ties to the lower class).
  EXPECT_EQ(most_frequent_class(std::vector<std::int32_t>{1, 0, 0, 1, 2}, 3), 0);
  EXPECT_EQ(most_frequent_class(std::vector<std::int32_t>{2, 1, 2}, 3), 2);
  // Real: 3 of a, 5 of b, 0 of c, 2 of an unseen value. Predicting a: accuracy 3/10;
  // F1(a) = 2 * 3 / (3 + 10); b and the unseen value score 0; c is neither tested nor predicted.
  const ClassificationScores s = constant_prediction_scores(std::vector<std::int64_t>{3, 5, 0}, 2, 1, 0);
  EXPECT_EQ(s.records, 10);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.3);
  EXPECT_NEAR(s.macro_f1, (6.0 / 13.0) / 3.0, 1e-15);
}

}  // namespace
}  // namespace secpe
