// The BLAS kernel: float GEMM to find candidates, the reference's double formula to score them.
//
// For a block of rows of X and a block of centres, G = X_b C_b^T comes from cblas_sgemm. From G and
// the norms each pair gets an approximate score A and a rigorous bound E on |A - R|, R being the
// score the reference kernel computes (exact::pair_score). So R lies in [lo, hi] = [A - E, A + E].
// Per row we keep the k smallest upper bounds seen so far (their largest is the threshold t: at
// least k centres have R <= t) and every centre with lo <= t (the candidates). A centre with
// lo > t has R > t, so at least k centres beat it strictly: it can be neither in the top k nor
// tied with it. At the end the candidates are rescored exactly and the k best (ties to the lower
// index) are the reference's answer, bit for bit.
//
// The bound (approx_score, score_error, exact_only) and the order of results are shared with the
// GPU kernel: compute/search_bound.hpp, where the bound is derived. The bf16 screen only changes
// where G comes from (compute/cpu/bf16_gemm.hpp) and the bound's input rounding unit.
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compute/exact_score.hpp"
#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "core/parallel.hpp"
#include "core/error.hpp"

namespace secpe {

BlasScreen parse_blas_screen(const std::string& name) {
  for (const BlasScreen s : {BlasScreen::kAuto, BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kBf16Emulated})
    if (name == blas_screen_name(s)) return s;
  throw InputError("unknown blas screen '" + name + "' (expected auto, fp32, bf16 or bf16-emulated)");
}

std::string blas_screen_name(BlasScreen screen) {
  switch (screen) {
    case BlasScreen::kAuto: return "auto";
    case BlasScreen::kFp32: return "fp32";
    case BlasScreen::kBf16: return "bf16";
    case BlasScreen::kBf16Emulated: return "bf16-emulated";
  }
  return "auto";
}

namespace {

// The environment's choice for auto, and the hardware's: kAuto stays only where AMX runs.
BlasScreen resolve_screen(BlasScreen screen) {
  if (screen == BlasScreen::kAuto) {
    if (const char* env = std::getenv("SECPE_BLAS_SCREEN")) {
      try {
        screen = parse_blas_screen(env);
      } catch (const InputError& e) {
        throw InputError(std::string("SECPE_BLAS_SCREEN: ") + e.what());
      }
    }
  }
  if ((screen == BlasScreen::kAuto || screen == BlasScreen::kBf16) && !bf16::amx_available()) return BlasScreen::kFp32;
  return screen;
}

}  // namespace

BlasKernel::BlasKernel(BlasKernelOptions options)
    : threads_(options.threads > 0 ? options.threads : default_threads()),
      row_block_(std::max(1, options.row_block)),
      centre_block_(std::max(1, options.centre_block)),
      screen_(resolve_screen(options.screen)),
      bf16_min_centres_(options.bf16_min_centres) {}

BlasScreen BlasKernel::screen_for(Eigen::Index centres) const {
  if (screen_ != BlasScreen::kAuto) return screen_;
  return centres >= bf16_min_centres_ ? BlasScreen::kBf16 : BlasScreen::kFp32;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Candidate {
  double lo;
  std::int32_t index;
};

// Drops the candidates whose lower bound is above t: they cannot be among the best.
void drop_above(std::vector<Candidate>& cands, double t) {
  std::erase_if(cands, [t](const Candidate& c) { return !(c.lo <= t); });
}

// Per-row state across the centre blocks.
struct RowState {
  std::vector<double> upper;  // max-heap of the k smallest upper bounds seen (k > 1 only)
  std::vector<Candidate> cands;
  double threshold = kInf;  // upper.front() once k bounds are in, else +inf
  std::size_t prune_at = 0;

  void reset(std::size_t k) {
    upper.clear();
    upper.reserve(k);
    cands.clear();
    threshold = kInf;
    prune_at = 64 + 4 * k;
  }
  void offer_upper(double hi, std::size_t k) {
    if (upper.size() < k) {
      upper.push_back(hi);
      std::push_heap(upper.begin(), upper.end());
      if (upper.size() == k) threshold = upper.front();
    } else {
      std::pop_heap(upper.begin(), upper.end());
      upper.back() = hi;
      std::push_heap(upper.begin(), upper.end());
      threshold = upper.front();
    }
  }
  void prune() { drop_above(cands, threshold); }
};

// One side of a search as the float re-screen reads it: the rows a query is scored against, and
// their norms, squared norms and inverse norms (cosine; else 0).
struct Side {
  const MatrixF& rows;
  std::span<const double> norms, sq, inv_norms;
};

// The squared norms and the inverse norms (cosine; else 0) that the bound and the approximate
// scores read, from the exact norms.
void norm_terms(Metric metric, std::span<const double> norms, std::vector<double>& sq, std::vector<double>& inv_norms) {
  sq.resize(norms.size());
  inv_norms.resize(norms.size());
  for (std::size_t i = 0; i < norms.size(); ++i) {
    sq[i] = norms[i] * norms[i];
    inv_norms[i] = metric == Metric::kCosine ? 1.0 / norms[i] : 0.0;
  }
}

struct Search {
  const MatrixF& x;
  const MatrixF& centres;
  Metric metric;
  std::size_t k;
  const exact::Prepared& p;
  std::vector<double> centre_sq;         // |c|^2
  std::vector<double> centre_inv_norms;  // 1 / |c| (cosine)
  std::vector<double> block_max_norm;    // per centre block: max |c|
  std::vector<double> block_max_inv_norm;  // per centre block: max 1 / |c| (cosine)
  bound::ScoreBound bound;  // fp32 screen: every row's
  bool exact_only;  // float overflow possible: score every pair exactly
  const bf16::PackedCentres* packed;  // the bf16 screen's centres; null: the fp32 screen
  bf16::Engine engine;
  std::span<std::int32_t> nearest;
  std::span<double> score;
};

// Thread-local scratch.
struct Workspace {
  bf16::LineVector<std::uint16_t> xb;  // the row block in bf16 (bf16 screen)
  bf16::LineVector<float> g;
  std::vector<double> row_errors;          // bf16 screen: relative rounding error of each row
  std::vector<bound::ScoreBound> bounds;   // each row's bound
  std::vector<double> a;
  std::vector<RowState> rows;
  std::vector<std::int32_t> ids;
  std::vector<std::pair<double, std::int32_t>> scored;
  std::vector<double> lower, upper;  // the float re-screen's bounds (lower: per candidate)
  struct Columns* columns = nullptr;  // search_mutual: this worker's state of every centre
};

// search_mutual's other direction, one worker's state of every centre (k = 1, as RowState's):
// the smallest upper bound over the rows seen, and the rows whose lower bound is not above it.
// Thresholds are kept apart from the lists so that a row updates them in vector instructions.
struct Columns {
  std::vector<double> threshold;
  std::vector<std::vector<Candidate>> cands;
  std::vector<std::size_t> prune_at;

  explicit Columns(std::size_t n) : threshold(n, kInf), cands(n), prune_at(n, 64) {}
  void add(std::size_t c, double lo, std::int32_t row) {
    auto& list = cands[c];
    list.push_back({lo, row});
    if (list.size() <= prune_at[c]) return;
    drop_above(list, threshold[c]);
    prune_at[c] = std::max(prune_at[c], 2 * list.size());
  }
};

// x . c in float, in sixteen lanes (a float dot product summed in any order: the fp32 bound holds).
[[gnu::always_inline]] inline float float_dot(const float* x, const float* c, Eigen::Index d) {
  using Lanes = float __attribute__((vector_size(64)));
  Lanes acc = {};
  Eigen::Index j = 0;
  for (; j + 16 <= d; j += 16) {
    Lanes a, b;
    std::memcpy(&a, x + j, sizeof a);
    std::memcpy(&b, c + j, sizeof b);
    acc += a * b;
  }
  float sum = 0.0f;
  for (int q = 0; q < 16; ++q) sum += acc[q];
  for (; j < d; ++j) sum += x[j] * c[j];
  return sum;
}

// The bf16 screen's survivors screened again in float. On clustered data many centres fall
// within bf16's bound of a row's best, and each exact rescoring is a sequential double dot
// product; a float dot product with the fp32 screen's bound (s.bound) drops those that cannot be
// among the k best (lower bound above the k-th smallest upper bound), so fewer reach best_k_of,
// which decides as before. Compiled for AVX-512 and AVX2 as well, chosen at load time.
#if defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void rescreen_in_float(const Search& s, const float* x, double rx, const Side& side, Workspace& ws) {
  const std::size_t n = ws.ids.size();
  const double inv_rx = s.metric == Metric::kCosine ? 1.0 / rx : 0.0;
  ws.lower.resize(n);
  ws.upper.resize(n);
  for (std::size_t q = 0; q < n; ++q) {
    const auto c = static_cast<std::size_t>(ws.ids[q]);
    const float g = float_dot(x, side.rows.row(static_cast<Eigen::Index>(c)).data(), side.rows.cols());
    const double a = bound::approx_score(s.metric, g, rx * rx, side.sq[c], inv_rx, side.inv_norms[c]);
    const double e = bound::score_error(s.bound, s.metric, rx, side.norms[c], side.inv_norms[c]);
    ws.lower[q] = a - e;
    ws.upper[q] = a + e;
  }
  // The k-th smallest upper bound (the upper bounds are not needed in candidate order after this).
  std::nth_element(ws.upper.begin(), ws.upper.begin() + static_cast<std::ptrdiff_t>(s.k - 1), ws.upper.end());
  const double threshold = ws.upper[s.k - 1];
  std::size_t kept = 0;
  for (std::size_t q = 0; q < n; ++q)
    if (ws.lower[q] <= threshold) ws.ids[kept++] = ws.ids[q];
  ws.ids.resize(kept);
}

// The exact answer for row i from its candidate list (all centres when exact_only).
void finish_row(const Search& s, Eigen::Index i, RowState& st, Workspace& ws) {
  ws.ids.clear();
  if (s.exact_only) {
    for (Eigen::Index c = 0; c < s.centres.rows(); ++c) ws.ids.push_back(static_cast<std::int32_t>(c));
  } else {
    st.prune();
    for (const Candidate& c : st.cands) ws.ids.push_back(c.index);
    if (s.packed && ws.ids.size() > s.k + 1) {
      const Side centres{s.centres, s.p.centre_norms, s.centre_sq, s.centre_inv_norms};
      rescreen_in_float(s, s.x.row(i).data(), s.p.row_norms[static_cast<std::size_t>(i)], centres, ws);
    }
  }
  // ws.ids.size() >= k: the k bounds of the heap are candidates
  const auto out = static_cast<std::size_t>(i) * s.k;
  exact::best_k_of(s.metric, s.x.row(i).data(), s.p.row_norms[static_cast<std::size_t>(i)], s.centres, s.p.centre_norms, ws.ids,
                   s.k, ws.scored, s.nearest.data() + out, s.score.data() + out);
}

// The approximate scores a[j] of row i against centres c0 .. c0+nb-1, from G's row.
template <Metric M>
[[gnu::always_inline]] inline void approx_row(const Search& s, Eigen::Index i, const float* __restrict g, Eigen::Index c0, Eigen::Index nb,
                double* __restrict a) {
  const double rx = s.p.row_norms[static_cast<std::size_t>(i)];
  const double sqx = rx * rx, inv_rx = M == Metric::kCosine ? 1.0 / rx : 0.0;
  const double* __restrict sqc = s.centre_sq.data() + c0;
  const double* __restrict inv_rc = s.centre_inv_norms.data() + c0;
  for (Eigen::Index j = 0; j < nb; ++j) a[j] = bound::approx_score(M, g[j], sqx, sqc[j], inv_rx, inv_rc[j]);
}

// One bound E for row i against a whole centre block, from the block's largest centre norm:
// |a[j] - R(i, c)| <= E for every centre c of the block (the terms grow with |c|).
double block_bound(const Search& s, const bound::ScoreBound& b, Eigen::Index i, std::size_t block) {
  return bound::score_error(b, s.metric, s.p.row_norms[static_cast<std::size_t>(i)], s.block_max_norm[block],
                            s.block_max_inv_norm[block]);
}

// Folds one block's approximate scores into the row's state: R lies in [a - e, a + e].
[[gnu::always_inline]] inline double min_of(const double* a, Eigen::Index n) {
  // Eight lanes at once (GCC/Clang vector extension: one vector min where the target has it):
  // the compiler neither reorders a floating-point reduction itself nor vectorises it otherwise.
  using Lanes = double __attribute__((vector_size(64)));
  Lanes m = {kInf, kInf, kInf, kInf, kInf, kInf, kInf, kInf};
  Eigen::Index j = 0;
  for (; j + 8 <= n; j += 8) {
    Lanes v;
    std::memcpy(&v, a + j, sizeof v);
    m = v < m ? v : m;
  }
  double out = kInf;
  for (int q = 0; q < 8; ++q) out = m[q] < out ? m[q] : out;
  for (; j < n; ++j) out = a[j] < out ? a[j] : out;
  return out;
}

[[gnu::always_inline]] inline void fold_block(const Search& s, RowState& st, Eigen::Index c0, Eigen::Index nb, const double* a, double e) {
  const std::size_t k = s.k;
  const double amin = min_of(a, nb);
  if (k == 1) {
    st.threshold = std::min(st.threshold, amin + e);
  } else if (amin + e < st.threshold) {
    for (Eigen::Index j = 0; j < nb; ++j) {
      if (a[j] + e < st.threshold) st.offer_upper(a[j] + e, k);
    }
  }
  const double limit = st.threshold + e;  // a - e <= threshold
  if (amin > limit) return;               // the usual case once a row's best is known
  for (Eigen::Index j = 0; j < nb; ++j) {
    if (a[j] <= limit) st.cands.push_back({a[j] - e, static_cast<std::int32_t>(c0 + j)});
  }
  if (st.cands.size() > st.prune_at) {
    st.prune();
    st.prune_at = std::max(st.prune_at, 2 * st.cands.size());
  }
}

// search_mutual's other direction: row `row`'s approximate scores against centres c0 .. c0+nb-1,
// each within e of the exact score, fold into the centres' states as fold_block folds a row's:
// the thresholds eight lanes at a time, and the rare row within reach of a threshold is listed.
[[gnu::always_inline]] inline void fold_columns(Columns& cols, Eigen::Index c0, Eigen::Index nb, const double* a, double e,
                                                std::int32_t row) {
  using Lanes = double __attribute__((vector_size(64)));
  double* t = cols.threshold.data() + c0;
  Eigen::Index j = 0;
  for (; j + 8 <= nb; j += 8) {
    Lanes v, th;
    std::memcpy(&v, a + j, sizeof v);
    std::memcpy(&th, t + j, sizeof th);
    const Lanes hi = v + e;
    th = hi < th ? hi : th;
    std::memcpy(t + j, &th, sizeof th);
    const auto near = (v - e) <= th;  // lanes of -1 where the row may beat the threshold
    bool any = false;
    for (int q = 0; q < 8; ++q) any |= near[q] != 0;
    if (!any) continue;
    for (int q = 0; q < 8; ++q)
      if (near[q]) cols.add(static_cast<std::size_t>(c0 + j + q), v[q] - e, row);
  }
  for (; j < nb; ++j) {
    t[j] = std::min(t[j], a[j] + e);
    if (a[j] - e <= t[j]) cols.add(static_cast<std::size_t>(c0 + j), a[j] - e, row);
  }
}

// G = X_b C_b^T for rows [r0, r0 + mb) and centres [c0, c0 + nb) into ws.g, row-major with
// leading dimension ld (the bf16 screen pads its blocks to multiples of 32).
void block_products(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index c0, Eigen::Index nb, Eigen::Index ld,
                    Workspace& ws) {
  const Eigen::Index d = s.x.cols();
  if (s.packed) {
    bf16::gemm(s.engine, ws.xb.data(), bf16::padded(mb), *s.packed, c0, ld, ws.g.data());
  } else if (d == 0) {
    std::fill(ws.g.begin(), ws.g.end(), 0.0f);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(mb), static_cast<int>(nb), static_cast<int>(d), 1.0f,
                s.x.row(r0).data(), static_cast<int>(d), s.centres.row(c0).data(), static_cast<int>(d), 0.0f, ws.g.data(),
                static_cast<int>(ld));
  }
}

// Folds the block of G (leading dimension ld) into the states of rows [r0, r0 + mb), with the
// helpers above inlined (always_inline: they are compiled for each clone's instructions). Compiled
// for AVX-512 and AVX2 as well, chosen at load time: the double arithmetic then runs 8 or 4 wide,
// with the same results lane by lane (IEEE operations, and no FMA contraction in this library).
#if defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void fold_rows(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index c0, Eigen::Index nb, Eigen::Index ld,
               std::size_t block, Workspace& ws) {
  for (Eigen::Index r = 0; r < mb; ++r) {
    const float* g = ws.g.data() + r * ld;
    switch (s.metric) {
      case Metric::kL2: approx_row<Metric::kL2>(s, r0 + r, g, c0, nb, ws.a.data()); break;
      case Metric::kInnerProduct: approx_row<Metric::kInnerProduct>(s, r0 + r, g, c0, nb, ws.a.data()); break;
      case Metric::kCosine: approx_row<Metric::kCosine>(s, r0 + r, g, c0, nb, ws.a.data()); break;
    }
    const double e = block_bound(s, ws.bounds[r], r0 + r, block);
    fold_block(s, ws.rows[r], c0, nb, ws.a.data(), e);
    if (ws.columns) fold_columns(*ws.columns, c0, nb, ws.a.data(), e, static_cast<std::int32_t>(r0 + r));
  }
}

void process_rows(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index centre_block, Workspace& ws) {
  const Eigen::Index n = s.centres.rows();
  if (ws.rows.size() < static_cast<std::size_t>(mb)) ws.rows.resize(static_cast<std::size_t>(mb));
  for (Eigen::Index r = 0; r < mb; ++r) ws.rows[r].reset(s.k);
  if (!s.exact_only) {
    const auto pad = [&](Eigen::Index v) { return s.packed ? bf16::padded(v) : v; };
    const Eigen::Index nbmax = std::min(centre_block, n);
    ws.g.resize(static_cast<std::size_t>(pad(mb) * pad(nbmax)));
    ws.a.resize(static_cast<std::size_t>(nbmax));
    ws.bounds.assign(static_cast<std::size_t>(mb), s.bound);
    if (s.packed) {
      // The bound's input unit for this row: the larger of its own and the centres' measured
      // relative rounding error (|x'.c' - x.c| <= (e_x + e_c + e_x e_c) |x| |c|).
      bf16::round_rows(s.x, r0, mb, ws.xb, ws.row_errors);
      for (std::size_t r = 0; r < ws.bounds.size(); ++r) {
        ws.bounds[r] = bound::make_score_bound(s.metric, s.x.cols(), std::max(ws.row_errors[r], s.packed->max_relative_error()));
      }
    }
    for (Eigen::Index c0 = 0; c0 < n; c0 += centre_block) {
      const Eigen::Index nb = std::min(centre_block, n - c0), ld = pad(nb);
      block_products(s, r0, mb, c0, nb, ld, ws);
      fold_rows(s, r0, mb, c0, nb, ld, static_cast<std::size_t>(c0 / centre_block), ws);
    }
  }
  for (Eigen::Index r = 0; r < mb; ++r) finish_row(s, r0 + r, ws.rows[r], ws);
}

// OpenBLAS runs one thread per call while our workers run (each worker calls sgemm itself);
// the caller's setting comes back afterwards.
class OpenBlasSingleThreaded {
 public:
  OpenBlasSingleThreaded() : saved_(openblas_get_num_threads()) {
    if (saved_ != 1) openblas_set_num_threads(1);
  }
  ~OpenBlasSingleThreaded() {
    if (saved_ != 1) openblas_set_num_threads(saved_);
  }
  OpenBlasSingleThreaded(const OpenBlasSingleThreaded&) = delete;
  OpenBlasSingleThreaded& operator=(const OpenBlasSingleThreaded&) = delete;

 private:
  int saved_;
};

std::mutex& openblas_mutex() {  // one BLAS search at a time changes OpenBLAS's thread setting
  static std::mutex m;
  return m;
}

}  // namespace

void BlasKernel::search(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                        std::span<double> score) const {
  search_k(x, centres, metric, 1, nearest, score);
}

void BlasKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                          std::span<std::int32_t> nearest, std::span<double> score) const {
  run(x, centres, metric, k, nearest, score, {}, {});
}

void BlasKernel::search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                               std::span<double> score, std::span<std::int32_t> centre_nearest,
                               std::span<double> centre_score) const {
  if (x.rows() == 0) return;
  const auto n = static_cast<std::size_t>(centres.rows());
  if (n > 0 && (centre_nearest.size() < n || centre_score.size() < n)) {
    throw std::invalid_argument("nearest-centre search: output spans hold fewer than one entry per centre");
  }
  run(x, centres, metric, 1, nearest, score, centre_nearest, centre_score);
}

void BlasKernel::run(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                     std::span<double> score, std::span<std::int32_t> centre_nearest, std::span<double> centre_score) const {
  const Eigen::Index m = x.rows();
  if (m == 0) return;
  const auto kk = static_cast<std::size_t>(std::max(k, 0));
  const exact::Prepared p = exact::prepare(x, centres, metric, kk, nearest.size(), score.size(), threads_);
  const Eigen::Index n = centres.rows();
  if (n > std::numeric_limits<std::int32_t>::max() || x.cols() > std::numeric_limits<int>::max() / 2) {
    throw InputError("nearest-centre search: too many centres or dimensions for the blas kernel");
  }

  const double max_rx = *std::max_element(p.row_norms.begin(), p.row_norms.end());
  const double max_rc = *std::max_element(p.centre_norms.begin(), p.centre_norms.end());
  const bool exact_only = bound::exact_only(max_rx, max_rc, n, static_cast<long long>(kk));
  // bf16 has float's exponent range but rounds values near FLT_MAX up to infinity.
  const BlasScreen screen = screen_for(n);
  const bool bf16 = screen != BlasScreen::kFp32 && !exact_only && x.cols() > 0 && max_rx < 1e38 && max_rc < 1e38;
  const std::optional<bf16::PackedCentres> packed = bf16 ? std::optional<bf16::PackedCentres>(std::in_place, centres, threads_) : std::nullopt;
  const Eigen::Index centre_block =
      bf16 ? std::min(bf16::padded(centre_block_), bf16::padded(n)) : std::min<Eigen::Index>(centre_block_, n);
  Search s{x,  centres, metric, kk, p, {}, {}, {}, {}, bound::make_score_bound(metric, x.cols()),
           exact_only, packed ? &*packed : nullptr,
           screen == BlasScreen::kBf16 ? bf16::Engine::kAmx : bf16::Engine::kEmulated, nearest, score};
  const auto nc = static_cast<std::size_t>(n);
  norm_terms(metric, p.centre_norms, s.centre_sq, s.centre_inv_norms);
  for (std::size_t c0 = 0; c0 < nc; c0 += static_cast<std::size_t>(centre_block)) {
    const std::size_t c1 = std::min(nc, c0 + static_cast<std::size_t>(centre_block));
    s.block_max_norm.push_back(*std::max_element(p.centre_norms.begin() + c0, p.centre_norms.begin() + c1));
    s.block_max_inv_norm.push_back(
        *std::max_element(s.centre_inv_norms.begin() + c0, s.centre_inv_norms.begin() + c1));
  }

  // Blocks of rows: at least one per thread when X is small, at most row_block rows each.
  Eigen::Index blocks = (m + row_block_ - 1) / row_block_;
  if (blocks < threads_) blocks = std::min<Eigen::Index>(threads_, m);
  const Eigen::Index mb = (m + blocks - 1) / blocks;
  blocks = (m + mb - 1) / mb;
  const int workers = static_cast<int>(std::min<Eigen::Index>(threads_, blocks));

  // search_mutual: every worker's state of every centre, merged once the workers are done.
  const bool mutual = !centre_nearest.empty();
  std::vector<Columns> columns(mutual && !exact_only ? static_cast<std::size_t>(workers) : 0, Columns(nc));

  std::lock_guard<std::mutex> lock(openblas_mutex());
  OpenBlasSingleThreaded single;
  std::atomic<Eigen::Index> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](int worker) {
    try {
      Workspace ws;
      if (!columns.empty()) ws.columns = &columns[static_cast<std::size_t>(worker)];
      for (Eigen::Index b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) {
        const Eigen::Index r0 = b * mb;
        process_rows(s, r0, std::min(mb, m - r0), centre_block, ws);
      }
    } catch (...) {
      std::lock_guard<std::mutex> g(error_mutex);
      if (!error) error = std::current_exception();
      next.store(blocks);
    }
  };
  run_chunks(workers, static_cast<std::size_t>(workers), [&](int worker, std::size_t, std::size_t) { work(worker); });
  if (error) std::rethrow_exception(error);
  if (!mutual) return;

  // Each centre's exact answer from the candidate rows of every worker (every row when exact_only),
  // screened again in float as a row's are.
  const auto rows = static_cast<std::size_t>(m);
  std::vector<double> row_sq, row_inv_norms;
  norm_terms(metric, p.row_norms, row_sq, row_inv_norms);
  const Side row_side{x, p.row_norms, row_sq, row_inv_norms};
  run_chunks(chunk_count(threads_, nc, 64.0 * double(x.cols())), nc, [&](int, std::size_t b, std::size_t e) {
    Workspace ws;
    for (std::size_t c = b; c < e; ++c) {
      ws.ids.clear();
      if (exact_only) {
        for (std::size_t i = 0; i < rows; ++i) ws.ids.push_back(static_cast<std::int32_t>(i));
      } else {
        double threshold = kInf;
        for (const Columns& cols : columns) threshold = std::min(threshold, cols.threshold[c]);
        for (const Columns& cols : columns)
          for (const Candidate& cand : cols.cands[c])
            if (cand.lo <= threshold) ws.ids.push_back(cand.index);
        if (s.packed && ws.ids.size() > 2) rescreen_in_float(s, centres.row(static_cast<Eigen::Index>(c)).data(), p.centre_norms[c], row_side, ws);
      }
      exact::best_k_of(metric, centres.row(static_cast<Eigen::Index>(c)).data(), p.centre_norms[c], x, p.row_norms, ws.ids, 1,
                       ws.scored, &centre_nearest[c], &centre_score[c]);
    }
  });
}

}  // namespace secpe
