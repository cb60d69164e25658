#pragma once
// The "load shard" stage shared by `secpe run` and `secpe bench histogram`: this rank's contiguous
// record range of a dataset (label ids, secret sets, embeddings), each label's public and private
// rows within it, and the global public/private counts per label (exact reductions).
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/matrix.hpp"
#include "dist/communicator.hpp"
#include "io/dataset.hpp"

namespace secpe {

struct Shard {
  // InputError when the dataset has no embeddings.
  Shard(const Communicator& comm, const std::filesystem::path& data);

  DatasetReader reader;
  std::uint64_t begin = 0, end = 0;                    // global record range of this rank
  std::vector<std::int32_t> labels;                    // per local row
  SecretMatrix secrets;                                // per local row
  MatrixF embeddings;                                  // per local row
  std::vector<std::vector<std::size_t>> public_rows;   // [label]: local rows holding no secret
  std::vector<std::vector<std::size_t>> private_rows;  // [label]: local rows holding a secret
  std::vector<std::int64_t> public_counts;             // [label]: over all ranks
  std::vector<std::int64_t> private_counts;            // [label]: over all ranks

  const DatasetInfo& info() const { return reader.info(); }
  std::size_t num_labels() const { return reader.info().labels.size(); }
};

}  // namespace secpe
