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
// GPU kernel: compute/impl/search_bound.hpp, where the bound is derived. A narrow screen (bf16, int8:
// compute/cpu/screen_gemm.hpp) only changes where G comes from and the bound's input units.
// The bounds are computed in lanes of eight doubles (a 64-byte GCC vector type) by inline functions
// of compute/impl/search_bound.hpp, which says why GCC's ABI warning about them is silenced.
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compute/impl/exact_score.hpp"
#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/screen_cascade.hpp"
#include "compute/cpu/screen_gemm.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "core/parallel.hpp"
#include "core/error.hpp"

namespace secpe {

const char* ScreenStats::level_name(int level) {
  static constexpr const char* kNames[kLevels] = {"int8", "bf16", "fp32"};
  return level >= 0 && level < kLevels ? kNames[level] : "?";
}

std::optional<screen::Engine> screen_engine(BlasScreen screen) {
  using screen::Engine;
  const auto first_available = [](std::initializer_list<Engine> engines) -> std::optional<Engine> {
    for (const Engine e : engines)
      if (screen::available(e)) return e;
    return std::nullopt;
  };
  switch (screen) {
    case BlasScreen::kBf16: return first_available({Engine::kBf16Amx, Engine::kBf16Avx512});
    case BlasScreen::kBf16Emulated: return Engine::kBf16Emulated;
    case BlasScreen::kInt8: return first_available({Engine::kInt8Avx512, Engine::kInt8Avx});
    case BlasScreen::kInt8Emulated: return Engine::kInt8Emulated;
    case BlasScreen::kAuto:
    case BlasScreen::kFp32: break;
  }
  return std::nullopt;
}

std::string screen_label(BlasScreen screen) {
  const std::optional<screen::Engine> engine = screen_engine(screen);
  return engine ? screen::engine_name(*engine) : "fp32 (sgemm)";
}

BlasScreen AutoScreen::screen_for(Eigen::Index centres) const {
  BlasScreen out = BlasScreen::kFp32;
  for (const Tier& t : tiers)
    if (centres >= t.min_centres) out = t.screen;
  return out;
}

namespace {

using Failure = std::function<InputError(const std::string&)>;

// Calls `item` with each comma-separated part of `text` (an empty text is one empty part).
void for_each_item(const std::string& text, const std::function<void(const std::string&)>& item) {
  std::size_t begin = 0;
  do {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    item(text.substr(begin, end - begin));
    begin = end + 1;
  } while (begin <= text.size());
}

// "SCREEN=SPEEDUP,..." after the tiers' ';'.
std::vector<AutoScreen::Speedup> parse_speedups(const std::string& text, const Failure& fail) {
  std::vector<AutoScreen::Speedup> out;
  for_each_item(text, [&](const std::string& item) {
    const std::size_t equals = item.find('=');
    AutoScreen::Speedup s{BlasScreen::kFp32, 0.0};
    try {
      s.screen = parse_blas_screen(item.substr(0, equals));
    } catch (const InputError& e) {
      throw fail(e.what());
    }
    if (s.screen != BlasScreen::kBf16 && s.screen != BlasScreen::kInt8) throw fail("a speedup is measured for bf16 or int8");
    const std::string value = equals == std::string::npos ? "" : item.substr(equals + 1);
    std::size_t used = 0;
    try {
      s.times = std::stod(value, &used);
    } catch (const std::exception&) {
    }
    if (!(s.times > 0.0 && s.times < 1e6) || used != value.size()) throw fail("'" + value + "' is no speedup");
    out.push_back(s);
  });
  return out;
}

}  // namespace

AutoScreen parse_auto_screen(const std::string& text) {
  AutoScreen choice;
  const Failure fail = [&](const std::string& why) {
    return InputError("'" + text + "': " + why +
                      " (expected SCREEN:MIN_CENTRES[,SCREEN:MIN_CENTRES...][;SCREEN=SPEEDUP,...], e.g. bf16:32,int8:1024)");
  };
  const std::size_t semicolon = text.find(';');
  const std::string tiers = text.substr(0, semicolon);
  if (semicolon != std::string::npos) choice.speedups = parse_speedups(text.substr(semicolon + 1), fail);
  for_each_item(tiers, [&](const std::string& tier) {
    const std::size_t colon = tier.find(':');
    AutoScreen::Tier t{BlasScreen::kFp32, -1};
    try {
      t.screen = parse_blas_screen(tier.substr(0, colon));
    } catch (const InputError& e) {
      throw fail(e.what());
    }
    const std::string count = colon == std::string::npos ? "" : tier.substr(colon + 1);
    std::size_t used = 0;
    try {
      t.min_centres = count.empty() || count[0] == '-' ? -1 : std::stoi(count, &used);
    } catch (const std::exception&) {
    }
    if (t.screen == BlasScreen::kAuto) throw fail("auto is no tier");
    if (t.min_centres < 0 || used != count.size()) throw fail("'" + count + "' is no count of centres");
    if (!choice.tiers.empty() && t.min_centres <= choice.tiers.back().min_centres) throw fail("the counts must ascend");
    choice.tiers.push_back(t);
  });
  return choice;
}

std::string auto_screen_text(const AutoScreen& choice) {
  std::string out;
  for (const AutoScreen::Tier& t : choice.tiers)
    out.append(out.empty() ? "" : ",").append(blas_screen_name(t.screen)).append(":").append(std::to_string(t.min_centres));
  if (out.empty()) out = "fp32:0";
  for (std::size_t i = 0; i < choice.speedups.size(); ++i) {
    char times[32];
    std::snprintf(times, sizeof times, "%.2f", choice.speedups[i].times);
    out.append(i == 0 ? ";" : ",").append(blas_screen_name(choice.speedups[i].screen)).append("=").append(times);
  }
  return out;
}

AutoScreen auto_screen() {
  if (const char* env = std::getenv("SECPE_BLAS_SCREEN_AUTO")) {
    try {
      AutoScreen choice = parse_auto_screen(env);
      choice.source = "SECPE_BLAS_SCREEN_AUTO (measured by secpe blas-check --choose-screen)";
      return choice;
    } catch (const InputError& e) {
      throw InputError(std::string("SECPE_BLAS_SCREEN_AUTO: ") + e.what());
    }
  }
  const char* source = "this CPU's default";
  const bool bf16 = screen_engine(BlasScreen::kBf16).has_value(), int8 = screen_engine(BlasScreen::kInt8).has_value();
  if (bf16::amx_available()) return {.tiers = {{BlasScreen::kBf16, 300}}, .source = source};
  if (int8 && bf16) return {.tiers = {{BlasScreen::kBf16, 32}, {BlasScreen::kInt8, 512}}, .source = source};
  if (int8) return {.tiers = {{BlasScreen::kInt8, 256}}, .source = source};
  if (bf16) return {.tiers = {{BlasScreen::kBf16, 300}}, .source = source};
  return {.tiers = {}, .source = source};
}

namespace {

// The environment's choice for auto, and the hardware's: a narrow screen without an engine here
// is fp32.
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
  if (screen != BlasScreen::kAuto && screen != BlasScreen::kFp32 && !screen_engine(screen)) return BlasScreen::kFp32;
  return screen;
}

}  // namespace

BlasKernel::BlasKernel(BlasKernelOptions options)
    : threads_(options.threads > 0 ? options.threads : default_threads()),
      row_block_(std::max(1, options.row_block)),
      centre_block_(std::max(1, options.centre_block)),
      screen_(resolve_screen(options.screen)),
      auto_(screen_ == BlasScreen::kAuto ? options.auto_choice.value_or(auto_screen()) : AutoScreen{}),
      stats_(options.stats),
      screen_shift_(options.screen_shift),
      cascade_limit_(options.cascade_limit) {
  for (AutoScreen::Tier& t : auto_.tiers) t.screen = resolve_screen(t.screen);
}

BlasScreen BlasKernel::screen_for(Eigen::Index centres) const {
  if (screen_ != BlasScreen::kAuto) return screen_;
  return auto_.screen_for(centres);
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
  bound::ScoreBound bound;  // the fp32 screen's, for every row (and the float re-screen's)
  bool exact_only;  // float overflow possible: score every pair exactly
  std::span<std::int32_t> nearest;
  std::span<double> score;
  // The screens, fastest first (compute/cpu/screen_cascade.hpp): a block whose rows kept more
  // candidates than its screen's limit hands the rest of the search to the next one (the results
  // are the same either way: only the time differs). Null when exact_only.
  const screen::Cascade* cascade = nullptr;
  bool narrow = false;  // the cascade starts on a narrow screen (the centres' side re-screens in float)
  ScreenStats* stats = nullptr;
};

// Thread-local scratch.
struct Workspace {
  const screen::Level* level = nullptr;        // this block's screen
  const screen::ScreenGemm* narrow = nullptr;  // its narrow GEMM (null: fp32)
  std::size_t candidates = 0;                   // kept by this block's rows before any re-screen
  std::size_t rescored = 0;                     // pairs of this block's rows scored exactly
  screen::RoundedRows rounded;  // the row block as a narrow screen multiplies it
  screen::LineVector<float> g;
  std::vector<bound::RowTerms> terms;     // each row's bound
  std::vector<double> row_offset;         // each row's P (bound::offset_score_of)
  std::vector<const double*> centre_offset;  // each row's Q per centre (null: none)
  std::vector<double> lo, hi;      // a block's bounds on the exact scores of one row
  std::vector<double> chunk_min;  // lo's minimum per kChunk centres
  std::vector<RowState> rows;
  std::vector<std::int32_t> ids;
  exact::RescoreBatch batch;  // rows whose candidates await their exact scores
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

// x . c in float, in four chains of sixteen lanes (a float dot product summed in any order: the
// fp32 bound holds; four chains keep the additions' latency out of the way).
[[gnu::always_inline]] inline float float_dot(const float* x, const float* c, Eigen::Index d) {
  using Floats = float __attribute__((vector_size(64)));
  Floats acc[4] = {};
  Eigen::Index j = 0;
  for (; j + 64 <= d; j += 64) {
    for (int t = 0; t < 4; ++t) {
      Floats a, b;
      std::memcpy(&a, x + j + 16 * t, sizeof a);
      std::memcpy(&b, c + j + 16 * t, sizeof b);
      acc[t] += a * b;
    }
  }
  for (; j + 16 <= d; j += 16) {
    Floats a, b;
    std::memcpy(&a, x + j, sizeof a);
    std::memcpy(&b, c + j, sizeof b);
    acc[0] += a * b;
  }
  const Floats all = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float sum = 0.0f;
  for (int q = 0; q < 16; ++q) sum += all[q];
  for (; j < d; ++j) sum += x[j] * c[j];
  return sum;
}

// A narrow screen's survivors screened again in float. On clustered data many centres fall
// within a narrow screen's bound of a row's best, and each exact rescoring is a sequential double dot
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
  // The survivors' rows are scattered over memory: each is asked for two rows ahead.
  const auto bytes = static_cast<std::size_t>(side.rows.cols()) * sizeof(float);
  const auto prefetch = [&](std::size_t q) {
    const char* row = reinterpret_cast<const char*>(side.rows.row(ws.ids[q]).data());
    for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b);
  };
  for (std::size_t q = 0; q < std::min<std::size_t>(n, 2); ++q) prefetch(q);
  for (std::size_t q = 0; q < n; ++q) {
    if (q + 2 < n) prefetch(q + 2);
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

// A batch is rescored once it holds this many pairs (or more: a row's candidates stay together).
constexpr std::size_t kBatchPairs = 4096;

// The exact answer for row i from its candidate list (all centres when exact_only), rescored in
// ws.batch with the rows before it; process_rows finishes the batch.
void finish_row(const Search& s, Eigen::Index i, RowState& st, Workspace& ws) {
  ws.ids.clear();
  if (s.exact_only) {
    for (Eigen::Index c = 0; c < s.centres.rows(); ++c) ws.ids.push_back(static_cast<std::int32_t>(c));
  } else {
    st.prune();
    for (const Candidate& c : st.cands) ws.ids.push_back(c.index);
    ws.candidates += ws.ids.size();
    if (ws.narrow && ws.ids.size() > s.k + 1) {
      const Side centres{s.centres, s.p.centre_norms, s.centre_sq, s.centre_inv_norms};
      rescreen_in_float(s, s.x.row(i).data(), s.p.row_norms[static_cast<std::size_t>(i)], centres, ws);
    }
  }
  // ws.ids.size() >= k: the k bounds of the heap are candidates
  ws.rescored += ws.ids.size();
  const auto out = static_cast<std::size_t>(i) * s.k;
  ws.batch.add_row(s.x.row(i).data(), s.p.row_norms[static_cast<std::size_t>(i)], ws.ids, s.nearest.data() + out,
                   s.score.data() + out);
  if (ws.batch.pairs() >= kBatchPairs) ws.batch.finish(s.metric, s.centres, s.p.centre_norms, s.k);
}

// Chunks of a block's centres with their own minimum lower bound, so that a block with a few
// candidates among its centres is scanned only where they are.
constexpr Eigen::Index kChunk = 64;

using Lanes = double __attribute__((vector_size(64)));  // eight doubles (GCC/Clang vector extension)
using FloatLanes = float __attribute__((vector_size(32)));

// The smallest of eight lanes, as a tree (the compiler neither reorders a floating-point reduction
// itself nor vectorises it otherwise).
[[gnu::always_inline]] inline double lanes_min(const Lanes& lanes) {
  Lanes m = lanes;
  Lanes h = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
  m = h < m ? h : m;
  h = __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
  m = h < m ? h : m;
  h = __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
  m = h < m ? h : m;
  return m[0];
}

// lo and hi for centre j: the approximate score from G's g and the offsets (the row's P, the
// centre's Q where q is not null: bound::offset_score_of), and its bound E (the row's
// bound::RowTerms, the level's bound::CentreTerms of the centre), for one double or eight.
template <Metric M, bool kQ, class T>
[[gnu::always_inline]] inline void bounds_of(const Search& s, const screen::Level& level, const bound::RowTerms& t, double row_p,
                                             const double* q_c, double inv_rx, const T& g, Eigen::Index j, T& lo, T& hi) {
  T p, q, r = T{}, qc = T{}, inv_rc = T{};
  std::memcpy(&p, level.p.data() + j, sizeof p);
  std::memcpy(&q, level.q.data() + j, sizeof q);
  if constexpr (M != Metric::kInnerProduct) std::memcpy(&r, level.r.data() + j, sizeof r);
  if constexpr (kQ) std::memcpy(&qc, q_c + j, sizeof qc);
  if constexpr (M == Metric::kCosine) std::memcpy(&inv_rc, s.centre_inv_norms.data() + j, sizeof inv_rc);
  const T a = bound::offset_score_of<T>(M, g, T{} + row_p, qc, T{} + inv_rx, inv_rc);
  const T e = bound::terms_error<T>(t, p, q, r);
  lo = a - e;
  hi = a + e;
}

// Bounds on the exact scores of row i against centres c0 .. c0+nb-1 from G's row: lo = a - E and
// hi = a + E into lo[0, nb) and hi[0, nb), the smallest lo of each chunk into chunk_min; returns
// the smallest hi. Eight centres at a time (each lane computes what the scalar tail computes).
template <Metric M, bool kQ>
[[gnu::always_inline]] inline double bounds_row(const Search& s, const screen::Level& level, Eigen::Index i, const bound::RowTerms& t,
                                                double row_p, const double* q_c, const float* g, Eigen::Index c0, Eigen::Index nb,
                                                double* lo, double* hi, double* chunk_min) {
  const double inv_rx = M == Metric::kCosine ? 1.0 / s.p.row_norms[static_cast<std::size_t>(i)] : 0.0;
  double hmin = kInf;
  for (Eigen::Index b0 = 0; b0 < nb; b0 += kChunk) {
    const Eigen::Index b1 = std::min(nb, b0 + kChunk);
    Lanes lm = Lanes{} + kInf, hm = lm;
    Eigen::Index j = b0;
    for (; j + 8 <= b1; j += 8) {
      FloatLanes gf;
      std::memcpy(&gf, g + j, sizeof gf);
      Lanes l, h;
      bounds_of<M, kQ>(s, level, t, row_p, q_c, inv_rx, __builtin_convertvector(gf, Lanes), c0 + j, l, h);
      std::memcpy(lo + j, &l, sizeof l);
      std::memcpy(hi + j, &h, sizeof h);
      lm = l < lm ? l : lm;
      hm = h < hm ? h : hm;
    }
    double lmin = lanes_min(lm);
    hmin = std::min(hmin, lanes_min(hm));
    for (; j < b1; ++j) {
      bounds_of<M, kQ>(s, level, t, row_p, q_c, inv_rx, static_cast<double>(g[j]), c0 + j, lo[j], hi[j]);
      lmin = std::min(lmin, lo[j]);
      hmin = std::min(hmin, hi[j]);
    }
    chunk_min[b0 / kChunk] = lmin;
  }
  return hmin;
}

// bounds_row for the metric and for whether the row's centres have offsets.
template <Metric M>
[[gnu::always_inline]] inline double bounds_row_of(const Search& s, const Workspace& ws, Eigen::Index r, Eigen::Index r0,
                                                   const float* g, Eigen::Index c0, Eigen::Index nb, double* lo, double* hi,
                                                   double* chunk_min) {
  const auto k = static_cast<std::size_t>(r);
  const double* q_c = ws.centre_offset[k];
  if (q_c) return bounds_row<M, true>(s, *ws.level, r0 + r, ws.terms[k], ws.row_offset[k], q_c, g, c0, nb, lo, hi, chunk_min);
  return bounds_row<M, false>(s, *ws.level, r0 + r, ws.terms[k], ws.row_offset[k], nullptr, g, c0, nb, lo, hi, chunk_min);
}

// Folds one block into the row's state: R lies in [lo, hi] for each of its centres, hmin is the
// smallest hi, chunk_min the smallest lo of each chunk.
[[gnu::always_inline]] inline void fold_block(const Search& s, RowState& st, Eigen::Index c0, Eigen::Index nb, const double* lo,
                                              const double* hi, double hmin, const double* chunk_min) {
  const std::size_t k = s.k;
  if (k == 1) {
    st.threshold = std::min(st.threshold, hmin);
  } else if (hmin < st.threshold) {
    for (Eigen::Index j = 0; j < nb; ++j) {
      if (hi[j] < st.threshold) st.offer_upper(hi[j], k);
    }
  }
  for (Eigen::Index b = 0; b < nb; b += kChunk) {
    if (chunk_min[b / kChunk] > st.threshold) continue;  // the usual case once a row's best is known
    for (Eigen::Index j = b; j < std::min(nb, b + kChunk); ++j) {
      if (lo[j] <= st.threshold) st.cands.push_back({lo[j], static_cast<std::int32_t>(c0 + j)});
    }
  }
  if (st.cands.size() > st.prune_at) {
    st.prune();
    st.prune_at = std::max(st.prune_at, 2 * st.cands.size());
  }
}

// search_mutual's other direction: row `row`'s approximate scores against centres c0 .. c0+nb-1,
// each within e of the exact score, fold into the centres' states as fold_block folds a row's:
// the thresholds eight lanes at a time, and the rare row within reach of a threshold is listed.
[[gnu::always_inline]] inline void fold_columns(Columns& cols, Eigen::Index c0, Eigen::Index nb, const double* lo, const double* hi,
                                                std::int32_t row) {
  double* t = cols.threshold.data() + c0;
  Eigen::Index j = 0;
  for (; j + 8 <= nb; j += 8) {
    Lanes l, h, th;
    std::memcpy(&l, lo + j, sizeof l);
    std::memcpy(&h, hi + j, sizeof h);
    std::memcpy(&th, t + j, sizeof th);
    th = h < th ? h : th;
    std::memcpy(t + j, &th, sizeof th);
    const auto near = l <= th;  // lanes of -1 where the row may beat the threshold
    bool any = false;
    for (int q = 0; q < 8; ++q) any |= near[q] != 0;
    if (!any) continue;
    for (int q = 0; q < 8; ++q)
      if (near[q]) cols.add(static_cast<std::size_t>(c0 + j + q), l[q], row);
  }
  for (; j < nb; ++j) {
    t[j] = std::min(t[j], hi[j]);
    if (lo[j] <= t[j]) cols.add(static_cast<std::size_t>(c0 + j), lo[j], row);
  }
}

// G = X_b C_b^T for rows [r0, r0 + mb) and centres [c0, c0 + nb) into ws.g, row-major with
// leading dimension ld (a narrow screen pads its blocks to multiples of 32).
void block_products(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index c0, Eigen::Index nb, Eigen::Index ld,
                    Workspace& ws) {
  const Eigen::Index d = s.x.cols();
  if (ws.narrow) {
    ws.narrow->gemm(ws.rounded, screen::padded(mb), c0, ld, ws.g.data());
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
void fold_rows(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index c0, Eigen::Index nb, Eigen::Index ld, Workspace& ws) {
  double* lo = ws.lo.data();
  double* hi = ws.hi.data();
  for (Eigen::Index r = 0; r < mb; ++r) {
    const float* g = ws.g.data() + r * ld;
    double* chunk_min = ws.chunk_min.data();
    double hmin = kInf;
    switch (s.metric) {
      case Metric::kL2: hmin = bounds_row_of<Metric::kL2>(s, ws, r, r0, g, c0, nb, lo, hi, chunk_min); break;
      case Metric::kInnerProduct: hmin = bounds_row_of<Metric::kInnerProduct>(s, ws, r, r0, g, c0, nb, lo, hi, chunk_min); break;
      case Metric::kCosine: hmin = bounds_row_of<Metric::kCosine>(s, ws, r, r0, g, c0, nb, lo, hi, chunk_min); break;
    }
    fold_block(s, ws.rows[r], c0, nb, lo, hi, hmin, chunk_min);
    if (ws.columns) fold_columns(*ws.columns, c0, nb, lo, hi, static_cast<std::int32_t>(r0 + r));
  }
}

// Each row's bound and offsets for this block's screen (row_offset: P; centre_offset: Q, where the
// centres have one for this row). A narrow screen's come from its rounding of the rows (a row
// rounded as x - m reads the centres' shifted offsets; one rounded as itself, for L2, |c|^2):
// compute/impl/search_bound.hpp, "Shifted screens".
void row_bounds(const Search& s, Eigen::Index r0, Eigen::Index mb, Workspace& ws) {
  const auto n = static_cast<std::size_t>(mb);
  const bool l2 = s.metric == Metric::kL2;
  ws.terms.resize(n);
  ws.row_offset.resize(n);
  ws.centre_offset.assign(n, l2 ? s.centre_sq.data() : nullptr);
  if (ws.narrow) ws.narrow->round_rows(s.x, r0, mb, ws.rounded);
  for (std::size_t r = 0; r < n; ++r) {
    const double rx = s.p.row_norms[static_cast<std::size_t>(r0) + r];
    if (!ws.narrow) {
      ws.terms[r] = bound::row_terms(s.bound, s.metric, rx);
      ws.row_offset[r] = l2 ? rx * rx : 0.0;
      continue;
    }
    const screen::RoundedRows& rounded = ws.rounded;
    ws.terms[r] = bound::shifted_row_terms(ws.level->shifted, s.metric, rounded.errors[r], rounded.residuals[r], rx);
    ws.row_offset[r] = bound::row_offset(s.metric, rx * rx, rounded.shift_dots[r]);
    if (rounded.shifted[r]) ws.centre_offset[r] = ws.level->offset.data();
  }
}

void process_rows(const Search& s, Eigen::Index r0, Eigen::Index mb, Eigen::Index centre_block, Workspace& ws) {
  const Eigen::Index n = s.centres.rows();
  const int level = s.cascade ? s.cascade->index() : 0;
  ws.level = s.cascade ? &s.cascade->level(level) : nullptr;
  ws.narrow = ws.level ? ws.level->narrow.get() : nullptr;
  ws.candidates = ws.rescored = 0;
  if (ws.rows.size() < static_cast<std::size_t>(mb)) ws.rows.resize(static_cast<std::size_t>(mb));
  for (Eigen::Index r = 0; r < mb; ++r) ws.rows[r].reset(s.k);
  if (!s.exact_only) {
    const auto pad = [&](Eigen::Index v) { return ws.narrow ? screen::padded(v) : v; };
    const Eigen::Index nbmax = std::min(centre_block, n);
    ws.g.resize(static_cast<std::size_t>(pad(mb) * pad(nbmax)));
    ws.lo.resize(static_cast<std::size_t>(nbmax));
    ws.hi.resize(static_cast<std::size_t>(nbmax));
    ws.chunk_min.resize(static_cast<std::size_t>(nbmax / kChunk + 1));
    row_bounds(s, r0, mb, ws);
    for (Eigen::Index c0 = 0; c0 < n; c0 += centre_block) {
      const Eigen::Index nb = std::min(centre_block, n - c0), ld = pad(nb);
      block_products(s, r0, mb, c0, nb, ld, ws);
      fold_rows(s, r0, mb, c0, nb, ld, ws);
    }
  }
  for (Eigen::Index r = 0; r < mb; ++r) finish_row(s, r0 + r, ws.rows[r], ws);
  ws.batch.finish(s.metric, s.centres, s.p.centre_norms, s.k);
  if (s.stats) {
    const int at = s.exact_only ? -1 : ws.level->stats_level;
    (at < 0 ? s.stats->exact_rows : s.stats->rows[at]).fetch_add(static_cast<std::uint64_t>(mb), std::memory_order_relaxed);
    if (at >= 0) s.stats->kept[at].fetch_add(ws.candidates, std::memory_order_relaxed);
    s.stats->rescored.fetch_add(ws.rescored, std::memory_order_relaxed);
  }
  if (s.cascade && double(ws.candidates) > ws.level->limit * double(mb)) s.cascade->step_down(level);
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

// The speedups measured on this CPU (AutoScreen::speedups), as the cascade reads them.
screen::Speedups measured_speedups(const AutoScreen& choice) {
  screen::Speedups out;
  for (const AutoScreen::Speedup& s : choice.speedups) (s.screen == BlasScreen::kInt8 ? out.int8 : out.bf16) = s.times;
  return out;
}

// The narrow screens of a search on `choice`, fastest first: int8, then bf16 where an engine runs
// (the emulations cascade to each other), each only where it can take the search's norms and
// dimension (screen::fits; zero vectors are no obstacle: their products are 0). fp32 follows. A
// later step measured no faster than sgemm is left out: the cascade goes to fp32 instead.
std::vector<screen::Engine> cascade_engines(BlasScreen choice, Eigen::Index d, const exact::Prepared& p,
                                            const screen::Speedups& speedups) {
  std::vector<BlasScreen> screens;
  switch (choice) {
    case BlasScreen::kInt8: screens = {BlasScreen::kInt8, BlasScreen::kBf16}; break;
    case BlasScreen::kInt8Emulated: screens = {BlasScreen::kInt8Emulated, BlasScreen::kBf16Emulated}; break;
    case BlasScreen::kBf16:
    case BlasScreen::kBf16Emulated: screens = {choice}; break;
    case BlasScreen::kAuto:
    case BlasScreen::kFp32: break;
  }
  double min_norm = kInf, max_norm = 0.0;
  for (const auto* norms : {&p.row_norms, &p.centre_norms}) {
    for (const double v : *norms) {
      if (v > 0.0) min_norm = std::min(min_norm, v);
      max_norm = std::max(max_norm, v);
    }
  }
  std::vector<screen::Engine> engines;
  for (const BlasScreen screen : screens) {
    const std::optional<screen::Engine> engine = screen_engine(screen);
    if (!engine || !screen::fits(*engine, d, min_norm == kInf ? 1.0 : min_norm, max_norm)) continue;
    const double times = speedups.of(*engine);
    if (!engines.empty() && times > 0.0 && times <= 1.0) continue;
    engines.push_back(*engine);
  }
  return engines;
}

// search_mutual's other direction: each centre's exact answer from the candidate rows of every
// worker (every row when exact_only), screened again in float as a row's are.
void finish_centres(const Search& s, const std::vector<Columns>& columns, int threads, std::span<std::int32_t> centre_nearest,
                    std::span<double> centre_score) {
  const auto rows = static_cast<std::size_t>(s.x.rows()), nc = static_cast<std::size_t>(s.centres.rows());
  std::vector<double> row_sq, row_inv_norms;
  norm_terms(s.metric, s.p.row_norms, row_sq, row_inv_norms);
  const Side row_side{s.x, s.p.row_norms, row_sq, row_inv_norms};
  run_chunks(chunk_count(threads, nc, 64.0 * double(s.x.cols())), nc, [&](int, std::size_t b, std::size_t e) {
    Workspace ws;
    for (std::size_t c = b; c < e; ++c) {
      const float* centre = s.centres.row(static_cast<Eigen::Index>(c)).data();
      ws.ids.clear();
      if (s.exact_only) {
        for (std::size_t i = 0; i < rows; ++i) ws.ids.push_back(static_cast<std::int32_t>(i));
      } else {
        double threshold = kInf;
        for (const Columns& cols : columns) threshold = std::min(threshold, cols.threshold[c]);
        for (const Columns& cols : columns)
          for (const Candidate& cand : cols.cands[c])
            if (cand.lo <= threshold) ws.ids.push_back(cand.index);
        if (s.narrow && ws.ids.size() > 2) rescreen_in_float(s, centre, s.p.centre_norms[c], row_side, ws);
      }
      ws.batch.add_row(centre, s.p.centre_norms[c], ws.ids, &centre_nearest[c], &centre_score[c]);
      if (ws.batch.pairs() >= kBatchPairs) ws.batch.finish(s.metric, s.x, s.p.row_norms, 1);
    }
    ws.batch.finish(s.metric, s.x, s.p.row_norms, 1);
  });
}

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
  const screen::Speedups speedups = measured_speedups(auto_);
  const std::vector<screen::Engine> engines =
      exact_only ? std::vector<screen::Engine>() : cascade_engines(screen_for(n), x.cols(), p, speedups);
  const Eigen::Index centre_block =
      engines.empty() ? std::min<Eigen::Index>(centre_block_, n) : std::min(screen::padded(centre_block_), screen::padded(n));
  Search s{x, centres, metric, kk, p, {}, {}, bound::make_score_bound(metric, x.cols()), exact_only, nearest, score};
  const auto nc = static_cast<std::size_t>(n);
  norm_terms(metric, p.centre_norms, s.centre_sq, s.centre_inv_norms);
  std::optional<screen::Cascade> cascade;
  if (!exact_only) {
    cascade.emplace(screen::CascadeInputs{centres, metric, p.centre_norms, s.centre_sq, s.centre_inv_norms, max_rx, threads_,
                                          screen_shift_, cascade_limit_, speedups},
                    engines);
    s.cascade = &*cascade;
  }
  s.narrow = !engines.empty();
  s.stats = stats_;

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
  if (mutual) finish_centres(s, columns, threads_, centre_nearest, centre_score);
}

}  // namespace secpe
