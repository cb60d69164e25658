// Checkpoints are checksummed, MAC'd with a subkey of the noise key and validated: an edited,
// damaged or hand-made checkpoint is an InputError naming the file and the field, never a crash or
// edited text in the outputs; an edit with a recomputed checksum is caught by the MAC.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/private_state.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

NoiseKey test_key(unsigned char fill = 7) {
  NoiseKey key;
  key.bytes.fill(fill);
  return key;
}

Checkpoint sample(std::size_t label = 3) {
  Checkpoint c{{{"seed", 5}, {"noise_key_check", noise_key_check(test_key())}, {"iterations", 2}}, {}};
  LabelOutcome o;
  o.synthetic = {"a synthetic review", "another one"};
  o.initial = {"a synthetic review at first", "and one more"};
  o.history = {{"a synthetic review in between", "another one"}, o.synthetic};
  o.report = {{"id", label}, {"name", "Bars | 5.0"}, {"sigma", 1.5}};
  o.releases = nlohmann::ordered_json::array({{{"iteration", 0}, {"sigma", 1.5}}, {{"iteration", 1}, {"sigma", 1.5}}});
  o.metrics = {{{"label", label}, {"iteration", 0}}};
  c.labels[label] = o;
  return c;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A checkpoint file with `content`, a correct checksum and the MAC under `key`: what secpe would
// write (with the test key), so that the field checks are what refuses it.
void write_with_mac(const TempFile& file, const std::string& content, const NoiseKey& key = test_key()) {
  const std::string mac = keyed_digest_hex(state_mac_key(key), "secpe state file " + file.path().filename().string(), content);
  file.write(R"({"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:)" + blake2b_256_hex(content) +
             R"(","mac":"blake2b-256-keyed:)" + mac + R"(","content":)" + content + "}\n");
}

void expect_error(const TempFile& file, const std::string& needle, std::optional<std::size_t> labels = 41, const NoiseKey* key = nullptr) {
  try {
    load_checkpoint(file.path(), labels, key);
    FAIL() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file.str() + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.find("synthetic review"), std::string::npos) << "text leaked into: " << msg;
  }
}

TEST(Checkpoint, SavesAndLoadsWithAChecksumAndAMac) {
  TempFile file("checkpoint.json");
  const NoiseKey key = test_key();
  save_checkpoint(file.path(), sample(), key);
  const Checkpoint c = load_checkpoint(file.path(), 41, &key);
  ASSERT_EQ(c.labels.size(), 1u);
  EXPECT_EQ(c.fingerprint, sample().fingerprint);
  EXPECT_EQ(c.labels.at(3).synthetic, sample().labels.at(3).synthetic);
  EXPECT_EQ(c.labels.at(3).initial, sample().labels.at(3).initial);
  EXPECT_EQ(c.labels.at(3).history, sample().labels.at(3).history);
  EXPECT_EQ(c.labels.at(3).releases, sample().labels.at(3).releases);
  EXPECT_EQ(c.labels.at(3).metrics, sample().labels.at(3).metrics);
  EXPECT_EQ(read_text(file.path()).find(R"({"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:)"), 0u);
  EXPECT_EQ(std::filesystem::status(file.path()).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // Neither the key nor the MAC key is in the file; the MAC is not the plain checksum.
  const std::string text = read_text(file.path());
  const NoiseKey mac_key = state_mac_key(key);
  EXPECT_EQ(text.find(std::string(key.bytes.begin(), key.bytes.end())), std::string::npos);
  EXPECT_EQ(text.find(keyed_digest_hex(key, "", "")), std::string::npos);
  EXPECT_EQ(text.find(std::string(mac_key.bytes.begin(), mac_key.bytes.end())), std::string::npos);
}

// Issue 25: an edited checkpoint whose plain checksum was recomputed was accepted, and its text
// reached synthetic.csv. The MAC, keyed by a subkey of the noise key, refuses it, naming the file.
TEST(Checkpoint, EditWithARecomputedChecksumIsRefusedByTheMac) {
  TempFile file("checkpoint.json");
  const NoiseKey key = test_key();
  save_checkpoint(file.path(), sample(), key);
  const std::string text = read_text(file.path());
  const auto content_at = text.find(R"(","content":)") + 12;
  std::string content = text.substr(content_at, text.size() - content_at - 2);  // without "}\n"
  content.replace(content.find("another one"), 11, "injected!!!");
  const auto mac_at = text.find("blake2b-256-keyed:") + 18;
  file.write(R"({"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:)" + blake2b_256_hex(content) +
             R"(","mac":"blake2b-256-keyed:)" + text.substr(mac_at, 64) + R"(","content":)" + content + "}\n");
  EXPECT_NO_THROW(load_checkpoint(file.path(), 41, nullptr));  // the checksum alone is fooled (secpe inspect)
  expect_error(file, "edited outside secpe: its MAC (keyed by the noise key) does not match", 41, &key);
  // The same content with the MAC of another key: "another key", never accepted either.
  write_with_mac(file, content, test_key(8));
  expect_error(file, "edited outside secpe", 41, &key);
  // Progress is MAC'd too, and a checkpoint's MAC does not fit it (the file name is bound).
  TempFile progress("progress.json");
  const std::map<std::size_t, LabelProgress> in_progress{{3, {3, 1, sample().labels.at(3)}}};
  save_progress(progress.path(), sample().fingerprint, in_progress, key);
  std::string p = read_text(progress.path());
  const std::string mac = keyed_digest_hex(state_mac_key(key), "secpe state file checkpoint.json", "x");
  p.replace(p.find("blake2b-256-keyed:") + 18, 64, mac);
  progress.write(p);
  try {
    load_progress(progress.path(), 41, 2, sample().fingerprint, key);
    FAIL() << "a progress file with a wrong MAC was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(progress.str() + ": edited outside secpe"), std::string::npos) << e.what();
  }
  // Another noise key: refused as such, with nothing derived from either key in the message.
  save_checkpoint(file.path(), sample(), key);
  const NoiseKey other = test_key(9);
  try {
    load_checkpoint(file.path(), 41, &other);
    FAIL() << "another key was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("was made with a different noise key"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(noise_key_check(key)), std::string::npos);
  }
}

// Before, edited synthetic text was copied to synthetic.csv by --resume.
TEST(Checkpoint, EditedOrDamagedContentIsRefused) {
  TempFile file("edited.json");
  save_checkpoint(file.path(), sample(), test_key());
  const std::string text = read_text(file.path());
  std::string edited = text;
  edited.replace(edited.find("another one"), 11, "injected!!!");
  file.write(edited);
  expect_error(file, "damaged or edited checkpoint: the checksum does not match");

  std::string flipped = text;
  flipped[flipped.find("\"seed\"") + 8] ^= 1;
  file.write(flipped);
  expect_error(file, "the checksum does not match");

  const auto j = nlohmann::ordered_json::parse(text);
  file.write(j.dump(2));  // pretty-printed: not the layout secpe writes
  expect_error(file, "not a secpe checkpoint");
  file.write(R"({"format":"secpe-checkpoint","format_version":1,"fingerprint":{},"labels":[]})");
  expect_error(file, "written by an older secpe; start afresh");
  file.write(R"({"format":"secpe-checkpoint","format_version":2,"checksum":"blake2b-256:00","content":{}})");
  expect_error(file, "written by an older secpe; start afresh");
  file.write(R"({"format":"secpe-checkpoint","format_version":3,"checksum":"blake2b-256:00","content":{}})");
  expect_error(file, "written by an older secpe; start afresh");
  file.write("");
  expect_error(file, "not a secpe checkpoint");
}

// Before, a label of 999999 or -1 crashed --resume.
TEST(Checkpoint, LabelsMustBeInRangeAndFieldsOfTheirTypes) {
  TempFile file("fields.json");
  save_checkpoint(file.path(), sample(999999), test_key());
  expect_error(file, "labels[0].label is 999999, outside the dataset's 41 labels");
  EXPECT_NO_THROW(load_checkpoint(file.path(), std::nullopt, nullptr));  // `secpe inspect` knows no dataset

  const std::string ok_label = R"({"label":1,"synthetic":[],"initial":[],"history":[],"report":{},"releases":[],"metrics":[]})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"fingerprint":{},"labels":[{"label":-1,"synthetic":[],"initial":[],"history":[],"report":{},"releases":[],"metrics":[]}]})", "labels[0].label is -1"},
      {R"({"fingerprint":{},"labels":[{"label":"1","synthetic":[],"initial":[],"history":[],"report":{},"releases":[],"metrics":[]}]})", "labels[0].label is not number"},
      {R"({"fingerprint":{},"labels":[)" + ok_label + "," + ok_label + "]}", "labels[1].label 1 is listed twice"},
      {R"({"fingerprint":{},"labels":[{"label":1,"report":{},"releases":[],"metrics":[]}]})", "labels[0].synthetic is missing"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[7],"initial":[],"history":[],"report":{},"releases":[],"metrics":[]}]})", "synthetic holds a value that is not a string"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"initial":[],"history":[],"report":{"name":3},"releases":[],"metrics":[]}]})", "report.name is not a string"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"initial":[],"history":[],"report":{},"releases":[{"sigma":1}],"metrics":[]}]})", "without a whole iteration number"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"initial":[],"history":[],"report":{},"releases":[],"metrics":[1]}]})", "metrics holds a value that is not an object"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"report":{},"releases":[],"metrics":[]}]})", "labels[0].initial is missing"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"initial":[],"history":[["x",2]],"report":{},"releases":[],"metrics":[]}]})", "history holds a value that is not a string"},
      {R"({"fingerprint":{},"labels":[{"label":1,"synthetic":[],"initial":[],"history":["x"],"report":{},"releases":[],"metrics":[]}]})", "history holds a value that is not an array"},
      {R"({"fingerprint":{},"labels":{}})", "labels is not array"},
      {R"({"labels":[]})", "fingerprint is missing"},
      {R"([1,2])", "the content is not a JSON object"},
      {R"({"fingerprint":{},"labels":[)", "the content is not a JSON object"},
  };
  for (const auto& [content, needle] : cases) {
    SCOPED_TRACE(content);
    write_with_mac(file, content);
    expect_error(file, needle);
  }
}

// --shard-by label: one label in progress per rank, all in progress.json.
TEST(Checkpoint, ProgressHoldsEveryLabelInProgress) {
  TempFile file("progress.json");
  const Checkpoint c = sample();
  const NoiseKey key = test_key();
  std::map<std::size_t, LabelProgress> in_progress;
  for (const std::size_t label : {3u, 7u}) in_progress[label] = {label, 1, sample(label).labels.at(label)};
  save_progress(file.path(), c.fingerprint, in_progress, key);
  const auto loaded = load_progress(file.path(), 41, 2, c.fingerprint, key);
  ASSERT_EQ(loaded.size(), 2u);
  for (const std::size_t label : {3u, 7u}) {
    EXPECT_EQ(loaded.at(label).label, label);
    EXPECT_EQ(loaded.at(label).iterations_done, 1);
    EXPECT_EQ(loaded.at(label).outcome.synthetic, in_progress.at(label).outcome.synthetic);
    EXPECT_EQ(loaded.at(label).outcome.releases, in_progress.at(label).outcome.releases);
  }
  const nlohmann::ordered_json one = progress_json(in_progress.at(7));

  // A finished label's state (iterations_done = T) travels between ranks but never sits in a file.
  const LabelProgress finished{3, 2, sample().labels.at(3)};
  EXPECT_EQ(progress_from_json(progress_json(finished), "rank 1's label state", 41, 2).outcome.metrics, finished.outcome.metrics);
  in_progress[3].iterations_done = 2;
  save_progress(file.path(), c.fingerprint, in_progress, key);
  try {
    load_progress(file.path(), 41, 2, c.fingerprint, key);
    FAIL() << "a finished label was accepted as in progress";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("in_progress[0].iterations_done is 2, not in [1, 1]"), std::string::npos) << e.what();
  }
  write_with_mac(file, nlohmann::ordered_json{{"fingerprint", c.fingerprint}, {"in_progress", {one, one}}}.dump());
  try {
    load_progress(file.path(), 41, 2, c.fingerprint, key);
    FAIL() << "a label listed twice was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("in_progress lists label 7 twice"), std::string::npos) << e.what();
  }
}

// A refusal names the setting that differs; for the vote rule, whose default changed, it also
// says which value resumes the run.
TEST(Checkpoint, AnotherSettingIsRefusedByName) {
  const nlohmann::ordered_json saved = {{"r", 1e-3}, {"votes_per_centre", 1}};
  try {
    check_fingerprint(saved, {{"r", 1e-3}, {"votes_per_centre", 4}}, "out.state/checkpoint.json");
    FAIL() << "another vote rule was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a different 'votes_per_centre' (1, now 4); --votes-per-center 1 resumes it"), std::string::npos) << e.what();
  }
  try {
    check_fingerprint(saved, {{"r", 2e-3}, {"votes_per_centre", 1}}, "out.state/checkpoint.json");
    FAIL() << "another r was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a different 'r' (0.001, now 0.002); use a new output folder"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_fingerprint(saved, saved, "out.state/checkpoint.json"));
}

}  // namespace
}  // namespace secpe
