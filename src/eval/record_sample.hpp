#pragma once
// Seeded samples of records for the metrics that work on a sample (k-NN precision and recall,
// reference diversity): the records with the smallest public priority, a draw keyed by (seed,
// side, record index). Which records are chosen depends on neither chunks nor ranks, and the first
// m records of a sample of size n >= m are the sample of size m.
#include <cstdint>
#include <string>
#include <vector>

namespace secpe {

class Communicator;

struct RecordSample {
  std::vector<std::string> texts;  // in priority order
  std::vector<std::vector<std::string>> labels;
};

enum class SampleSide : std::uint64_t { kSynthetic = 0, kReal = 1 };

class SampleCollector {
 public:
  SampleCollector(std::uint64_t seed, SampleSide side, std::size_t size);
  void offer(std::uint64_t index, const std::string& text, const std::vector<std::string>& labels);
  // The sample of the records offered on this process.
  RecordSample finish();
  // The sample of the records offered on every rank (each record offered on one rank only).
  RecordSample gather(const Communicator& comm);

 private:
  struct Candidate {
    std::int64_t priority, index;
    std::string text;
    std::vector<std::string> labels;
  };
  void keep_smallest(std::size_t n);

  std::uint64_t seed_;
  SampleSide side_;
  std::size_t size_;
  std::vector<Candidate> candidates_;
};

}  // namespace secpe
