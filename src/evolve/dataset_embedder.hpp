#pragma once
// The embedder that made a dataset's embeddings, rebuilt so that `secpe run` embeds its
// candidates in the same space: the hashing embedder from its dimension, the learned tfidf-svd
// embedder from the model stored in the dataset, checked against the identity its provenance
// records. Imported embeddings are refused for now (imported_model_embedder in the .cpp).
#include <filesystem>
#include <memory>

#include "io/dataset.hpp"
#include "text/embedder.hpp"

namespace secpe {

// The provenance 'embedder' of a dataset whose embeddings were imported (`secpe import
// --embeddings`); its 'embedding_model' names the model that made them.
inline constexpr const char* kImportedEmbedderName = "imported";

// InputError naming `path` for another embedder, or a stored model that is missing, damaged or
// not the one the provenance names.
std::unique_ptr<Embedder> dataset_embedder(const DatasetReader& reader, const std::filesystem::path& path);

}  // namespace secpe
