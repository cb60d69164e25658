#pragma once
// Sentence embedders: text -> L2-normalised float32 vectors (one row per text).
#include <span>
#include <string>

#include "core/matrix.hpp"

namespace secpe {

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual int dim() const = 0;
  virtual std::string name() const = 0;  // recorded in dataset provenance and run.json
  // Rows of `out` (resized to texts.size() x dim()) are unit vectors, or zero for a text with no words.
  virtual void embed(std::span<const std::string> texts, MatrixF& out) const = 0;
};

// Offline signed feature hashing of lower-cased word unigrams and bigrams (Weinberger et al. 2009),
// sublinear term weights, L2-normalised. Deterministic and dependency-free.
class HashingEmbedder final : public Embedder {
 public:
  explicit HashingEmbedder(int dim);
  int dim() const override { return dim_; }
  std::string name() const override;
  void embed(std::span<const std::string> texts, MatrixF& out) const override;

 private:
  int dim_;
};

}  // namespace secpe
