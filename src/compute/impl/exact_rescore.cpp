// The last step of every fast kernel: its candidates rescored with the exact formula, so the
// answer is the reference's whatever found the candidates (compute/impl/exact_score.hpp).
#include <algorithm>

#include "compute/impl/exact_score.hpp"
#include "compute/impl/lanes8.hpp"

namespace secpe::exact {
namespace {

// The score from a pair's exact sum s (sum of products, or of squared differences for L2).
double finish_score(Metric metric, double s, const PairToScore& p) {
  switch (metric) {
    case Metric::kL2: return s;
    case Metric::kInnerProduct: return -s;
    case Metric::kCosine: return -s / (p.x_norm * p.c_norm);
  }
  return s;
}

// Four pairs at a time on interleaved chains (pair_scores4), the rest one at a time.
void pair_scores_chains(Metric metric, Eigen::Index d, std::span<const PairToScore> pairs, double* out) {
  std::size_t i = 0;
  for (; i + 4 <= pairs.size(); i += 4) {
    const float* c[4];
    double cn[4];
    for (std::size_t t = 0; t < 4; ++t) c[t] = pairs[i + t].c, cn[t] = pairs[i + t].c_norm;
    // pair_scores4 shares one row; pairs of different rows take it one row at a time.
    bool one_row = true;
    for (std::size_t t = 1; t < 4; ++t) one_row &= pairs[i + t].x == pairs[i].x;
    if (one_row) {
      pair_scores4(metric, pairs[i].x, c, d, pairs[i].x_norm, cn, out + i);
    } else {
      for (std::size_t t = 0; t < 4; ++t) {
        const PairToScore& p = pairs[i + t];
        out[i + t] = pair_score(metric, p.x, p.c, d, p.x_norm, p.c_norm);
      }
    }
  }
  for (; i < pairs.size(); ++i) out[i] = pair_score(metric, pairs[i].x, pairs[i].c, d, pairs[i].x_norm, pairs[i].c_norm);
}

#ifdef SECPE_LANES8
// Eight pairs at a time, lane q summing pair q's terms in index order as pair_score does: the
// product of the two coordinates widened to double (exact), or for L2 the square of their
// difference in double, the same operations in the same order, so every lane gives pair_score's
// bits. The pairs may belong to different rows.
[[gnu::target("avx512f")]]
void pair_scores_lanes(Metric metric, Eigen::Index d, std::span<const PairToScore> pairs, double* out) {
  std::size_t i = 0;
  for (; i + 8 <= pairs.size(); i += 8) {
    const PairToScore* p = pairs.data() + i;
    __m512d sum = _mm512_setzero_pd();
    Eigen::Index j = 0;
    for (; j + 8 <= d; j += 8) {
      __m512d t[8];  // t[q]: pair q's terms j .. j + 7
      for (int q = 0; q < 8; ++q) {
        const __m512d x = lanes8::widen(p[q].x + j), c = lanes8::widen(p[q].c + j);
        if (metric == Metric::kL2) {
          const __m512d diff = _mm512_sub_pd(x, c);
          t[q] = _mm512_mul_pd(diff, diff);
        } else {
          t[q] = _mm512_mul_pd(x, c);
        }
      }
      sum = lanes8::add_transposed(sum, t);
    }
    alignas(64) double s[8];
    _mm512_store_pd(s, sum);
    for (int q = 0; q < 8; ++q) {
      for (Eigen::Index jj = j; jj < d; ++jj) {
        if (metric == Metric::kL2) {
          const double diff = double(p[q].x[jj]) - double(p[q].c[jj]);
          s[q] += diff * diff;
        } else {
          s[q] += double(p[q].x[jj]) * double(p[q].c[jj]);
        }
      }
      out[i + q] = finish_score(metric, s[q], p[q]);
    }
  }
  pair_scores_chains(metric, d, pairs.subspan(i), out + i);
}
#endif

// The k best of scratch (score, centre) by `better`, to nearest[0..k) and score[0..k).
void select_k(std::vector<std::pair<double, std::int32_t>>& scratch, std::size_t k, std::int32_t* nearest, double* score) {
  const auto less = [](const std::pair<double, std::int32_t>& a, const std::pair<double, std::int32_t>& b) {
    return better(a.first, a.second, b.first, b.second);
  };
  std::partial_sort(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k), scratch.end(), less);
  for (std::size_t j = 0; j < k; ++j) {
    nearest[j] = scratch[j].second;
    score[j] = scratch[j].first;
  }
}

}  // namespace

void pair_scores(Metric metric, Eigen::Index d, std::span<const PairToScore> pairs, double* out, SumPath path) {
#ifdef SECPE_LANES8
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512 && path != SumPath::kChains) return pair_scores_lanes(metric, d, pairs, out);
#endif
  pair_scores_chains(metric, d, pairs, out);
}

void best_k_of(Metric metric, const float* x, double row_norm, const MatrixF& centres, std::span<const double> centre_norms,
               std::span<const std::int32_t> ids, std::size_t k, std::vector<std::pair<double, std::int32_t>>& scratch,
               std::int32_t* nearest, double* score) {
  constexpr std::size_t kStep = 64;  // pairs scored per call, on the stack
  PairToScore pairs[kStep];
  double out[kStep];
  scratch.clear();
  for (std::size_t b = 0; b < ids.size(); b += kStep) {
    const std::size_t n = std::min(kStep, ids.size() - b);
    for (std::size_t q = 0; q < n; ++q) {
      const std::int32_t c = ids[b + q];
      pairs[q] = {x, centres.row(c).data(), row_norm, centre_norms[static_cast<std::size_t>(c)]};
    }
    pair_scores(metric, centres.cols(), std::span<const PairToScore>(pairs, n), out);
    for (std::size_t q = 0; q < n; ++q) scratch.emplace_back(out[q], ids[b + q]);
  }
  select_k(scratch, k, nearest, score);
}

void RescoreBatch::clear() {
  rows_.clear();
  ids_.clear();
  pairs_.clear();
}

void RescoreBatch::add_row(const float* x, double x_norm, std::span<const std::int32_t> ids, std::int32_t* nearest, double* score) {
  rows_.push_back({ids_.size(), ids_.size() + ids.size(), nearest, score});
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  for (std::size_t q = 0; q < ids.size(); ++q) pairs_.push_back({x, nullptr, x_norm, 0.0});
}

void RescoreBatch::finish(Metric metric, const MatrixF& centres, std::span<const double> centre_norms, std::size_t k) {
  for (std::size_t q = 0; q < ids_.size(); ++q) {
    const auto c = static_cast<std::size_t>(ids_[q]);
    pairs_[q].c = centres.row(ids_[q]).data();
    pairs_[q].c_norm = centre_norms[c];
  }
  scores_.resize(pairs_.size());
  pair_scores(metric, centres.cols(), pairs_, scores_.data());
  for (const Row& row : rows_) {
    scratch_.clear();
    for (std::size_t q = row.begin; q < row.end; ++q) scratch_.emplace_back(scores_[q], ids_[q]);
    select_k(scratch_, k, row.nearest, row.score);
  }
  clear();
}

}  // namespace secpe::exact
