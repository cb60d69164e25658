#pragma once
// The embedder that made a dataset's embeddings, rebuilt so that `secpe run` embeds its
// candidates in the same space: the hashing embedder from its dimension, a learned (tfidf-svd, ppmi-sif)
// embedder from the model stored in the dataset, checked against the identity its provenance
// records; HTTP and imported embeddings from an embedding endpoint serving the same model.
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
