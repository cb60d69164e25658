#include "evolve/dataset_ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/secret_key.hpp"

namespace secpe {
namespace {

constexpr std::string_view kPurpose = "secpe dataset ledger v1";

std::filesystem::path key_path(const std::filesystem::path& dir) { return dir / "ledger.key"; }
std::filesystem::path list_path(const std::filesystem::path& dir) { return dir / "ledger.jsonl"; }
std::filesystem::path head_path(const std::filesystem::path& dir) { return dir / "ledger.head"; }

// A run's spend as stored, as RunSpend holds it: each distinct release once ("releases"), each
// list as indices into them ("lists"), and profile_of. A run reads the whole ledger when it starts,
// so the size counts: on the demo corpus at Yelp scale a line takes 2.1 MB, where the first form,
// every list's releases in full ("profiles"), took 30 MB. Lines of that form still read.
nlohmann::ordered_json release_json(const MixtureRelease& r) { return {{"step", r.mean_step}, {"repetitions", r.repetitions}, {"pmf", r.pi}}; }

MixtureRelease release_of(const nlohmann::ordered_json& j) {
  return {j.at("pmf").get<std::vector<double>>(), j.at("step").get<double>(), j.at("repetitions").get<int>()};
}

nlohmann::ordered_json spend_json(const RunSpend& spend) {
  nlohmann::ordered_json releases = nlohmann::ordered_json::array();
  for (const MixtureRelease& r : spend.releases) releases.push_back(release_json(r));
  return {{"public_only", spend.public_only}, {"releases", std::move(releases)}, {"lists", spend.lists}, {"profile_of", spend.profile_of}};
}

RunSpend spend_of(const nlohmann::ordered_json& j) {
  RunSpend spend;
  if (j.contains("releases")) {
    for (const auto& r : j.at("releases")) spend.releases.push_back(release_of(r));
    spend.lists = j.at("lists").get<std::vector<std::vector<std::int32_t>>>();
  } else {
    SpendBuilder builder;
    for (const auto& list : j.at("profiles")) {
      std::vector<MixtureRelease> releases;
      for (const auto& r : list) releases.push_back(release_of(r));
      builder.add_list(releases);
    }
    spend = std::move(builder.spend());
  }
  spend.profile_of = j.at("profile_of").get<std::vector<std::int32_t>>();
  spend.public_only = j.at("public_only").get<bool>();
  return spend;
}

nlohmann::ordered_json entry_json(const LedgerEntry& e) {
  return {{"dataset", e.dataset}, {"release", e.release}, {"nonce", e.nonce}, {"method", e.method}, {"recorded_utc", e.recorded_utc},
          {"experiment", e.experiment}, {"iterations", e.iterations}, {"r_over_p", e.r_over_p},
          {"cumulative_r_over_p", e.cumulative_r_over_p}, {"spend", spend_json(e.spend)}};
}

LedgerEntry entry_of(const nlohmann::ordered_json& j) {
  return {.dataset = j.at("dataset"), .release = j.at("release"), .nonce = j.at("nonce"), .method = j.at("method"),
          .recorded_utc = j.at("recorded_utc"), .experiment = j.at("experiment"), .iterations = j.at("iterations"),
          .r_over_p = j.at("r_over_p"), .cumulative_r_over_p = j.at("cumulative_r_over_p"), .spend = spend_of(j.at("spend"))};
}

// A stored line: "MAC JSON", the MAC over the JSON's exact bytes.
std::string signed_line(const NoiseKey& key, const std::string& json) { return keyed_digest_hex(key, kPurpose, json) + " " + json; }

// The JSON of a stored line whose MAC checks; InputError naming the file and line otherwise.
nlohmann::ordered_json checked_line(const NoiseKey& key, const std::string& line, const std::filesystem::path& file, std::size_t number,
                                    std::string* mac) {
  const auto space = line.find(' ');
  const std::string json = space == std::string::npos ? "" : line.substr(space + 1);
  if (space == std::string::npos || keyed_digest_hex(key, kPurpose, json) != line.substr(0, space)) {
    throw input_error_at(file.string(), static_cast<long long>(number),
                         "the privacy ledger does not check (edited, damaged, or written under another ledger.key): secpe will not "
                         "run on it, as that could reset the budget; restore the ledger folder from its backup");
  }
  *mac = line.substr(0, space);
  return nlohmann::ordered_json::parse(json);
}

// The folder's lock, held while a run reads the ledger again and appends to it.
class LedgerLock {
 public:
  explicit LedgerLock(const std::filesystem::path& dir) : fd_(::open((dir / "ledger.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw InputError("cannot lock the privacy ledger in '" + dir.string() + "'");
  }
  ~LedgerLock() { ::close(fd_); }
  LedgerLock(const LedgerLock&) = delete;
  LedgerLock& operator=(const LedgerLock&) = delete;

 private:
  int fd_;
};

std::string utc_timestamp() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

std::string describe_runs(const std::vector<LedgerEntry>& runs) {
  std::string out;
  char line[200];
  std::snprintf(line, sizeof line, "  %3s  %-20s  %-32s  %-7s  %10s  %12s\n", "#", "recorded (UTC)", "noise nonce", "method", "r/p alone",
                "r/p overall");
  out += line;
  double spent = 1.0;
  std::size_t experiments = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const LedgerEntry& e = runs[k];
    std::snprintf(line, sizeof line, "  %3zu  %-20s  %-32s  %-7s  %10.4g  %12.4g%s\n", k + 1, e.recorded_utc.c_str(), e.nonce.c_str(),
                  e.method.c_str(), e.r_over_p, e.cumulative_r_over_p, e.experiment ? "  experiment: not counted" : "");
    out += line;
    if (e.experiment) ++experiments;
    else spent = e.cumulative_r_over_p;
  }
  std::snprintf(line, sizeof line, "  spent: worst cumulative r/p %.4g over %zu counted run(s)", spent, runs.size() - experiments);
  return out + line + (experiments ? " (" + std::to_string(experiments) + " experiment(s) listed, not counted)" : std::string()) + "\n";
}

std::filesystem::path default_ledger_dir() {
  if (const char* dir = std::getenv("SECPE_LEDGER_DIR"); dir && *dir) return dir;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data) return std::filesystem::path(data) / "secpe" / "ledger";
  const char* home = std::getenv("HOME");
  if (!home || !*home) throw InputError("no privacy ledger folder: set SECPE_LEDGER_DIR (or HOME), or give --ledger-dir");
  return std::filesystem::path(home) / ".local" / "share" / "secpe" / "ledger";
}

DatasetLedger::DatasetLedger(std::filesystem::path dir) : dir_(std::move(dir)) { load(); }

void DatasetLedger::load() {
  entries_.clear();
  lines_.clear();
  head_.clear();
  mac_key_.reset();
  const bool key = std::filesystem::exists(key_path(dir_)), list = std::filesystem::exists(list_path(dir_)),
             head = std::filesystem::exists(head_path(dir_));
  if (!key && !list && !head) return;  // no ledger yet
  // A new ledger writes its key, then its head (no lines), then its list: an empty list may be
  // absent, nothing else may.
  for (const auto& [present, path] : {std::pair{key, key_path(dir_)}, {head, head_path(dir_)}}) {
    if (!present) {
      throw InputError(path.string() + " is missing from the privacy ledger: secpe will not run on a ledger with a part lost, as that "
                       "could reset the budget; restore the ledger folder from its backup");
    }
  }
  const NoiseKey mac_key = read_noise_key_file(key_path(dir_));
  mac_key_ = mac_key;
  std::ifstream in(list_path(dir_));
  std::string line, mac, previous = "none";
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const nlohmann::ordered_json j = checked_line(mac_key, line, list_path(dir_), number, &mac);
    if (j.at("previous") != previous || j.at("number") != number) {
      throw input_error_at(list_path(dir_).string(), static_cast<long long>(number),
                           "the privacy ledger's lines are out of order or one is missing: restore the ledger folder from its backup");
    }
    entries_.push_back(entry_of(j.at("run")));
    lines_.push_back(line);
    previous = mac;
  }
  std::ifstream head_in(head_path(dir_));
  std::getline(head_in, line);
  const nlohmann::ordered_json h = checked_line(mac_key, line, head_path(dir_), 1, &mac);
  head_ = line;
  const auto count = h.at("lines").get<std::size_t>();
  // The head may lag one line behind the list (a run stopped between the two writes), never ahead.
  const std::string last = count == 0 ? "none" : count <= lines_.size() ? lines_[count - 1].substr(0, 64) : "";
  if (count > lines_.size() || count + 1 < lines_.size() || last != h.at("last") || (!list && count > 0)) {
    throw InputError(head_path(dir_).string() + ": the privacy ledger holds " + std::to_string(lines_.size()) + " lines where its head "
                     "says " + std::to_string(count) + ": lines were cut; restore the ledger folder from its backup");
  }
}

void DatasetLedger::write_head(const NoiseKey& mac_key) {
  const nlohmann::ordered_json head{{"lines", lines_.size()}, {"last", lines_.empty() ? "none" : lines_.back().substr(0, 64)}};
  head_ = signed_line(mac_key, head.dump());
  mac_key_ = mac_key;
  write_file_atomically(head_path(dir_), [&](std::ostream& o) { o << head_ << "\n"; }, FileAccess::kPrivate);
}

std::vector<LedgerEntry> DatasetLedger::runs_of(const std::string& dataset) const {
  std::vector<LedgerEntry> out;
  for (const LedgerEntry& e : entries_)
    if (e.dataset == dataset) out.push_back(e);
  return out;
}

// Whether the ledger's files are still the bytes that load() read and checked, so that recording
// need not parse them again (0.6 s with 10 earlier runs at Yelp scale). Comparing bytes suffices:
// any change, another run's line or an edit, makes it read (and check) the ledger again.
bool DatasetLedger::unchanged() const {
  if (!mac_key_ || !std::filesystem::exists(key_path(dir_)) || read_noise_key_file(key_path(dir_)).bytes != mac_key_->bytes) return false;
  std::ifstream head_in(head_path(dir_));
  std::string line;
  if (!std::getline(head_in, line) || line != head_) return false;
  std::ifstream in(list_path(dir_));
  std::size_t k = 0;
  for (; std::getline(in, line); ++k)
    if (k >= lines_.size() || line != lines_[k]) return false;
  return k == lines_.size();
}

bool DatasetLedger::record(const LedgerEntry& entry) {
  ensure_private_folder(dir_, "privacy ledger folder");
  const LedgerLock lock(dir_);
  if (!unchanged()) load();
  for (const LedgerEntry& e : entries_)
    if (e.release == entry.release) return false;
  if (!std::filesystem::exists(key_path(dir_))) {
    write_noise_key_file(key_path(dir_), noise_key_from_os());
    write_head(read_noise_key_file(key_path(dir_)));
  }
  const NoiseKey mac_key = *mac_key_;  // as read (or just made) and checked: not read once more
  LedgerEntry stamped = entry;
  stamped.recorded_utc = utc_timestamp();
  const nlohmann::ordered_json body{{"number", lines_.size() + 1}, {"previous", lines_.empty() ? "none" : lines_.back().substr(0, 64)},
                                    {"run", entry_json(stamped)}};
  lines_.push_back(signed_line(mac_key, body.dump()));
  write_file_atomically(list_path(dir_), [&](std::ostream& o) { for (const auto& l : lines_) o << l << "\n"; }, FileAccess::kPrivate);
  write_head(mac_key);
  entries_.push_back(std::move(stamped));
  return true;
}

}  // namespace secpe
