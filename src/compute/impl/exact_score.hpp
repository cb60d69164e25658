#pragma once
// The exact per-pair score every kernel agrees on, bit for bit: each dot product (or squared
// distance) is accumulated in double, one term at a time, in index order. It defines the answer
// rather than being a backend: the CPU kernels report it, a GPU backend would rescore with it, and
// the evaluation uses it. A kernel may find its candidates any way it likes (the BLAS kernel uses
// a float GEMM), but the score it reports, and the comparison that picks the winner, always come
// from these functions.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>
#include <utility>

#include "compute/nearest.hpp"
#include "compute/impl/search_bound.hpp"

namespace secpe::exact {

inline double dot(const float* a, const float* b, Eigen::Index d) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < d; ++j) s += double(a[j]) * double(b[j]);
  return s;
}

inline double squared_l2(const float* a, const float* b, Eigen::Index d) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const double diff = double(a[j]) - double(b[j]);
    s += diff * diff;
  }
  return s;
}

// The Euclidean norm, as the kernels use it for cosine (and as the finiteness test of a row).
inline double norm(const float* a, Eigen::Index d) { return std::sqrt(dot(a, a, d)); }

// score(x, c): squared L2 distance, negated inner product, or negated cosine with the norms given
// (row_norm, centre_norm are norm(x), norm(c); only kCosine reads them).
inline double pair_score(Metric metric, const float* x, const float* c, Eigen::Index d, double row_norm,
                         double centre_norm) {
  switch (metric) {
    case Metric::kL2: return squared_l2(x, c, d);
    case Metric::kInnerProduct: return -dot(x, c, d);
    case Metric::kCosine: return -dot(x, c, d) / (row_norm * centre_norm);
  }
  return 0.0;
}

// pair_score for four centres at once: four independent chains, each summed exactly as
// pair_score sums it (same terms, same order), so each result is bit-identical to pair_score's;
// interleaving only hides the latency of the additions.
inline void pair_scores4(Metric metric, const float* x, const float* const c[4], Eigen::Index d, double row_norm,
                         const double centre_norm[4], double out[4]) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  if (metric == Metric::kL2) {
    for (Eigen::Index j = 0; j < d; ++j) {
      const double xj = double(x[j]);
      const double d0 = xj - double(c[0][j]), d1 = xj - double(c[1][j]);
      const double d2 = xj - double(c[2][j]), d3 = xj - double(c[3][j]);
      s0 += d0 * d0;
      s1 += d1 * d1;
      s2 += d2 * d2;
      s3 += d3 * d3;
    }
    out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
    return;
  }
  for (Eigen::Index j = 0; j < d; ++j) {
    const double xj = double(x[j]);
    s0 += xj * double(c[0][j]);
    s1 += xj * double(c[1][j]);
    s2 += xj * double(c[2][j]);
    s3 += xj * double(c[3][j]);
  }
  const double s[4] = {s0, s1, s2, s3};
  for (int q = 0; q < 4; ++q) {
    out[q] = metric == Metric::kCosine ? -s[q] / (row_norm * centre_norm[q]) : -s[q];
  }
}

// The order of results: lower score first, ties to the lower centre index (compute/impl/search_bound.hpp).
using bound::better;

// How several exact sums are run at once, each path giving the bits of the sequential sum: in the
// lanes of an AVX-512 register where the CPU has it (kAuto: compute/impl/lanes8.hpp), else in
// interleaved chains. The tests run both.
enum class SumPath { kAuto, kChains };

// norm() of every row of m, bit for bit, eight rows at a time, on up to `threads` threads.
std::vector<double> norms(const MatrixF& m, int threads = 1, SumPath path = SumPath::kAuto);

// One pair to score: pair_score(metric, x, c, d, x_norm, c_norm).
struct PairToScore {
  const float* x;
  const float* c;
  double x_norm, c_norm;
};
// out[i] = the score of pairs[i], bit for bit, eight pairs at a time (or four chains).
void pair_scores(Metric metric, Eigen::Index d, std::span<const PairToScore> pairs, double* out, SumPath path = SumPath::kAuto);

// Validated inputs of a search: the norms of every row and centre (exact, as above).
struct Prepared {
  std::vector<double> row_norms;     // norm(x_i)
  std::vector<double> centre_norms;  // norm(c_k)
};

// The k best of the candidate centres `ids` for row x (norm row_norm), rescored exactly
// (pair_scores: each bit-identical to pair_score) and ordered by `better`: written to
// nearest[0..k) and score[0..k). ids must hold at least k centres and every centre that can be
// among the k best. `scratch` is reused between calls. Every fast kernel, CPU or GPU, finishes its
// rows here or in a RescoreBatch.
void best_k_of(Metric metric, const float* x, double row_norm, const MatrixF& centres, std::span<const double> centre_norms,
               std::span<const std::int32_t> ids, std::size_t k, std::vector<std::pair<double, std::int32_t>>& scratch,
               std::int32_t* nearest, double* score);

// best_k_of for many rows at once: a row often keeps one or two candidates, too few to fill the
// lanes of pair_scores on its own, so the rows of a block are added first and their pairs scored
// together. Each row's result is best_k_of's, bit for bit.
class RescoreBatch {
 public:
  void clear();
  // A row x (norm x_norm) with its candidates, whose k best go to nearest[0..k), score[0..k).
  void add_row(const float* x, double x_norm, std::span<const std::int32_t> ids, std::int32_t* nearest, double* score);
  // Scores every pair, writes every row's k best, and empties the batch.
  void finish(Metric metric, const MatrixF& centres, std::span<const double> centre_norms, std::size_t k);
  std::size_t pairs() const { return ids_.size(); }  // waiting to be scored

 private:
  struct Row {
    std::size_t begin, end;  // its candidates in ids_
    std::int32_t* nearest;
    double* score;
  };
  std::vector<Row> rows_;
  std::vector<std::int32_t> ids_;
  std::vector<PairToScore> pairs_;
  std::vector<double> scores_;
  std::vector<std::pair<double, std::int32_t>> scratch_;
};

// Checks a search's inputs, in one fixed order so every kernel throws the same error for the same
// input: no centres; dimension mismatch; then each centre (NaN/Inf, then a zero centre under
// cosine); then each row (NaN/Inf, then a zero row under cosine). InputErrors name the row or
// centre by index. k is the number of results per row (1 for search): 1 <= k <= centres.rows().
// Output spans shorter than rows * k are a programming error (std::invalid_argument).
// Call only with x.rows() > 0 (an empty X is no search and no error). The norms are computed on
// up to `threads` threads (each the same way, so the result does not depend on it).
Prepared prepare(const MatrixF& x, const MatrixF& centres, Metric metric, std::size_t k, std::size_t nearest_size,
                 std::size_t score_size, int threads = 1);
// prepare() in two steps, for a kernel that keeps its rows' norms: the shapes (no centres,
// dimension mismatch, k, the spans), then, with the norms computed by norms(), each centre and
// each row. The same errors in the same order.
void check_shapes(const MatrixF& x, const MatrixF& centres, std::size_t k, std::size_t nearest_size, std::size_t score_size);
void check_norms(std::span<const double> row_norms, std::span<const double> centre_norms, Metric metric);

}  // namespace secpe::exact
