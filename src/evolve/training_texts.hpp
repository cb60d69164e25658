#pragma once
// Public training texts per label for the built-in generator (secpe run, secpe serve).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "io/dataset.hpp"

namespace secpe {

// Up to `cap` public records (holding no secret) of each label, evenly spaced over the file.
// Every rank reads the same records, so every rank builds the same generator.
std::vector<std::vector<std::string>> public_training_texts(const DatasetReader& reader, std::size_t cap);

// The texts of another public corpus (Aug-PE CSV), matched to `labels` by value; texts of other
// labels are counted in a warning and left out.
std::vector<std::vector<std::string>> corpus_training_texts(const std::filesystem::path& path, const LabelSet& labels);

}  // namespace secpe
