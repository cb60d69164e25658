#include "embedders/dataset_embedder.hpp"

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "embedders/embedder_kind.hpp"

namespace secpe {
namespace {

// Embeddings imported at `secpe import --embeddings` came from an outside model, which only an
// embedding endpoint serving that model can reproduce for the candidates (a built-in embedder
// would put them in another space).
std::unique_ptr<Embedder> imported_model_embedder(const DatasetInfo& info, const std::filesystem::path& path,
                                                  const HttpEmbedderOptions* http) {
  const std::string model = info.recorded("embedding_model");
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
  const std::string recorded = info.recorded("embedder");
  if (recorded == kImportedEmbedderName) return imported_model_embedder(info, path, http);
  const EmbedderKind* kind = embedder_kind_of(recorded);
  if (!kind) {
    throw InputError(path.string() + ": embeddings come from '" + recorded + "'; secpe run can embed candidates only with the embedders " +
                     or_list(embedder_kind_names()) + " (--embedder at import)");
  }
  return kind->rebuild(reader, path, recorded, http);
}

}  // namespace secpe
