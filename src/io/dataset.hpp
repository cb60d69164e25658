#pragma once
// The project's HDF5 dataset: one file holds a corpus ready for `secpe run`.
//
// Layout (all datasets chunked; rows are records in file order):
//   /text/bytes        uint8   [total bytes]    UTF-8 texts, concatenated   (absent without text)
//   /text/offsets      uint64  [n + 1]          text i is bytes[offsets[i], offsets[i+1])
//   /labels/ids        int32   [n]              label id per record
//   /labels/values     string  [n_labels x n_columns]   label values (prefix stripped)
//   /labels/columns    string  [n_columns]      column names;  /labels/prefixes  string [n_columns]
//   /secrets/indptr    int64   [n + 1]          CSR of the records x secrets 0/1 matrix
//   /secrets/indices   int32   [nnz]            secret ids per record (sorted)
//   /secrets/names     string  [m]              the secrets themselves (input data: never copied to outputs)
//   /secrets/categories string [m]              each secret's category: RANDOM_WORD, LIST or a PII
//                                               category (EMAIL, PHONENUMBER, ...; text/pii.hpp)
//   /secrets attribute num_secrets (string)     m, kept even when names are left out (optional)
//   /embeddings        float32 [n x d]          L2-normalised record embeddings
//   /embedder/terms    uint64  [V]              a learned embedder's vocabulary: n-gram keys (text/ngrams.hpp)
//   /embedder/idf      float64 [V]              its term weights           (the /embedder group is
//   /embedder/projection float32 [V x d]        its projection              absent for hashing)
//   root attributes    provenance: format_version, secpe_version, source, source_format,
//                      created_utc, embedder, embedding_dim, secret_mode, ... (strings)
// A record is public when it holds no secret, private otherwise.
//
// Damage (format version 2): every chunk of every array carries a Fletcher-32 checksum and every
// metadata block (attributes, chunk indexes) HDF5's own checksum, all checked by HDF5 as it reads,
// so each MPI rank verifies exactly the part of the file it reads, at the cost of one pass over
// those bytes; a mismatch is an InputError naming the file and the array. On top of that the
// reader checks every structure it returns: types and shapes at open, and in each range it
// reads, label ids against the label rows, /secrets/indptr non-decreasing from 0 to the number
// of indices, secret indices in range and increasing per record, text offsets in range and
// finite embeddings, and the /embedder arrays' shapes against each other and /embeddings and
// their values finite (the embedder checks the rest, and its digest, when it is rebuilt from
// them: text/learned_embedder.hpp). So a damaged file fails loudly and can never turn a private record public.
// Version 1 files (no checksums) are refused with a request to import them again, as is any file
// whose HDF5 superblock (version 0 or 1) has no metadata checksums, before HDF5 decodes it. Version 3
// added /secrets/categories (optional, as the names are); version 2 files still read, their
// categories following from the provenance secret_mode (random-word or list).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/secret_matrix.hpp"

namespace secpe {

inline constexpr const char* kDatasetFormatVersion = "3";

struct LabelSet {
  std::vector<std::string> columns;
  std::vector<std::string> prefixes;
  std::vector<std::vector<std::string>> values;  // [label id][column]
  std::size_t size() const { return values.size(); }
  std::string display(std::size_t label) const;  // "Restaurants | 5.0"
};

struct Corpus;
// A corpus's distinct label values, sorted (label ids follow that order), and each record's id.
LabelSet build_labels(const Corpus& corpus, std::vector<std::int32_t>& ids);

struct DatasetInfo {
  std::uint64_t num_records = 0;
  LabelSet labels;
  std::int32_t num_secrets = 0;
  int embedding_dim = 0;
  bool has_text = false;
  std::map<std::string, std::string> provenance;
  // The provenance entry `key`, or "" where the dataset records none.
  std::string recorded(const std::string& key) const {
    const auto it = provenance.find(key);
    return it == provenance.end() ? "" : it->second;
  }
};

// A learned embedder's parameters (text/learned_embedder.hpp), fitted on public records.
struct EmbedderModel {
  std::vector<std::uint64_t> terms;  // vocabulary (n-gram keys), in feature order
  std::vector<double> idf;           // one weight per term
  MatrixF projection;                // terms x embedding dimension
  bool empty() const { return terms.empty(); }
};

// Everything a dataset holds, for writing.
struct DatasetContents {
  LabelSet labels;
  std::vector<std::int32_t> label_ids;
  std::vector<std::string> texts;          // empty for embedding-only datasets
  SecretMatrix secrets;                    // indptr from 0
  std::vector<std::string> secret_names;
  std::vector<std::string> secret_categories;  // one per secret, or empty (left out with the names)
  MatrixF embeddings;                      // n x d
  EmbedderModel embedder_model;            // empty for the hashing embedder
  std::map<std::string, std::string> provenance;
};

// Writes the whole dataset atomically (temporary name, then rename).
void write_dataset(const std::filesystem::path& path, const DatasetContents& contents);

// Reads parts of a dataset; each MPI rank asks only for its own record range [begin, end).
class DatasetReader {
 public:
  explicit DatasetReader(const std::filesystem::path& path);  // InputError if not a secpe dataset
  ~DatasetReader();
  DatasetReader(const DatasetReader&) = delete;
  DatasetReader& operator=(const DatasetReader&) = delete;

  const DatasetInfo& info() const;
  std::vector<std::int32_t> label_ids(std::uint64_t begin, std::uint64_t end) const;
  SecretMatrix secrets(std::uint64_t begin, std::uint64_t end) const;
  MatrixF embeddings(std::uint64_t begin, std::uint64_t end) const;
  std::vector<std::string> texts(std::uint64_t begin, std::uint64_t end) const;
  std::vector<std::string> texts(const std::vector<std::uint64_t>& record_ids) const;  // sorted ids
  // The stored embedder model, checked (io/dataset.hpp, "Damage"); empty when there is none.
  EmbedderModel embedder_model() const;
  // The secrets themselves (input data: for matching per-secret budgets, never for outputs).
  std::vector<std::string> secret_names() const;
  // Each secret's category (m entries): /secrets/categories, or for a file without them (version
  // 2, or names left out) the provenance secret_mode's (RANDOM_WORD or LIST), else "UNKNOWN".
  std::vector<std::string> secret_categories() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace secpe
