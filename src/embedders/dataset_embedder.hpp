#pragma once
// The embedder that made a dataset's embeddings, rebuilt so that `secpe run` embeds its
// candidates in the same space: the registered kind (embedders/embedder_kind.hpp) whose name the
// provenance's 'embedder' starts with rebuilds it (hashing from its dimension, a learned one from
// the model stored in the dataset, checked against the identity recorded, HTTP from an endpoint
// serving the same model); imported embeddings need an embedding endpoint serving their model.
#include <filesystem>
#include <memory>

#include "http/http_embedder.hpp"
#include "io/dataset.hpp"
#include "text/embedder.hpp"

namespace secpe {

// The provenance 'embedder' of a dataset whose embeddings were imported (`secpe import
// --embeddings`); its 'embedding_model' names the model that made them.
inline constexpr const char* kImportedEmbedderName = "imported";

// InputError naming `path` for another embedder, or a stored model that is missing, damaged or
// not the one the provenance names. For an HTTP embedder, `http` gives the connection (an empty
// base URL: the one recorded at import; an empty model: the recorded one, and another model is
// refused, since its vectors would live in another space); without it, an InputError. Imported
// embeddings need `http` with a base URL (none was recorded) serving the imported model.
std::unique_ptr<Embedder> dataset_embedder(const DatasetReader& reader, const std::filesystem::path& path,
                                           const HttpEmbedderOptions* http = nullptr);

}  // namespace secpe
