#include "evolve/dataset_embedder.hpp"

#include "core/error.hpp"
#include "text/tfidf_svd_embedder.hpp"

namespace secpe {
namespace {

// Embeddings imported at `secpe import --embeddings` came from an outside model, which only an
// embedding endpoint serving that model can reproduce for the candidates; until one is wired in,
// such a dataset cannot be run (a built-in embedder would put candidates in another space).
std::unique_ptr<Embedder> imported_model_embedder(const DatasetInfo& info, const std::filesystem::path& path) {
  const auto model = info.provenance.find("embedding_model");
  const std::string name = model == info.provenance.end() ? "?" : model->second;
  throw InputError(path.string() + ": embeddings imported from model " + name + "; secpe run needs an embedding endpoint serving " +
                   name + " to embed its candidates the same way (a built-in embedder would mix two embedding spaces)");
}

}  // namespace

std::unique_ptr<Embedder> dataset_embedder(const DatasetReader& reader, const std::filesystem::path& path) {
  const DatasetInfo& info = reader.info();
  const auto it = info.provenance.find("embedder");
  const std::string name = it == info.provenance.end() ? "" : it->second;
  if (name.starts_with("hashing")) return std::make_unique<HashingEmbedder>(info.embedding_dim);
  if (name == kImportedEmbedderName) return imported_model_embedder(info, path);
  if (!name.starts_with("tfidf-svd")) {
    throw InputError(path.string() + ": embeddings come from '" + name +
                     "'; secpe run can embed candidates only with the built-in hashing or tfidf-svd embedders");
  }
  EmbedderModel model = reader.embedder_model();
  const std::string damaged = path.string() + ": damaged secpe dataset: the stored embedder model (/embedder) ";
  if (model.empty()) throw InputError(damaged + "is missing, but the embeddings come from '" + name + "'; import the corpus again");
  std::unique_ptr<TfidfSvdEmbedder> embedder;
  try {
    embedder = std::make_unique<TfidfSvdEmbedder>(TfidfVectorizer(kTfidfSvdNgrams, std::move(model.terms), std::move(model.idf)),
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
