#pragma once
// MAUVE (Pillutla et al., "MAUVE: Measuring the Gap Between Neural Text and Human Text using
// Divergence Frontiers", NeurIPS 2021), as Aug-PE reports it: the real and synthetic embeddings are
// quantised together by k-means, each side becomes a histogram P (real) and Q (synthetic) over the
// clusters, and MAUVE is the area under the divergence frontier
//     { (exp(-c KL(Q || R_w)), exp(-c KL(P || R_w))) : R_w = w P + (1 - w) Q, w in (0, 1) }
// closed by (0, 1) and (1, 0), with the reference implementation's settings: scaling c = 5, 25
// weights w evenly spaced in [1e-6, 1 - 1e-6], the area by the trapezoid rule (the mean of the
// areas with the axes in either order, as the reference takes it), and about one cluster per ten
// records of the smaller side. 1: the histograms agree; near 0: they are apart.
//
// Differences from the reference, on purpose: the embeddings are the evaluation's own (the run's
// embedder), not GPT-2 large's, and are clustered as they are (no PCA to 90 % of the variance; they
// are already a few hundred dimensions), by one seeded k-means (k-means++, Euclidean) instead of
// the best of five. So MAUVE figures compare runs of secpe with each other, not with the paper's.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/matrix.hpp"

namespace secpe {

inline constexpr double kMauveScaling = 5.0;
inline constexpr int kMauveCurvePoints = 25;

// The area under the divergence frontier of histograms p and q (same length, each summing to 1)
// at the mixture weights `weights` (each in (0, 1)).
double mauve_of_histograms(std::span<const double> p, std::span<const double> q, std::span<const double> weights,
                           double scaling = kMauveScaling);
// The reference's weights: kMauveCurvePoints evenly spaced in [1e-6, 1 - 1e-6].
std::vector<double> mauve_weights();

struct MauveOptions {
  int clusters = 0;                // 0: max(2, round(smaller side's records / 10))
  int max_iterations = 100;        // of the k-means
  std::uint64_t seed = 1;          // the k-means seeding (public)
  std::string kernel = "blas";     // the k-means' nearest-centre kernel
  int threads = 0;
};

struct MauveScore {
  double mauve = 0.0;
  int clusters = 0;
};

// MAUVE of `synthetic` against `real` (rows are embeddings; InputError unless both have a record
// and the same width). The same on every machine and rank (one process's k-means).
MauveScore mauve(const MatrixF& synthetic, const MatrixF& real, const MauveOptions& options);

}  // namespace secpe
