#include <gtest/gtest.h>

#include "text/leak_scan.hpp"

namespace secpe {
namespace {

TEST(LeakScan, PiiPatternsCountTextsPerCategory) {
  const std::vector<std::string> texts = {"Write to jane@example.com or bob@example.org.", "Nothing here.",
                                          "Call 602-555-0147 at 7pm.", "Great tacos and friendly staff."};
  const LeakCounts c = scan_pii_leaks(texts);
  EXPECT_EQ(c.texts, 4u);
  EXPECT_EQ(c.flagged, 2u);
  EXPECT_EQ(c.flagged_text, (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(c.by_category.at("EMAIL"), 1u);  // texts, not matches
  EXPECT_EQ(c.by_category.at("PHONENUMBER"), 1u);
  EXPECT_EQ(c.by_category.at("TIME"), 1u);
  EXPECT_EQ(c.by_category.size(), kPiiCategoryCount);  // every category is listed, zeros too
  const auto j = c.to_json();
  EXPECT_EQ(j["flagged"], 2);
  EXPECT_EQ(j["by_category"]["SSN"], 0);
}

TEST(LeakScan, ExactSecretsCountPerCategoryAndNeverNameTheSecret) {
  const SecretSet secrets{.secrets = {"zorbalicious", "marisol quintero"}, .categories = {"RANDOM_WORD", "PERSON"}, .mode = "x"};
  const std::vector<std::string> texts = {"so ZORBALICIOUS", "ask Marisol Quintero", "ask marisol", "zorbalicious marisol quintero"};
  const LeakCounts c = scan_secret_leaks(texts, secrets);
  EXPECT_EQ(c.flagged_text, (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(c.by_category.at("RANDOM_WORD"), 2u);
  EXPECT_EQ(c.by_category.at("PERSON"), 2u);
  const std::string dumped = c.to_json().dump();
  EXPECT_EQ(dumped.find("zorb"), std::string::npos);
  EXPECT_EQ(dumped.find("marisol"), std::string::npos);
}

}  // namespace
}  // namespace secpe
