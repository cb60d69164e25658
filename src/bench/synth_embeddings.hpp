#pragma once
// Yelp-scale embedding datasets without text, for scaling studies: class-skewed mixtures on the
// unit sphere plus a sparse secret matrix. Record i depends only on (seed, i), so a dataset is
// the same whatever the thread count.
#include <cstdint>
#include <string>

#include "io/dataset.hpp"

namespace secpe {

// The provenance "source" of every dataset synth-embeddings writes: its benchmarks' reports may be
// published whole (bench/bench_report.hpp).
inline constexpr const char* kSynthEmbeddingsSource = "secpe synth-embeddings";

struct SynthEmbeddingOptions {
  std::size_t records = 1939290;  // Aug-PE's Yelp train split
  int dim = 768;                  // stsb-roberta-base-v2, as in the paper
  std::string labels = "yelp";    // "yelp": 50 labels with Yelp's skew; or a number of equal labels
  int secrets = 330;              // random-word secrets of the paper's public code
  double private_fraction = 0.3;  // share of records holding at least one secret
  // Who holds which secret. "zipf": each private record holds 1-3 secrets drawn by Zipf(1)
  // popularity (a few secrets held by very many records, like random words). "demo": as the demo
  // corpus plants them (text/demo_corpus.cpp): blocks of 200 records share a pool of secrets used
  // about 6 times each, a private record holds 1-3 of its block's pool, and a pool entry repeats an
  // earlier secret in proportion to its entries so far, often enough to plant about `secrets`
  // secrets (a Zipf-like tail of holders per secret, like the corpus' colliding names and phones).
  std::string holders = "zipf";
  int components = 16;            // mixture components per label
  // Extra components per label that only private records are drawn from: a subject the public
  // records lack, which only the private votes can show (0: private records are drawn like the
  // public ones, from the label's components).
  int private_components = 0;
  double spread = 0.6;            // within-component noise (relative to the unit-norm centre)
  std::uint64_t seed = 1;
  unsigned threads = 0;           // 0: all hardware threads
};

DatasetContents synth_embeddings(const SynthEmbeddingOptions& options);

}  // namespace secpe
