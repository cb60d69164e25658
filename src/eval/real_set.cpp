#include "eval/real_set.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "comms/communicator.hpp"
#include "text/ngrams.hpp"

namespace secpe {

std::uint64_t RealSource::for_each_owned_chunk(std::size_t chunk_records, const Communicator& comm,
                                               const std::string& stage, const Visit& visit) const {
  const auto ranks = static_cast<std::size_t>(comm.size()), rank = static_cast<std::size_t>(comm.rank());
  return read_chunks(chunk_records, [&](std::size_t c) { return c % ranks == rank; }, stage, visit);
}

std::uint64_t MemoryRealSource::read_chunks(std::size_t chunk_records, const std::function<bool(std::size_t)>& owned,
                                            const std::string&, const Visit& visit) const {
  Corpus chunk;
  chunk.label_columns = corpus_.label_columns;
  chunk.label_prefixes = corpus_.label_prefixes;
  for (std::size_t c = 0, begin = 0; begin < corpus_.texts.size(); ++c, begin += chunk_records) {
    if (!owned(c)) continue;
    const std::size_t end = std::min(corpus_.texts.size(), begin + chunk_records);
    chunk.texts.assign(corpus_.texts.begin() + begin, corpus_.texts.begin() + end);
    chunk.labels.assign(corpus_.labels.begin() + begin, corpus_.labels.begin() + end);
    visit(chunk, begin);
  }
  return 0;
}

CsvRealSource::CsvRealSource(std::filesystem::path path, CsvReadOptions options, std::vector<std::string> strip_prefixes)
    : path_(std::move(path)), options_(std::move(options)), strip_prefixes_(std::move(strip_prefixes)) {}

std::uint64_t CsvRealSource::read_chunks(std::size_t chunk_records, const std::function<bool(std::size_t)>& owned,
                                         const std::string& stage, const Visit& visit) const {
  AugpeCsvStream stream(path_, options_);
  Progress progress(stage + " (bytes)", stream.file_size(), 5.0);
  Corpus chunk;
  std::uint64_t records = 0;
  for (std::size_t c = 0; stream.next(chunk_records, chunk) && !chunk.texts.empty(); ++c) {
    if (owned(c)) {
      strip_label_prefixes(chunk, strip_prefixes_);
      visit(chunk, records);
    }
    records += chunk.texts.size();
    progress.step(stream.bytes_read(), std::to_string(records) + " records");
  }
  progress.finish(std::to_string(records) + " records");
  return stream.bad_records_skipped();
}

void strip_label_prefixes(Corpus& corpus, const std::vector<std::string>& prefixes) {
  for (auto& values : corpus.labels) {
    for (auto& value : values) {
      for (const auto& prefix : prefixes) {
        if (!prefix.empty() && value.starts_with(prefix)) {
          value.erase(0, prefix.size());
          break;
        }
      }
    }
  }
}

namespace {

// Every rank gets the union of the keys and the exact sums of the counts.
void allreduce_counts(std::map<std::string, std::int64_t>& counts, const Communicator& comm) {
  std::vector<std::string> keys;
  for (const auto& [key, count] : counts) keys.push_back(key);
  for (auto& key : comm.allgather_strings(keys)) counts.try_emplace(std::move(key), 0);
  std::vector<std::int64_t> values;
  for (const auto& [key, count] : counts) values.push_back(count);
  comm.allreduce_sum(values);
  std::size_t i = 0;
  for (auto& [key, count] : counts) count = values[i++];
}

}  // namespace

RealSet prepare_real_set(std::shared_ptr<const RealSource> source, const RealSetOptions& options,
                         const Communicator& comm) {
  const Timer start;
  RealSet real;
  real.source = std::move(source);
  real.options = options;
  real.embedder = std::make_shared<HashingEmbedder>(options.embedding_dim);
  real.embedding_moments = MomentSums(options.embedding_dim);
  real.value_counts.resize(real.source->label_columns().size());
  SampleCollector sample(options.seed, SampleSide::kReal, options.sample_records);
  std::int64_t records = 0;
  MatrixF embeddings;
  real.bad_records_skipped = real.source->for_each_owned_chunk(
      options.chunk_records, comm, "eval: real set", [&](const Corpus& chunk, std::uint64_t first) {
        records += static_cast<std::int64_t>(chunk.texts.size());
        real.embedder->embed(chunk.texts, embeddings);
        real.embedding_moments.add(embeddings);
        for (std::size_t i = 0; i < chunk.texts.size(); ++i) {
          real.lengths.add(word_count(chunk.texts[i]));
          for (std::size_t c = 0; c < real.value_counts.size(); ++c) ++real.value_counts[c][chunk.labels[i][c]];
          sample.offer(first + i, chunk.texts[i], chunk.labels[i]);
        }
      });
  real.records = static_cast<std::uint64_t>(comm.allreduce_sum(records));
  if (real.records == 0) throw InputError(real.source->name() + ": no records");
  real.embedding_moments.allreduce(comm);
  real.lengths.allreduce(comm);
  for (auto& counts : real.value_counts) allreduce_counts(counts, comm);
  real.sample = sample.gather(comm);
  real.prepare_seconds = start.seconds();
  return real;
}

}  // namespace secpe
