#pragma once
// The embedders `secpe import --embedder NAME` can use, as strategies. A kind makes its embedder
// at import (a learned one is fitted to the public records only and stores its model in the
// dataset) and rebuilds the same embedder at `secpe run` from what the dataset recorded, so that
// candidates land in the records' space (embedders/dataset_embedder.hpp). A new embedder: a file
// beside these defining its kind's factory, and one line in kEmbedderKinds (registry.cpp).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "http/http_embedder.hpp"
#include "io/dataset.hpp"
#include "text/embedder.hpp"
#include "text/tfidf_svd_embedder.hpp"

namespace secpe {

// The embedder options of `secpe import`, checked by the CLI.
struct EmbedderSettings {
  TfidfSvdOptions fit;               // every kind's dimension (fit.dim); a learned kind's vocabulary, min_df, threads
  HttpEmbedderOptions http;          // a remote kind's connection and batch
  std::filesystem::path state_dir;   // a remote kind's private response cache
};

class EmbedderKind {
 public:
  virtual ~EmbedderKind() = default;
  // --embedder NAME; the embedder's own name() (recorded in the provenance) starts with it.
  virtual std::string name() const = 0;
  // What it is, in a phrase, for --embedder's help.
  virtual std::string description() const = 0;
  // Fitted to the public records: takes --embedder-vocabulary and --embedder-min-df, and
  // dimensions kLearnedEmbedderMinDim to kLearnedEmbedderMaxDim (else 1 to 65536).
  virtual bool learned() const { return false; }
  // Sends the texts to a server: takes the HTTP options, embeds on one thread (the server batches).
  virtual bool remote() const { return false; }
  // At import: the embedder of every record of `texts`. A learned kind sees only the records
  // `contents.secrets` marks public, and writes its model and provenance into `contents`.
  virtual std::unique_ptr<Embedder> make(const EmbedderSettings& settings, const std::vector<std::string>& texts,
                                         DatasetContents& contents) const = 0;
  // At run: the embedder recorded as `recorded` (its name() at import) in the dataset at `path`,
  // rebuilt and checked against that name; `http` as in dataset_embedder. InputError naming `path`.
  virtual std::unique_ptr<Embedder> rebuild(const DatasetReader& reader, const std::filesystem::path& path, const std::string& recorded,
                                            const HttpEmbedderOptions* http) const = 0;
};

// The registered kinds' names, in registration order; `learned_only`: the learned kinds'.
std::vector<std::string> embedder_kind_names(bool learned_only = false);
// "name (description), ..." of every kind, for --embedder's help.
std::string embedder_kinds_help();
// The kind named `name`; InputError "--embedder must be a, b or c, not 'x'" (`extra` names
// another accepted value, e.g. auto, listed first).
const EmbedderKind& embedder_kind(const std::string& name, const std::string& extra = "");
// The kind whose embedder is recorded as `recorded` (the longest name it starts with); nullptr for none.
const EmbedderKind* embedder_kind_of(const std::string& recorded);

}  // namespace secpe
