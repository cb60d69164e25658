#include "eval/record_sample.hpp"

#include <algorithm>

#include "core/rng.hpp"
#include "comms/communicator.hpp"

namespace secpe {

SampleCollector::SampleCollector(std::uint64_t seed, SampleSide side, std::size_t size)
    : seed_(seed), side_(side), size_(size) {}

void SampleCollector::offer(std::uint64_t index, const std::string& text, const std::vector<std::string>& labels) {
  if (size_ == 0) return;
  const auto priority = static_cast<std::int64_t>(
      CounterRng(seed_, Stream::kEvaluation, static_cast<std::uint64_t>(side_), index).next_u64() >> 1);
  candidates_.push_back({priority, static_cast<std::int64_t>(index), text, labels});
  // Prune now and then so memory stays O(size) however many records stream past.
  if (candidates_.size() >= 2 * size_ + 1024) keep_smallest(size_);
}

void SampleCollector::keep_smallest(std::size_t n) {
  auto before = [](const Candidate& a, const Candidate& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.index < b.index;
  };
  if (candidates_.size() > n) {
    std::nth_element(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(n), candidates_.end(), before);
    candidates_.resize(n);
  }
  std::sort(candidates_.begin(), candidates_.end(), before);
}

RecordSample SampleCollector::finish() {
  keep_smallest(size_);
  RecordSample out;
  for (auto& c : candidates_) {
    out.texts.push_back(std::move(c.text));
    out.labels.push_back(std::move(c.labels));
  }
  candidates_.clear();
  return out;
}

RecordSample SampleCollector::gather(const Communicator& comm) {
  keep_smallest(size_);
  std::vector<std::int64_t> keys;    // per candidate: priority, index, number of label values
  std::vector<std::string> strings;  // per candidate: its text, then its label values
  for (const auto& c : candidates_) {
    keys.insert(keys.end(), {c.priority, c.index, static_cast<std::int64_t>(c.labels.size())});
    strings.push_back(c.text);
    strings.insert(strings.end(), c.labels.begin(), c.labels.end());
  }
  const std::vector<std::int64_t> all_keys = comm.allgather(std::span<const std::int64_t>(keys));
  const std::vector<std::string> all_strings = comm.allgather_strings(strings);
  candidates_.clear();
  std::size_t at = 0;
  for (std::size_t k = 0; k + 2 < all_keys.size(); k += 3) {
    Candidate c{all_keys[k], all_keys[k + 1], all_strings[at++], {}};
    for (std::int64_t l = 0; l < all_keys[k + 2]; ++l) c.labels.push_back(all_strings[at++]);
    candidates_.push_back(std::move(c));
  }
  return finish();
}

}  // namespace secpe
