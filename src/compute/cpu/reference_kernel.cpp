#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "compute/exact_score.hpp"
#include "compute/lanes8.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "compute/cuda_backend.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"


namespace secpe {

namespace exact {

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
// The same with AVX-512, the eight chains in the lanes of one register (compute/lanes8.hpp): the
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

}  // namespace exact

void ReferenceKernel::search(const MatrixF& x, const MatrixF& centres, Metric metric,
                             std::span<std::int32_t> nearest, std::span<double> score) const {
  if (x.rows() == 0) return;
  const exact::Prepared p = exact::prepare(x, centres, metric, 1, nearest.size(), score.size());
  const Eigen::Index d = x.cols();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* xi = x.row(i).data();
    double best = std::numeric_limits<double>::infinity();
    std::int32_t best_k = 0;
    for (Eigen::Index k = 0; k < centres.rows(); ++k) {
      const double s = exact::pair_score(metric, xi, centres.row(k).data(), d, p.row_norms[i], p.centre_norms[k]);
      if (s < best) {  // strict: ties keep the lowest index
        best = s;
        best_k = static_cast<std::int32_t>(k);
      }
    }
    nearest[i] = best_k;
    score[i] = best;
  }
}

void ReferenceKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                               std::span<std::int32_t> nearest, std::span<double> score) const {
  if (x.rows() == 0) return;
  const auto kk = static_cast<std::size_t>(std::max(k, 0));
  const exact::Prepared p = exact::prepare(x, centres, metric, kk, nearest.size(), score.size());
  const Eigen::Index d = x.cols();
  const auto n = static_cast<std::size_t>(centres.rows());
  std::vector<double> s(n);
  std::vector<std::int32_t> order(n);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* xi = x.row(i).data();
    for (std::size_t c = 0; c < n; ++c) {
      s[c] = exact::pair_score(metric, xi, centres.row(static_cast<Eigen::Index>(c)).data(), d, p.row_norms[i],
                               p.centre_norms[c]);
    }
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kk), order.end(),
                      [&](std::int32_t a, std::int32_t b) { return exact::better(s[a], a, s[b], b); });
    for (std::size_t j = 0; j < kk; ++j) {
      nearest[i * kk + j] = order[j];
      score[i * kk + j] = s[order[j]];
    }
  }
}

void NearestCentreKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                                   std::span<std::int32_t> nearest, std::span<double> score) const {
  ReferenceKernel().search_k(x, centres, metric, k, nearest, score);
}

void NearestCentreKernel::search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                                        std::span<double> score, std::span<std::int32_t> centre_nearest,
                                        std::span<double> centre_score) const {
  if (x.rows() == 0) return;
  search(x, centres, metric, nearest, score);
  search(centres, x, metric, centre_nearest, centre_score);
}

std::unique_ptr<KeptRows> NearestCentreKernel::keep(const MatrixF& rows) const { return std::make_unique<KeptRows>(rows); }

void NearestCentreKernel::search_batch(std::span<const SearchTask> tasks, Metric metric) const {
  for (const SearchTask& t : tasks) {
    const MatrixF& x = t.x->rows();
    if (!t.centre_nearest.empty()) {
      if (t.k != 1) throw std::logic_error("search_batch: a mutual search returns one nearest centre per row");
      search_mutual(x, *t.centres, metric, t.nearest, t.score, t.centre_nearest, t.centre_score);
    } else if (t.k == 1) {
      search(x, *t.centres, metric, t.nearest, t.score);
    } else {
      search_k(x, *t.centres, metric, t.k, t.nearest, t.score);
    }
  }
}

void NearestCentreKernel::search_kept(const KeptRows& x, const MatrixF& centres, Metric metric, int k,
                                      std::span<std::int32_t> nearest, std::span<double> score) const {
  const SearchTask task{.x = &x, .centres = &centres, .k = k, .nearest = nearest, .score = score};
  search_batch(std::span<const SearchTask>(&task, 1), metric);
}

Metric parse_metric(const std::string& name) {
  if (name == "l2") return Metric::kL2;
  if (name == "ip") return Metric::kInnerProduct;
  if (name == "cosine") return Metric::kCosine;
  throw InputError("unknown metric '" + name + "' (expected l2, ip or cosine)");
}

std::string metric_name(Metric metric) {
  switch (metric) {
    case Metric::kL2: return "l2";
    case Metric::kInnerProduct: return "ip";
    case Metric::kCosine: return "cosine";
  }
  return "?";
}

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name, int threads, Device device) {
  if (name != "reference" && name != "blas") throw InputError("unknown compute kernel '" + name + "' (expected reference or blas)");
  // On a GPU, the fastest screen proven exact there (TF32 where it has it: the results are the same).
  if (resolve_device(device) == Device::kCuda) return make_cuda_kernel(CudaKernelOptions{.threads = threads, .tf32 = cuda_tf32_available()});
  if (name == "reference") return std::make_unique<ReferenceKernel>();
  return std::make_unique<BlasKernel>(BlasKernelOptions{.threads = threads});
}

}  // namespace secpe
