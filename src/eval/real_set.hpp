#pragma once
// The real side of an evaluation. Its records come from a RealSource in fixed chunks (chunk c is
// handled by rank c % ranks, so R never has to fit in one process and nothing depends on the rank
// count); what does not depend on the synthetic set is computed once by prepare_real_set and
// reused by every evaluate() call (for example after every iteration of a run).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eval/gaussian_fit.hpp"
#include "eval/lengths.hpp"
#include "eval/record_sample.hpp"
#include "io/corpus.hpp"
#include "text/embedder.hpp"

namespace secpe {

class Communicator;

class RealSource {
 public:
  using Visit = std::function<void(const Corpus& chunk, std::uint64_t first_record)>;
  virtual ~RealSource() = default;
  virtual std::string name() const = 0;  // for messages and the report (the file)
  virtual std::vector<std::string> label_columns() const = 0;
  // Calls visit for this rank's chunks (chunk c of chunk_records records goes to rank c % ranks),
  // in order; `stage` names the pass in progress lines. Returns the bad records skipped on the way
  // (the same on every rank).
  std::uint64_t for_each_owned_chunk(std::size_t chunk_records, const Communicator& comm, const std::string& stage,
                                     const Visit& visit) const;

 protected:
  // Chunk c holds records [c * chunk_records, ...), all full but the last; visit is called for
  // the chunks with owned(c) only. Returns the bad records skipped.
  virtual std::uint64_t read_chunks(std::size_t chunk_records, const std::function<bool(std::size_t)>& owned,
                                    const std::string& stage, const Visit& visit) const = 0;
};

// Records already in memory (a held-out set, or the real side of a test).
class MemoryRealSource final : public RealSource {
 public:
  explicit MemoryRealSource(Corpus corpus, std::string name = "memory") : corpus_(std::move(corpus)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::vector<std::string> label_columns() const override { return corpus_.label_columns; }

 protected:
  std::uint64_t read_chunks(std::size_t chunk_records, const std::function<bool(std::size_t)>& owned,
                            const std::string& stage, const Visit& visit) const override;

 private:
  Corpus corpus_;
  std::string name_;
};

// An Aug-PE CSV file, streamed afresh on every pass: every rank scans the whole file (cheap next to
// the work on its own chunks). Label values lose the first of `strip_prefixes` they start with.
class CsvRealSource final : public RealSource {
 public:
  CsvRealSource(std::filesystem::path path, CsvReadOptions options, std::vector<std::string> strip_prefixes);
  std::string name() const override { return path_.string(); }
  std::vector<std::string> label_columns() const override { return options_.label_columns; }

 protected:
  std::uint64_t read_chunks(std::size_t chunk_records, const std::function<bool(std::size_t)>& owned,
                            const std::string& stage, const Visit& visit) const override;

 private:
  std::filesystem::path path_;
  CsvReadOptions options_;
  std::vector<std::string> strip_prefixes_;
};

// Removes from each label value the first of `prefixes` it starts with (so that files written
// with and without Aug-PE's "Business Category: " prefixes compare equal).
void strip_label_prefixes(Corpus& corpus, const std::vector<std::string>& prefixes);

struct RealSetOptions {
  int embedding_dim = 256;              // of the built-in hashing embedder
  std::size_t sample_records = 10000;   // the seeded sample for precision/recall and reference diversity
  std::uint64_t seed = 1;               // picks the sample
  std::size_t chunk_records = 8192;     // the unit dealt to ranks, and of the moment sums' rounding
};

struct RealSet {
  std::shared_ptr<const RealSource> source;
  RealSetOptions options;
  std::shared_ptr<const Embedder> embedder;
  std::uint64_t records = 0;
  std::uint64_t bad_records_skipped = 0;
  std::vector<std::map<std::string, std::int64_t>> value_counts;  // per label column: records per value
  MomentSums embedding_moments{0};  // of the embedder's rows
  LengthHistogram lengths;
  RecordSample sample;
  double prepare_seconds = 0.0;
};

// One pass over the source. InputError when it holds no record.
RealSet prepare_real_set(std::shared_ptr<const RealSource> source, const RealSetOptions& options,
                         const Communicator& comm);

}  // namespace secpe
