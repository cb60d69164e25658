#pragma once
// The privacy ledger of datasets: every completed `secpe run` records what it released about each
// secret, under the dataset's digest (its file's bytes: a copy or a rename is the same dataset), so
// that the next run on that dataset composes with all of them (privacy/run_composition.hpp) and a
// total budget can be kept (evolve/run_budget.hpp).
//
// A ledger is a folder (docs/privacy.md, "Across runs"): SECPE_LEDGER_DIR, or --ledger-dir, or
// ~/.local/share/secpe/ledger. A site keeps one per project by pointing every job at one folder.
//   ledger.key    a 256-bit MAC key (mode 0600), made with the first entry
//   ledger.jsonl  one line per recorded run, of every dataset: "MAC JSON", the JSON (the run's
//                 spend, each distinct release once) naming the MAC of the line before it, so a
//                 line changed, removed or reordered breaks the chain
//   ledger.head   "MAC JSON": how many lines there are and the last one's MAC, so lines cut from
//                 the end are noticed too
// The folder is private: it holds per-secret spends that depend on private records. Anything that
// does not check (an edited line, a missing key, head or list) is an InputError naming the file:
// secpe never starts a ledger over a damaged one, so losing part of it cannot reset the budget.
// Removing the whole folder does start a new one; docs/privacy.md says how to guard against that.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/secret_key.hpp"
#include "privacy/run_composition.hpp"

namespace secpe {

struct LedgerEntry {
  std::string dataset;        // the dataset file's digest
  std::string release;        // the release's identity: a MAC of its digest D under the noise key,
                              // so a repeat of the very same run (same key, inputs, nonce) is one release
  std::string nonce;          // public (run.json)
  std::string method;
  std::string recorded_utc;
  bool experiment = false;    // made to measure: its outputs are not for publication, and it is not counted
  int iterations = 0;
  double r_over_p = 0.0;            // this run's worst r_j / p_j
  double cumulative_r_over_p = 0.0; // with the counted runs recorded before it
  RunSpend spend;
};

// SECPE_LEDGER_DIR when set, else $XDG_DATA_HOME/secpe/ledger, else $HOME/.local/share/secpe/ledger.
std::filesystem::path default_ledger_dir();

// One dataset's recorded runs as a table (number, date, nonce, method, r/p alone and cumulative,
// experiments marked), and the spend so far: the last counted run's cumulative r/p.
std::string describe_runs(const std::vector<LedgerEntry>& runs);

class DatasetLedger {
 public:
  // Reads and checks the ledger in `dir` (none there: an empty ledger, nothing created).
  explicit DatasetLedger(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  // Every recorded run, in order; of one dataset.
  const std::vector<LedgerEntry>& entries() const { return entries_; }
  std::vector<LedgerEntry> runs_of(const std::string& dataset) const;

  // Appends `entry` under the folder's lock, after reading the ledger again where its files changed
  // since they were read (another run may have recorded since); false when its release is there
  // already (a repeat of a recorded run).
  bool record(const LedgerEntry& entry);

 private:
  void load();
  bool unchanged() const;
  void write_head(const NoiseKey& mac_key);
  std::filesystem::path dir_;
  std::vector<LedgerEntry> entries_;
  std::vector<std::string> lines_;  // as stored
  std::string head_;                // as stored
  std::optional<NoiseKey> mac_key_; // as stored (none: no ledger was there)
};

}  // namespace secpe
