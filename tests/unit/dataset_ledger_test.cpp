// The privacy ledger's storage (evolve/dataset_ledger.hpp): entries come back as recorded, a repeat
// of a recorded release is not added, an edited, cut or partly lost ledger is refused, and lines of
// the first form (each list's releases in full) still read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/secret_key.hpp"
#include "evolve/dataset_ledger.hpp"

namespace secpe {
namespace {

class DatasetLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("secpe_ledger_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static LedgerEntry entry(const std::string& release, double step) {
    return {.dataset = "d1", .release = release, .nonce = "00", .method = "secpe", .recorded_utc = "", .experiment = false,
            .iterations = 5, .r_over_p = 10, .cumulative_r_over_p = 10,
            .spend = {.releases = {{{0.25, 0.5, 0.25}, step, 5}}, .lists = {{0}}, .profile_of = {0, -1}}};
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }

  std::filesystem::path dir_;
};

TEST_F(DatasetLedgerTest, EntriesComeBackAsRecordedAndARepeatIsNotAdded) {
  DatasetLedger ledger(dir_);
  EXPECT_TRUE(ledger.entries().empty());
  EXPECT_TRUE(ledger.record(entry("r1", 0.1 + 0.2)));
  EXPECT_TRUE(ledger.record(entry("r2", 1.0 / 3.0)));
  EXPECT_FALSE(ledger.record(entry("r1", 0.1 + 0.2)));
  const DatasetLedger again(dir_);
  ASSERT_EQ(again.entries().size(), 2u);
  EXPECT_EQ(again.entries()[1].spend.releases[0].mean_step, 1.0 / 3.0);  // doubles kept bit for bit
  EXPECT_EQ(again.entries()[0].spend.profile_of, (std::vector<std::int32_t>{0, -1}));
  EXPECT_EQ(again.runs_of("d1").size(), 2u);
  EXPECT_TRUE(again.runs_of("d2").empty());
}

TEST_F(DatasetLedgerTest, AnEditedCutOrPartlyLostLedgerIsRefused) {
  DatasetLedger ledger(dir_);
  ledger.record(entry("r1", 0.3));
  ledger.record(entry("r2", 0.4));
  const std::string list = read("ledger.jsonl"), head = read("ledger.head");
  std::string edited = list;
  edited.replace(edited.find("\"r_over_p\":10"), 13, "\"r_over_p\":1.");
  write("ledger.jsonl", edited);
  EXPECT_THROW(DatasetLedger{dir_}, InputError);
  write("ledger.jsonl", list.substr(0, list.find('\n') + 1));  // the last line cut
  EXPECT_THROW(DatasetLedger{dir_}, InputError);
  write("ledger.jsonl", list);
  std::filesystem::remove(dir_ / "ledger.head");
  EXPECT_THROW(DatasetLedger{dir_}, InputError);
  write("ledger.head", head);
  EXPECT_NO_THROW(DatasetLedger{dir_});
  std::filesystem::remove(dir_ / "ledger.jsonl");
  EXPECT_THROW(DatasetLedger{dir_}, InputError);
}

// A run reads the ledger when it starts and records when it ends; what changed in between (another
// run's line, an edit) is read and checked again, and what did not is not parsed twice.
TEST_F(DatasetLedgerTest, RecordingSeesWhatChangedSinceTheLedgerWasRead) {
  DatasetLedger(dir_).record(entry("r1", 0.3));
  DatasetLedger first(dir_), second(dir_);
  EXPECT_TRUE(second.record(entry("r2", 0.4)));
  EXPECT_FALSE(first.record(entry("r2", 0.4)));  // the other run's line is seen
  EXPECT_TRUE(first.record(entry("r3", 0.5)));
  EXPECT_TRUE(first.record(entry("r4", 0.6)));   // after its own line, nothing to read again
  const DatasetLedger again(dir_);
  ASSERT_EQ(again.entries().size(), 4u);
  EXPECT_EQ(again.entries()[1].release, "r2");
  EXPECT_EQ(again.entries()[3].release, "r4");

  DatasetLedger third(dir_);
  std::string edited = read("ledger.jsonl");
  edited.replace(edited.find("\"r_over_p\":10"), 13, "\"r_over_p\":1.");
  write("ledger.jsonl", edited);
  EXPECT_THROW(third.record(entry("r5", 0.7)), InputError);  // an edit since it was read is refused
  EXPECT_THROW(DatasetLedger{dir_}, InputError);             // and left for its owner to restore
}

TEST_F(DatasetLedgerTest, ALineOfTheFirstFormReadsAsItsReleasesSharedOnce) {
  DatasetLedger ledger(dir_);
  ledger.record(entry("r0", 0.5));  // makes the key and the head
  // The first form wrote every list's releases in full; two lists here share the release of step 0.3.
  const std::string json =
      R"({"number":2,"previous":")" + read("ledger.jsonl").substr(0, 64) +
      R"(","run":{"dataset":"d1","release":"r1","nonce":"01","method":"secpe","recorded_utc":"2026-12-01T00:00:00Z",)"
      R"("experiment":false,"iterations":5,"r_over_p":10.0,"cumulative_r_over_p":12.0,"spend":{"public_only":false,"profiles":)"
      R"([[{"step":0.3,"repetitions":5,"pmf":[0.5,0.5]}],[{"step":0.7,"repetitions":5,"pmf":[0.25,0.75]},)"
      R"({"step":0.3,"repetitions":5,"pmf":[0.5,0.5]}]],"profile_of":[1,-1,0]}}})";
  const NoiseKey key = read_noise_key_file(dir_ / "ledger.key");
  const std::string line = keyed_digest_hex(key, "secpe dataset ledger v1", json) + " " + json;
  write("ledger.jsonl", read("ledger.jsonl") + line + "\n");
  const std::string head = R"({"lines":2,"last":")" + line.substr(0, 64) + R"("})";
  write("ledger.head", keyed_digest_hex(key, "secpe dataset ledger v1", head) + " " + head + "\n");
  const DatasetLedger again(dir_);
  ASSERT_EQ(again.entries().size(), 2u);
  const RunSpend& spend = again.entries()[1].spend;
  ASSERT_EQ(spend.releases.size(), 2u);
  EXPECT_EQ(spend.releases[0].mean_step, 0.3);
  EXPECT_EQ(spend.releases[1].pi, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(spend.lists, (std::vector<std::vector<std::int32_t>>{{0}, {1, 0}}));
  EXPECT_EQ(spend.profile_of, (std::vector<std::int32_t>{1, -1, 0}));
  EXPECT_TRUE(DatasetLedger(dir_).record(entry("r2", 0.5)));  // and the ledger goes on from it
  EXPECT_EQ(DatasetLedger(dir_).entries().size(), 3u);
}

}  // namespace
}  // namespace secpe
