#pragma once
// Precomputed embeddings for `secpe import --embeddings`: a 2-D float array of one row per
// record, read from an HDF5 file (a named dataset) or a NumPy .npy file (float32 or float64,
// little-endian, C order). Rows are L2-normalised on reading, as the built-in embedders' are,
// so cosine and L2 distances mean the same as for them.
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/matrix.hpp"

namespace secpe {

struct ImportedEmbeddingsOptions {
  std::string h5_dataset = "embeddings";  // the array's path inside an HDF5 file
  std::uint64_t rows = 0;                 // the number of records: a file with another row count is refused
};

// By extension: .h5/.hdf5/.hdf (HDF5) or .npy. InputError naming the file for any other
// extension, a missing or unreadable file, a wrong shape, row count or element type, a non-finite
// value or an all-zero row (no direction to normalise).
MatrixF read_imported_embeddings(const std::filesystem::path& path, const ImportedEmbeddingsOptions& options);

}  // namespace secpe
