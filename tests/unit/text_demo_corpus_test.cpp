#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <tuple>

#include "text/demo_corpus.hpp"
#include "text/secrets.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

TEST(TextDemoCorpus, IsDeterministicAndPrefixStable) {
  DemoCorpusOptions o;
  o.records = 500;
  const DemoCorpus a = make_demo_corpus(o), b = make_demo_corpus(o);
  EXPECT_EQ(a.corpus.texts, b.corpus.texts);
  EXPECT_EQ(a.corpus.labels, b.corpus.labels);
  EXPECT_EQ(a.planted, b.planted);
  o.records = 800;  // record i does not depend on how many records are made
  const DemoCorpus c = make_demo_corpus(o);
  for (std::size_t i = 0; i < 500; ++i) {
    ASSERT_EQ(a.corpus.texts[i], c.corpus.texts[i]);
    ASSERT_EQ(a.corpus.labels[i], c.corpus.labels[i]);
  }
  o.seed = 8;
  EXPECT_NE(make_demo_corpus(o).corpus.texts[0], a.corpus.texts[0]);
}

TEST(TextDemoCorpus, HasYelpLabelsAndSkew) {
  DemoCorpusOptions o;
  o.records = 20000;
  const DemoCorpus d = make_demo_corpus(o);
  EXPECT_EQ(d.corpus.label_columns, (std::vector<std::string>{"label1", "label2"}));
  EXPECT_EQ(d.corpus.label_prefixes, (std::vector<std::string>{"Business Category: ", "Review Stars: "}));
  ASSERT_EQ(d.corpus.texts.size(), 20000u);
  std::map<std::string, int> cat, stars;
  std::set<std::pair<std::string, std::string>> labels;
  for (const auto& l : d.corpus.labels) {
    ASSERT_EQ(l.size(), 2u);
    ++cat[l[0]];
    ++stars[l[1]];
    labels.insert({l[0], l[1]});
  }
  const std::set<std::string> expected_cats = {"Restaurants", "Bars", "Beauty & Spas", "Arts & Entertainment",
                                               "Event Planning & Services", "Grocery", "Health & Medical",
                                               "Home & Garden", "Hotels & Travel", "Shopping"};
  std::set<std::string> got_cats;
  for (const auto& [c, n] : cat) got_cats.insert(c);
  EXPECT_EQ(got_cats, expected_cats);
  EXPECT_EQ(labels.size(), 50u);
  EXPECT_NEAR(cat["Restaurants"] / 20000.0, 0.61, 0.03);
  EXPECT_GT(stars["5.0"], stars["4.0"]);
  EXPECT_GT(stars["4.0"], stars["1.0"]);
  EXPECT_GT(stars["1.0"], stars["3.0"]);
  EXPECT_GT(stars["1.0"], stars["2.0"]);
}

TEST(TextDemoCorpus, ReviewsLookLikeReviews) {
  DemoCorpusOptions o;
  o.records = 3000;
  const DemoCorpus d = make_demo_corpus(o);
  std::set<std::string> vocab;
  double mean = 0;
  for (std::size_t i = 0; i < d.corpus.texts.size(); ++i) {
    const auto words = words_lower(d.corpus.texts[i]);
    EXPECT_GE(words.size(), 20u);
    EXPECT_LE(words.size(), 130u);
    mean += static_cast<double>(words.size());
    vocab.insert(words.begin(), words.end());
    EXPECT_EQ(d.corpus.texts[i].find('{'), std::string::npos) << "unfilled template in record " << i;
    const char last = d.corpus.texts[i].back();
    EXPECT_TRUE(last == '.' || last == '!' || last == '?') << i;
  }
  mean /= static_cast<double>(d.corpus.texts.size());
  EXPECT_GT(mean, 35);
  EXPECT_LT(mean, 90);
  EXPECT_GT(vocab.size(), 1500u);
  // Sentiment follows the stars.
  int good5 = 0, good1 = 0;
  for (std::size_t i = 0; i < d.corpus.texts.size(); ++i) {
    const bool positive = d.corpus.texts[i].find("recommend") != std::string::npos ||
                          d.corpus.texts[i].find("love") != std::string::npos;
    if (d.corpus.labels[i][1] == "5.0") good5 += positive;
    if (d.corpus.labels[i][1] == "1.0") good1 += positive;
  }
  EXPECT_GT(good5, 5 * std::max(good1, 1));
}

TEST(TextDemoCorpus, PlantedSecretsAreDetectedExactlyWhereTheyArePlanted) {
  DemoCorpusOptions o;
  o.records = 4000;
  o.secret_rate = 0.25;
  const DemoCorpus d = make_demo_corpus(o);
  ASSERT_FALSE(d.planted.empty());
  ASSERT_EQ(d.secrets_of.size(), d.corpus.texts.size());
  SecretSet set;
  set.secrets = d.planted;
  const SecretMatrix m = detect_secrets(d.corpus.texts, set);
  std::vector<int> uses(d.planted.size(), 0);
  std::size_t priv = 0;
  for (std::size_t i = 0; i < d.corpus.texts.size(); ++i) {
    const auto s = m.secrets_of(i);
    ASSERT_EQ(std::vector<std::int32_t>(s.begin(), s.end()), d.secrets_of[i]) << "record " << i;
    priv += m.is_private(i);
    for (auto j : d.secrets_of[i]) ++uses[j];
  }
  EXPECT_NEAR(priv / 4000.0, 0.25, 0.03);
  int recurring = 0;
  for (int u : uses) recurring += (u >= 2 && u <= 25);
  EXPECT_GT(recurring, static_cast<int>(0.9 * static_cast<double>(uses.size())));
  // Several kinds: names (two words), emails, phone numbers, rare words.
  bool email = false, phone = false, name = false;
  for (const auto& p : d.planted) {
    email |= p.find("@example.") != std::string::npos;
    phone |= p.find("555-01") != std::string::npos;
    name |= p.find(' ') != std::string::npos && p.find("555") == std::string::npos;
  }
  EXPECT_TRUE(email && phone && name);
  o.secret_rate = 0.0;
  EXPECT_TRUE(make_demo_corpus(o).planted.empty());
}

// A label without a public record cannot be imported by default, so the demo keeps public reviews
// in every label at any size, under its planted list and under PII detection with it (the README's
// `--secrets pii,list`): a label's first 3 reviews stay public, and planted secrets never take
// more than half of a label's reviews.
TEST(TextDemoCorpus, EveryLabelKeepsPublicReviewsAtAnySize) {
  for (const auto& [records, seed, rate] : std::vector<std::tuple<std::size_t, std::uint64_t, double>>{
           {150, 7, 0.25}, {800, 7, 0.25}, {800, 3, 0.25}, {800, 5, 0.25}, {2000, 11, 0.25}, {3000, 7, 1.0}, {20000, 7, 0.25}}) {
    const DemoCorpus d = make_demo_corpus({.records = records, .seed = seed, .secret_rate = rate});
    SecretMatrix detected;
    const SecretSet pii = choose_pii_secrets(d.corpus.texts, kAllPiiCategories, &detected);
    const SecretSet list{.secrets = d.planted, .categories = std::vector<std::string>(d.planted.size(), "LIST"), .mode = "list"};
    const SecretMatrix matched = detect_secrets(d.corpus.texts, merge_secret_sets({pii, list}));
    std::map<std::vector<std::string>, std::array<std::size_t, 3>> per_label;  // records, public, planted
    for (std::size_t i = 0; i < records; ++i) {
      auto& n = per_label[d.corpus.labels[i]];
      ++n[0];
      n[1] += detected.is_private(i) || matched.is_private(i) ? 0 : 1;
      n[2] += d.secrets_of[i].empty() ? 0 : 1;
    }
    for (const auto& [label, n] : per_label) {
      SCOPED_TRACE(label[0] + " | " + label[1] + " of " + std::to_string(records) + ", seed " + std::to_string(seed));
      EXPECT_GE(n[1], std::min<std::size_t>(n[0], 3));
      EXPECT_LE(2 * n[2], n[0]);
    }
  }
}

}  // namespace
}  // namespace secpe
