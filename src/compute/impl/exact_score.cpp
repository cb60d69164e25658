// The exact scores' shared steps (compute/impl/exact_score.hpp): every kernel's norms, its input
// checks, and the preparation of a search.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compute/impl/exact_score.hpp"
#include "compute/impl/lanes8.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe::exact {


namespace {

// norm() of rows [b, e) of m, eight rows at a time: eight independent chains, each summed exactly
// as norm() sums it (same terms, same order), so every result is bit-identical to norm()'s; the
// interleaving only hides the latency of the additions, which bounds a single chain.
[[gnu::target_clones("avx2", "default")]]
void norms_of_rows(const MatrixF& m, std::size_t b, std::size_t e, double* out) {
  constexpr std::size_t kChains = 8;
  const Eigen::Index d = m.cols();
  std::size_t i = b;
  for (; i + kChains <= e; i += kChains) {
    const float* row[kChains];
    for (std::size_t q = 0; q < kChains; ++q) row[q] = m.row(static_cast<Eigen::Index>(i + q)).data();
    double s[kChains] = {};
    for (Eigen::Index j = 0; j < d; ++j)
      for (std::size_t q = 0; q < kChains; ++q) s[q] += double(row[q][j]) * double(row[q][j]);
    for (std::size_t q = 0; q < kChains; ++q) out[i + q] = std::sqrt(s[q]);
  }
  for (; i < e; ++i) out[i] = norm(m.row(static_cast<Eigen::Index>(i)).data(), d);
}

#ifdef SECPE_LANES8
// The same with AVX-512, the eight chains in the lanes of one register (compute/impl/lanes8.hpp): the
// squares of eight coordinates of each of eight rows (exact: a float's square fits a double),
// transposed and added in order: norm()'s sums, bit for bit.
[[gnu::target("avx512f")]]
void norms_of_rows_avx512(const MatrixF& m, std::size_t b, std::size_t e, double* out) {
  constexpr std::size_t kRows = 8;
  const Eigen::Index d = m.cols();
  std::size_t i = b;
  for (; i + kRows <= e; i += kRows) {
    const float* row[kRows];
    for (std::size_t q = 0; q < kRows; ++q) row[q] = m.row(static_cast<Eigen::Index>(i + q)).data();
    __m512d sum = _mm512_setzero_pd();
    Eigen::Index j = 0;
    for (; j + 8 <= d; j += 8) {
      __m512d t[kRows];  // t[q]: row q's squares of coordinates j .. j + 7
      for (std::size_t q = 0; q < kRows; ++q) {
        const __m512d v = lanes8::widen(row[q] + j);
        t[q] = _mm512_mul_pd(v, v);
      }
      sum = lanes8::add_transposed(sum, t);
    }
    alignas(64) double s[kRows];
    _mm512_store_pd(s, sum);
    for (std::size_t q = 0; q < kRows; ++q) {
      for (Eigen::Index jj = j; jj < d; ++jj) s[q] += double(row[q][jj]) * double(row[q][jj]);
      out[i + q] = std::sqrt(s[q]);
    }
  }
  for (; i < e; ++i) out[i] = norm(m.row(static_cast<Eigen::Index>(i)).data(), d);
}
#endif

void norms_of(const MatrixF& m, std::size_t b, std::size_t e, double* out, SumPath path) {
#ifdef SECPE_LANES8
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512 && path != SumPath::kChains) return norms_of_rows_avx512(m, b, e, out);
#endif
  norms_of_rows(m, b, e, out);
}

}  // namespace

std::vector<double> norms(const MatrixF& m, int threads, SumPath path) {
  const auto rows = static_cast<std::size_t>(m.rows());
  std::vector<double> out(rows);
  run_chunks(chunk_count(threads, rows, 2.0 * double(m.cols())), rows,
             [&](int, std::size_t b, std::size_t e) { norms_of(m, b, e, out.data(), path); });
  return out;
}

void check_shapes(const MatrixF& x, const MatrixF& centres, std::size_t k, std::size_t nearest_size, std::size_t score_size) {
  const Eigen::Index d = x.cols();
  if (centres.rows() == 0) throw InputError("nearest-centre search: no centres");
  if (centres.cols() != d) {
    throw InputError("nearest-centre search: dimension mismatch (rows have " + std::to_string(d) +
                     ", centres have " + std::to_string(centres.cols()) + ")");
  }
  if (k < 1 || k > static_cast<std::size_t>(centres.rows())) {
    throw InputError("nearest-centre search: cannot return " + std::to_string(k) + " nearest of " +
                     std::to_string(centres.rows()) + " centres");
  }
  const std::size_t need = static_cast<std::size_t>(x.rows()) * k;
  if (nearest_size < need || score_size < need) {
    throw std::invalid_argument("nearest-centre search: output spans hold fewer than rows * k entries");
  }
}

void check_norms(std::span<const double> row_norms, std::span<const double> centre_norms, Metric metric) {
  // Centres first, then rows, each in index order: the error a single pass would throw.
  const auto check = [&](std::span<const double> norm_of, const char* what) {
    const auto bad = std::find_if(norm_of.begin(), norm_of.end(),
                                  [&](double n) { return !std::isfinite(n) || (metric == Metric::kCosine && n == 0.0); });
    if (bad == norm_of.end()) return;
    const std::string which = std::string(what) + " " + std::to_string(bad - norm_of.begin());
    if (!std::isfinite(*bad)) throw InputError(which + " has a NaN or infinite value");
    throw InputError("cosine metric: " + which + " is a zero vector");
  };
  check(centre_norms, "centre");
  check(row_norms, "row");
}

Prepared prepare(const MatrixF& x, const MatrixF& centres, Metric metric, std::size_t k, std::size_t nearest_size,
                 std::size_t score_size, int threads) {
  check_shapes(x, centres, k, nearest_size, score_size);
  Prepared p{norms(x, threads), norms(centres, threads)};
  check_norms(p.row_norms, p.centre_norms, metric);
  return p;
}

}  // namespace secpe::exact
