#pragma once
// Yelp-scale embedding datasets without text, for scaling studies: class-skewed mixtures on the
// unit sphere plus a sparse secret matrix. Record i depends only on (seed, i), so a dataset is
// the same whatever the thread count.
#include <cstdint>
#include <string>

#include "io/dataset.hpp"

namespace secpe {

struct SynthEmbeddingOptions {
  std::size_t records = 1939290;  // Aug-PE's Yelp train split
  int dim = 768;                  // stsb-roberta-base-v2, as in the paper
  std::string labels = "yelp";    // "yelp": 50 labels with Yelp's skew; or a number of equal labels
  int secrets = 330;              // random-word secrets of the paper's public code
  double private_fraction = 0.3;  // share of records holding at least one secret
  int components = 16;            // mixture components per label
  double spread = 0.6;            // within-component noise (relative to the unit-norm centre)
  std::uint64_t seed = 1;
  unsigned threads = 0;           // 0: all hardware threads
};

DatasetContents synth_embeddings(const SynthEmbeddingOptions& options);

}  // namespace secpe
