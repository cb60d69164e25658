#pragma once
// Which record holds which secret: shared by the dataset (io), secret detection (text) and the
// privacy maths (privacy), none of which needs the others for it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace secpe {

// The categories of secrets that are not PII (text/pii.hpp names those): a word chosen by
// random-word mode, or a line of a secrets list.
inline constexpr const char* kRandomWordCategory = "RANDOM_WORD";
inline constexpr const char* kListCategory = "LIST";

// Compressed sparse rows over a range of records: the secrets of record i are
// indices[indptr[i] - indptr[0] .. indptr[i+1] - indptr[0]).
struct SecretMatrix {
  std::vector<std::int64_t> indptr;   // size rows + 1 (absolute offsets from the file)
  std::vector<std::int32_t> indices;
  std::int32_t num_secrets = 0;
  std::size_t rows() const { return indptr.empty() ? 0 : indptr.size() - 1; }
  bool is_private(std::size_t row) const { return indptr[row + 1] > indptr[row]; }
  std::span<const std::int32_t> secrets_of(std::size_t row) const {
    return {indices.data() + (indptr[row] - indptr[0]), static_cast<std::size_t>(indptr[row + 1] - indptr[row])};
  }
};

}  // namespace secpe
