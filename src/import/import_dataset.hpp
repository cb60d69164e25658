#pragma once
// `secpe import` as a stage: a corpus file to the project's HDF5 dataset (io/dataset.hpp) in
// named steps (read, secrets, public-share checks, embed, write), on one process. The CLI
// (cli/command_import.cpp) only turns its options into ImportOptions and calls import_dataset.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "embedders/embedder_kind.hpp"
#include "io/corpus.hpp"
#include "text/secrets.hpp"

namespace secpe {

// --secrets: which secrets the records are scanned for, by mode (pii, random-word, list).
struct SecretChoice {
  std::vector<std::string> modes;
  std::string secrets_file;          // list mode
  RandomWordOptions random_word;     // random-word mode
  PiiCategories pii_categories = kAllPiiCategories;
};

// --embedder auto: ppmi-sif where it can be fitted, else hashing.
inline constexpr const char* kAutoEmbedder = "auto";

// The embedder the options ask for: a registered kind (embedders/embedder_kind.hpp) or auto.
struct EmbedderChoice {
  std::string kind = kAutoEmbedder;
  EmbedderSettings settings;
};

// Embeddings made elsewhere (--embeddings), one row per record, in place of an embedder.
struct ImportedEmbeddingsChoice {
  std::filesystem::path file;
  std::string h5_dataset;  // the dataset inside an HDF5 file
  std::string model;       // the model that made them (recorded, never checked)
};

struct ImportOptions {
  std::filesystem::path input, out;
  CorpusFormat format = CorpusFormat::kAugpeCsv;
  std::vector<std::string> header;  // the input's columns, for the CSV's column order
  CsvReadOptions read;              // text and label columns, label prefixes, bad records
  SecretChoice secrets;
  std::string pii_categories_given;  // --pii-categories as written, for the provenance
  EmbedderChoice embedder;
  std::optional<ImportedEmbeddingsChoice> imported;
  double min_public_share = 0.2;      // warn below it
  bool allow_private_labels = false;  // import labels without a public record (refused otherwise)
  int threads = 0;                    // 0: SECPE_THREADS, else the hardware's
  std::string created_utc;            // the dataset's creation time, as it is recorded
};

// Reads, chooses and detects the secrets, checks that labels hold none and that every label has
// public records, embeds, and writes options.out (atomically). InputErrors name the file, record
// or option at fault; no private text or count is in a message.
void import_dataset(const ImportOptions& options);

}  // namespace secpe
