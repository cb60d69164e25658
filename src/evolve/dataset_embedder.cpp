#include "evolve/dataset_embedder.hpp"

#include "core/error.hpp"
#include "text/learned_embedder.hpp"

namespace secpe {
namespace {

std::string provenance(const DatasetInfo& info, const std::string& key) {
  const auto it = info.provenance.find(key);
  return it == info.provenance.end() ? "" : it->second;
}

std::unique_ptr<Embedder> http_embedder(const DatasetInfo& info, const std::filesystem::path& path, const std::string& name,
                                        const HttpEmbedderOptions* http) {
  if (!http) throw InputError(path.string() + ": embeddings come from '" + name + "', which needs its HTTP connection settings");
  HttpEmbedderOptions options = *http;
  const std::string model = provenance(info, "embedder_model");
  if (!options.model.empty() && options.model != model) {
    throw InputError(path.string() + ": the embeddings come from model '" + model + "', not '" + options.model +
                     "'; candidates must be embedded by the same model");
  }
  options.model = model;
  if (options.client.base_url.empty()) options.client.base_url = provenance(info, "embedder_url");
  options.dim = info.embedding_dim;
  auto embedder = std::make_unique<HttpEmbedder>(options);
  if (embedder->name() != name) {
    throw InputError(path.string() + ": damaged secpe dataset: the provenance names embedder '" + name + "', but its model and dimension give '" +
                     embedder->name() + "'");
  }
  return embedder;
}

// Embeddings imported at `secpe import --embeddings` came from an outside model, which only an
// embedding endpoint serving that model can reproduce for the candidates (a built-in embedder
// would put them in another space).
std::unique_ptr<Embedder> imported_model_embedder(const DatasetInfo& info, const std::filesystem::path& path,
                                                  const HttpEmbedderOptions* http) {
  const std::string model = provenance(info, "embedding_model");
  if (!http || http->client.base_url.empty()) {
    throw InputError(path.string() + ": embeddings imported from model " + model + "; secpe run needs an embedding endpoint serving " +
                     model + " (its URL) to embed its candidates the same way (a built-in embedder would mix two embedding spaces)");
  }
  if (!http->model.empty() && http->model != model) {
    throw InputError(path.string() + ": the embeddings were imported from model '" + model + "', not '" + http->model +
                     "'; candidates must be embedded by the same model");
  }
  HttpEmbedderOptions options = *http;
  options.model = model;
  options.dim = info.embedding_dim;
  return std::make_unique<HttpEmbedder>(options);
}

}  // namespace

std::unique_ptr<Embedder> dataset_embedder(const DatasetReader& reader, const std::filesystem::path& path, const HttpEmbedderOptions* http) {
  const DatasetInfo& info = reader.info();
  const std::string name = provenance(info, "embedder");
  if (name.starts_with("hashing")) return std::make_unique<HashingEmbedder>(info.embedding_dim);
  if (name == kImportedEmbedderName) return imported_model_embedder(info, path, http);
  if (name.starts_with("http(")) return http_embedder(info, path, name, http);
  const bool ppmi_sif = name.starts_with("ppmi-sif");
  if (!ppmi_sif && !name.starts_with("tfidf-svd")) {
    throw InputError(path.string() + ": embeddings come from '" + name +
                     "'; secpe run can embed candidates only with the built-in hashing, tfidf-svd or ppmi-sif embedders or an HTTP embedder");
  }
  const LearnedEmbedderKind kind = ppmi_sif ? LearnedEmbedderKind::kPpmiSif : LearnedEmbedderKind::kTfidfSvd;
  EmbedderModel model = reader.embedder_model();
  const std::string damaged = path.string() + ": damaged secpe dataset: the stored embedder model (/embedder) ";
  if (model.empty()) throw InputError(damaged + "is missing, but the embeddings come from '" + name + "'; import the corpus again");
  std::unique_ptr<LearnedEmbedder> embedder;
  try {
    embedder = std::make_unique<LearnedEmbedder>(kind, TfidfVectorizer(learned_embedder_ngrams(kind), std::move(model.terms), std::move(model.idf)),
                                                 std::move(model.projection));
  } catch (const InputError& e) {
    throw InputError(damaged + "is inconsistent: " + e.what());
  }
  if (embedder->name() != name) {
    throw InputError(damaged + "is " + embedder->name() + ", not the '" + name + "' that made the embeddings (provenance 'embedder')");
  }
  return embedder;
}

}  // namespace secpe
