#include "privacy/ledger.hpp"

#include "core/error.hpp"

namespace secpe {

PrivacyLedger::PrivacyLedger(std::size_t labels, int calibrated_iterations)
    : budget_(calibrated_iterations), entries_(labels, nlohmann::ordered_json::array()) {}

void PrivacyLedger::charge(std::size_t label, int iteration, nlohmann::ordered_json entry) {
  const auto made = static_cast<int>(entries_.at(label).size());
  if (made >= budget_ || iteration != made) {
    throw InputError("privacy ledger: label " + std::to_string(label) + " asked for release " + std::to_string(iteration + 1) +
                     " but its noise was calibrated for " + std::to_string(budget_) +
                     " releases; refusing to release more than the budget allows");
  }
  entry["label"] = label;
  entry["iteration"] = iteration;
  entries_[label].push_back(std::move(entry));
}

void PrivacyLedger::restore(std::size_t label, const nlohmann::ordered_json& entries) {
  for (const auto& e : entries) {
    const int iteration = e.at("iteration").get<int>();
    if (iteration >= static_cast<int>(entries_.at(label).size())) charge(label, iteration, e);
  }
}

nlohmann::ordered_json PrivacyLedger::all_entries() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& label : entries_)
    for (const auto& e : label) all.push_back(e);
  return all;
}

}  // namespace secpe
