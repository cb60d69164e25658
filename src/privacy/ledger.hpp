#pragma once
// The privacy ledger: every release is charged here before it happens, against what the
// calibration paid for (T releases per label). A release beyond that budget is refused, so no
// code path (more iterations, a resumed run, a bug) can release more than the report states.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace secpe {

class PrivacyLedger {
 public:
  PrivacyLedger(std::size_t labels, int calibrated_iterations);

  // Records a release of `label` at `iteration`, described by `entry` (what, sigma). Throws an
  // InputError when the label has already made every release its noise was calibrated for.
  void charge(std::size_t label, int iteration, nlohmann::ordered_json entry);
  // Records releases made elsewhere: by an earlier, interrupted run (its checkpoint), or by the
  // rank that evolved the label (--shard-by label). Entries already held are skipped, so a label
  // continued from its progress is never counted twice; the others are checked as charges are.
  void restore(std::size_t label, const nlohmann::ordered_json& entries);

  const nlohmann::ordered_json& entries(std::size_t label) const { return entries_[label]; }
  // Every release, label by label, in iteration order.
  nlohmann::ordered_json all_entries() const;

 private:
  int budget_;
  std::vector<nlohmann::ordered_json> entries_;
};

}  // namespace secpe
