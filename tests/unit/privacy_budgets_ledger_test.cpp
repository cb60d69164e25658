#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.hpp"
#include "privacy/budgets.hpp"
#include "privacy/ledger.hpp"
#include "privacy/study.hpp"

namespace secpe {
namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("secpe_budget_test_" + name);
  std::ofstream(path) << text;
  return path;
}

void expect_error_containing(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    FAIL() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Budgets, UniformAndValidation) {
  const auto b = uniform_budgets(3, 1e-4, 1e-3);
  EXPECT_EQ(b.p, std::vector<double>(3, 1e-4));
  expect_error_containing([] { uniform_budgets(1, 1e-3, 1e-3); }, "r must be in (p, 1)");
  expect_error_containing([] { uniform_budgets(1, 0.0, 0.5); }, "p must be in (0, 1)");
  expect_error_containing([] { uniform_budgets(1, std::nan(""), 0.5); }, "p must be in (0, 1)");
  expect_error_containing([] { uniform_budgets(1, 1e-4, std::nan("")); }, "r must be in (p, 1)");
}

TEST(Budgets, FileOverridesByNameAndIndex) {
  const std::vector<std::string> names{"Marisol Quintero", "jane@example.com", "zorbalicious"};
  const auto path = write_temp("ok.csv", "secret,p,r\n# a comment\nmarisol quintero,1e-3,5e-3\n#2,2e-4,1e-2\n");
  const auto b = read_budgets_file(path, names, uniform_budgets(3, 1e-4, 1e-3));
  EXPECT_EQ(b.p[0], 1e-3);
  EXPECT_EQ(b.r[0], 5e-3);
  EXPECT_EQ(b.p[1], 1e-4);  // not listed: the default
  EXPECT_EQ(b.r[2], 1e-2);
}

TEST(Budgets, FileMayCapASecretOverAllRuns) {
  const std::vector<std::string> names{"a", "b", "c"};
  const auto path = write_temp("totals.csv", "secret,p,r,total_r\na,1e-4,1e-3,3e-3\n#1,1e-4,1e-3,\n");
  const auto b = read_budgets_file(path, names, uniform_budgets(3, 1e-4, 1e-3));
  EXPECT_EQ(b.total_r, (std::vector<double>{3e-3, 0.0, 0.0}));  // empty or not listed: no cap
  EXPECT_TRUE(uniform_budgets(3, 1e-4, 1e-3).total_r.empty());
  const auto below = write_temp("totals_bad.csv", "secret,p,r,total_r\na,1e-4,1e-3,5e-4\n");
  EXPECT_THROW(read_budgets_file(below, names, uniform_budgets(3, 1e-4, 1e-3)), InputError);  // a total below one run's r
  const auto short_line = write_temp("totals_short.csv", "secret,p,r,total_r\na,1e-4,1e-3\n");
  EXPECT_THROW(read_budgets_file(short_line, names, uniform_budgets(3, 1e-4, 1e-3)), InputError);
}

TEST(Budgets, FileErrorsNameFileAndLineButNotTheSecret) {
  const std::vector<std::string> names{"marisol quintero"};
  const auto defaults = uniform_budgets(1, 1e-4, 1e-3);
  auto bad = [&](const std::string& name, const std::string& text, const std::string& needle) {
    const auto path = write_temp(name, text);
    try {
      read_budgets_file(path, names, defaults);
      FAIL() << "no error for " << name;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
      EXPECT_EQ(msg.find("nobody special"), std::string::npos) << "the secret leaked into: " << msg;
    }
  };
  bad("header.csv", "name,p\n", "header.csv:1: expected the header");
  bad("unknown.csv", "secret,p,r\nnobody special,1e-4,1e-3\n", "unknown.csv:2: the secret is not in");
  bad("range.csv", "secret,p,r\n#5,1e-4,1e-3\n", "range.csv:2: secret index out of range");
  bad("rp.csv", "secret,p,r\n#0,1e-3,1e-4\n", "rp.csv:2: r must be in (p, 1)");
  bad("nan.csv", "secret,p,r\n#0,abc,1e-3\n", "nan.csv:2: field 'p' is not a number");
  bad("twice.csv", "secret,p,r\n#0,1e-4,1e-3\n#0,1e-4,1e-3\n", "twice.csv:3: secret #0 is listed twice");
  bad("fields.csv", "secret,p,r\n#0,1e-4\n", "fields.csv:2: expected 3 fields");
}

// Only '#' and plain decimal digits is an index; before, "#-1" and "#abc" were comments (the
// budget silently dropped), "#1.5" and "#0x1" meant secret 1, "#1e300" and 2^64 secret 0.
TEST(Budgets, OnlyPlainDecimalIndicesAfterHash) {
  const std::vector<std::string> names{"a", "b", "c"};
  const auto defaults = uniform_budgets(3, 1e-4, 1e-3);
  for (const std::string key : {"#-1", "#abc", "#1.5", "#0x1", "#1e300", "#18446744073709551616", "#+1", "#", "#1 2"}) {
    SCOPED_TRACE(key);
    const auto path = write_temp("index.csv", "secret,p,r\n\n" + key + ",1e-4,1e-3\n");
    try {
      read_budgets_file(path, names, defaults);
      FAIL() << "no error";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("index.csv:3: a secret index is '#' followed by decimal digits only"), std::string::npos) << msg;
      if (key.size() > 1) EXPECT_EQ(msg.find(key), std::string::npos) << "the field was quoted: " << msg;
    }
  }
  const auto path = write_temp("comments.csv", "# budgets\nsecret,p,r\n  # indented note\n#\n# 1,5e-4,1e-2 (commented out)\n#0002,2e-4,1e-2\n");
  const auto b = read_budgets_file(path, names, defaults);
  EXPECT_EQ(b.p[2], 2e-4);
  EXPECT_EQ(b.p[1], 1e-4);
}

TEST(PrivacyLedger, RefusesReleasesBeyondTheCalibratedBudget) {
  PrivacyLedger ledger(2, 3);
  for (int t = 0; t < 3; ++t) ledger.charge(0, t, {{"sigma", 1.0}});
  expect_error_containing([&] { ledger.charge(0, 3, {{"sigma", 1.0}}); }, "refusing to release more than the budget allows");
  ledger.restore(1, nlohmann::ordered_json::array({{{"iteration", 0}}, {{"iteration", 1}}}));
  ledger.charge(1, 2, {});
  EXPECT_THROW(ledger.charge(1, 3, {}), InputError);
  EXPECT_EQ(ledger.all_entries().size(), 6u);
  // A label restored from its progress, then from its finished outcome (--shard-by label hands
  // every rank the whole list): the entries already held are not counted again.
  ledger.restore(1, nlohmann::ordered_json::array({{{"iteration", 0}}, {{"iteration", 1}}, {{"iteration", 2}}}));
  EXPECT_EQ(ledger.entries(1).size(), 3u);
  EXPECT_THROW(ledger.restore(1, nlohmann::ordered_json::array({{{"iteration", 3}}})), InputError);
  EXPECT_EQ(ledger.all_entries().size(), 6u);
}

TEST(PrivacyStudy, ExactSigmaCoversWhatThePaperUnderProtects) {
  // Few records per secret and a high sampling rate: the mixture's tail matters.
  const SecretMatrix rows = simulate_secret_matrix(300, 6, 0.02, 3);
  const auto budgets = uniform_budgets(6, 1e-4, 1e-3);
  PrivacyStudyOptions o;
  o.iterations = 5;
  o.batch = 30;
  o.records = 300;
  const PrivacyStudy s = study_privacy(rows, budgets, o);
  EXPECT_GT(s.sigma_exact, s.sigma_paper);
  for (std::size_t j = 0; j < s.secrets.size(); ++j) {
    EXPECT_GE(s.secrets[j].sigma_exact, 0.0);
    EXPECT_GT(s.secrets[j].sigma_gdp, 0.0);
  }
  // The paper's sigma (evaluated by default) leaves some secret above its r.
  double worst = 0;
  for (const auto& x : s.secrets) worst = std::max(worst, x.r_at_sigma);
  EXPECT_GT(worst, 1e-3);
  // Summary-only gives the same maximum, to the calibration's tolerance (~1e-6 relative): it may
  // skip the top secret when another one's sigma, within that tolerance, already certifies it.
  o.per_secret_exact = false;
  EXPECT_NEAR(study_privacy(rows, budgets, o).sigma_exact, s.sigma_exact, 1e-6 * s.sigma_exact);
}

TEST(PrivacyStudy, BadInputs) {
  const auto budgets = uniform_budgets(2, 1e-4, 1e-3);
  SecretMatrix rows;
  rows.num_secrets = 2;
  rows.indptr = {0, 1};
  rows.indices = {0};
  PrivacyStudyOptions o;
  expect_error_containing([&] { study_privacy(rows, budgets, o); }, "secret #1 is held by no record");
  o.iterations = 0;
  expect_error_containing([&] { study_privacy(rows, budgets, o); }, "iterations must be at least 1");
  expect_error_containing([] { simulate_secret_matrix(10, 0, 0.1, 1); }, "secrets must be at least 1");
}

}  // namespace
}  // namespace secpe
