// Searches on the device, a batch at a time: every task is validated and its norms computed on
// the host (the errors of the tasks run one by one, in order); the inputs the device lacks (the
// centres, and rows not kept there) go up in one copy; per task and direction, tile by tile,
// cuBLAS SGEMM, the candidate selection and the exact rescoring run on one stream; the k best of
// every row come back in one copy, after one wait. Rows whose candidate list overflowed are
// rescored on the host, and the built-in check compares sampled rows with the host's answer.
// Tasks the device cannot take (exact-only inputs, k beyond kMaxDeviceK, no room) take the
// streamed path.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>

#include "compute/cuda/cuda_kernel_impl.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe {

// One task of a batch, validated, with its norms.
struct PlannedTask {
  const SearchTask* task = nullptr;
  const DeviceKeptRows* kept = nullptr;  // its rows, resident on the device (else they go up with the batch)
  const DeviceCentres* copy = nullptr;   // its centres, on the device already (else they go up with the batch)
  std::vector<double> own_x_norms;       // the rows' norms, when not kept
  std::span<const double> x_norms;
  std::vector<double> own_c_norms;       // the centres' norms, when not on the device already
  std::span<const double> c_norms;
  bool on_device = false;
};

namespace {

constexpr std::size_t kMargin = std::size_t{256} << 20;   // device memory left free by a batch
// Each piece of the upload (a block, or kPiece bytes of a large one) goes up as soon as it is
// packed, while the next one is packed.
constexpr std::size_t kPiece = std::size_t{16} << 20;

bool mutual(const SearchTask& t) { return !t.centre_nearest.empty(); }

// The task's checks in the order its search would make them, and its norms.
PlannedTask validate(const SearchTask& t, Metric metric, int threads, const DeviceKeptRows* kept, const DeviceCentres* copy) {
  PlannedTask p;
  p.task = &t;
  const MatrixF& x = t.x->rows();
  const MatrixF& c = *t.centres;
  if (x.rows() == 0) return p;  // no search, no error (mutual ones too)
  if (mutual(t) && t.k != 1) throw std::logic_error("search_batch: a mutual search returns one nearest centre per row");
  exact::check_shapes(x, c, static_cast<std::size_t>(std::max(t.k, 0)), t.nearest.size(), t.score.size());
  if (mutual(t)) exact::check_shapes(c, x, 1, t.centre_nearest.size(), t.centre_score.size());
  if (kept) {
    p.x_norms = kept->norms;
  } else {
    p.own_x_norms = exact::norms(x, threads);
    p.x_norms = p.own_x_norms;
  }
  if (copy) {
    p.c_norms = copy->norms;
  } else {
    p.own_c_norms = exact::norms(c, threads);
    p.c_norms = p.own_c_norms;
  }
  exact::check_norms(p.x_norms, p.c_norms, metric);
  p.kept = kept && kept->resident ? kept : nullptr;
  p.copy = copy;
  return p;
}

// Whether the device rescoring can take the task (else: the streamed path, which also knows what
// to do with exact-only inputs and says when a shape is too large for the GEMM's int arguments).
bool device_can(const PlannedTask& p, const CudaKernelOptions& options) {
  const SearchTask& t = *p.task;
  const MatrixF& x = t.x->rows();
  const Eigen::Index m = x.rows(), n = t.centres->rows(), d = x.cols();
  if (m == 0 || !options.device_rescoring || d == 0 || t.k > cuda::kMaxDeviceK) return false;
  if (m > std::numeric_limits<std::int32_t>::max() || n > std::numeric_limits<std::int32_t>::max() ||
      d > std::numeric_limits<int>::max() / 2) {
    return false;
  }
  const double rx = *std::max_element(p.x_norms.begin(), p.x_norms.end());
  const double rc = *std::max_element(p.c_norms.begin(), p.c_norms.end());
  return !bound::exact_only(rx, rc, n, t.k) && !(mutual(t) && bound::exact_only(rc, rx, m, 1));
}

// |r|, |r|^2 and 1/|r| (cosine; 0 otherwise) of every row, as the candidate selection reads them.
void write_triple(std::span<const double> norms, Metric metric, double* out) {
  const std::size_t n = norms.size();
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = norms[i];
    out[n + i] = norms[i] * norms[i];
    out[2 * n + i] = metric == Metric::kCosine ? 1.0 / norms[i] : 0.0;
  }
}

// What a search of m rows against n centres needs on the device besides its inputs.
struct Scratch {
  std::size_t g = 0, cand = 0, rows = 0;  // floats of the distance tile, candidates, rows per tile
  void cover(std::size_t m, std::size_t n, std::size_t d, int k, std::size_t tile_bytes) {
    const std::size_t capacity = gpu::candidate_capacity(static_cast<std::size_t>(k));
    const std::size_t mb = gpu::search_tile_rows(tile_bytes, n, d, capacity, m);
    g = std::max(g, mb * n), cand = std::max(cand, mb * capacity), rows = std::max(rows, mb);
  }
  std::size_t bytes() const { return 4 * g + 4 * cand + 4 * rows; }
};

// The upload's blocks of one device task: its centres and their norms, then (when not kept) its
// rows and theirs. `data` non-null: floats copied; else the norms written as triples.
struct Block {
  const float* data;
  std::span<const double> norms;
  std::size_t float_bytes = 0;
  std::size_t bytes() const { return data ? float_bytes : 3 * norms.size() * sizeof(double); }
};

}  // namespace

bool CudaKernelImpl::device_batch(std::span<const SearchTask> tasks, Metric metric) const {
  // Every task validated and its norms computed side by side; the first task's error thrown first.
  std::vector<PlannedTask> planned(tasks.size());
  bool any = false;
  {
    const PhaseClock clock(timed(), DevicePhase::kPlan);
    std::vector<std::exception_ptr> errors(tasks.size());
    const int inner = std::max(1, threads() / static_cast<int>(std::max<std::size_t>(tasks.size(), 1)));  // threads per task
    run_chunks(threads(), tasks.size(), [&](int, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        try {
          const SearchTask& t = tasks[i];
          const auto* copy = dynamic_cast<const DeviceCentres*>(t.centres_copy);
          planned[i] = validate(t, metric, inner, ours(*t.x), copy && copy->owner == this && copy->stands_for(*t.centres) ? copy : nullptr);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    for (PlannedTask& p : planned) any |= (p.on_device = device_can(p, options_));
  }
  if (any) {
    SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
    DrainOnExit drain(context_);
    try {
      std::optional<PhaseClock> clock(std::in_place, timed(), DevicePhase::kStage);
      std::vector<DeviceSearch> searches = stage(planned, metric);
      for (const DeviceSearch& s : searches) enqueue(s, metric);
      clock.reset();
      if (!searches.empty()) {
        auto& b = context_.batch;
        download(b.out.get(), b.dout.get(), b.out_bytes, context_.slot(0).stream);
        context_.timeline.mark(DevicePhase::kDownload);
        wait(context_.slot(0).stream);
        ++traffic_.batches;
      }
      bool agree = true;
      clock.emplace(timed(), DevicePhase::kCollect);
      for (DeviceSearch& s : searches) collect(s, metric);
      clock.emplace(timed(), DevicePhase::kCheck);
      for (const DeviceSearch& s : searches) agree = agree && check(s, metric, !checked_);
      clock.reset();
      checked_ = checked_ || !searches.empty();
      if (!agree) return false;
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {  // a CUDA or cuBLAS failure: the safe path redoes the batch
      context_.drain();
      fail(std::string("a batch of searches on the device failed: ") + e.what());
      return false;
    }
  }
  for (const PlannedTask& p : planned) {
    if (!p.on_device && p.task->x->rows().rows() > 0) stream_task(*p.task, metric);
  }
  return true;
}

std::vector<DeviceSearch> CudaKernelImpl::stage(std::vector<PlannedTask>& planned, Metric metric) const {
  // The blocks of the upload and the scratch, for the tasks on the device.
  std::vector<Block> blocks;
  std::vector<std::size_t> entries;  // results per direction
  Scratch scratch;
  const auto lay_out = [&] {
    blocks.clear(), entries.clear(), scratch = {};
    for (const PlannedTask& p : planned) {
      if (!p.on_device) continue;
      const MatrixF& x = p.task->x->rows();
      const MatrixF& c = *p.task->centres;
      const auto m = static_cast<std::size_t>(x.rows()), n = static_cast<std::size_t>(c.rows()), d = static_cast<std::size_t>(x.cols());
      if (!p.copy) {
        blocks.push_back({c.data(), p.c_norms, n * d * sizeof(float)});
        blocks.push_back({nullptr, p.c_norms});
      }
      if (!p.kept) {
        blocks.push_back({x.data(), p.x_norms, m * d * sizeof(float)});
        blocks.push_back({nullptr, p.x_norms});
      }
      entries.push_back(m * static_cast<std::size_t>(p.task->k));
      scratch.cover(m, n, d, p.task->k, options_.tile_bytes);
      if (mutual(*p.task)) entries.push_back(n), scratch.cover(n, m, d, 1, options_.tile_bytes);
    }
  };
  std::vector<std::size_t> sizes;
  const auto need = [&] {
    sizes.clear();
    for (const Block& b : blocks) sizes.push_back(b.bytes());
    const std::size_t out = 12 * std::accumulate(entries.begin(), entries.end(), std::size_t{0});
    return gpu::pack(sizes, gpu::kPackAlign).total + out + scratch.bytes();
  };
  std::size_t free_bytes = 0, total_bytes = 0;
  SECPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  lay_out();
  if (!gpu::fits_on_device(need(), free_bytes, kMargin)) {  // rows not kept stream instead; then everything
    for (PlannedTask& p : planned) p.on_device = p.on_device && p.kept;
    lay_out();
    if (!gpu::fits_on_device(need(), free_bytes, kMargin)) {
      for (PlannedTask& p : planned) p.on_device = false;
      return {};
    }
  }
  const gpu::Packing packing = gpu::pack(sizes, gpu::kPackAlign);
  auto& b = context_.batch;
  b.in.reserve(packing.total), b.din.reserve(packing.total);
  const std::size_t total_entries = std::accumulate(entries.begin(), entries.end(), std::size_t{0});
  b.out_bytes = 12 * total_entries;
  b.out.reserve(b.out_bytes), b.dout.reserve(b.out_bytes);
  cuda::Slot& slot = context_.slot(0);
  slot.g.reserve(scratch.g), slot.dcand.reserve(scratch.cand), slot.dcount.reserve(scratch.rows);
  context_.timeline.start(slot.stream);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    unsigned char* to = b.in.get() + packing.offsets[i];
    if (!blocks[i].data) {
      write_triple(blocks[i].norms, metric, reinterpret_cast<double*>(to));
      upload(b.din.get() + packing.offsets[i], to, sizes[i], slot.stream);
      continue;
    }
    const auto* from = reinterpret_cast<const unsigned char*>(blocks[i].data);
    for (std::size_t at = 0; at < sizes[i]; at += kPiece) {
      const std::size_t len = std::min(kPiece, sizes[i] - at);
      run_chunks(chunk_count(threads(), len, 0.05), len, [&](int, std::size_t s, std::size_t e) { std::memcpy(to + at + s, from + at + s, e - s); });
      upload(b.din.get() + packing.offsets[i] + at, to + at, len, slot.stream);
    }
  }
  context_.timeline.mark(DevicePhase::kUpload);

  // The searches, with their inputs in the upload and their results in the output.
  const auto rows_at = [&](std::size_t block, const MatrixF& host) {
    const auto n = host.rows();
    const auto* f = reinterpret_cast<const float*>(b.din.get() + packing.offsets[block]);
    const auto* t = reinterpret_cast<const double*>(b.din.get() + packing.offsets[block + 1]);
    return cuda::DeviceRows{f, n, host.cols(), {t, t + n, t + 2 * n}};
  };
  std::vector<DeviceSearch> searches;
  std::size_t block = 0, out = 0;
  auto* d_score = reinterpret_cast<double*>(b.dout.get());
  auto* d_nearest = reinterpret_cast<std::int32_t*>(b.dout.get() + 8 * total_entries);
  const auto* h_score = reinterpret_cast<const double*>(b.out.get());
  const auto* h_nearest = reinterpret_cast<const std::int32_t*>(b.out.get() + 8 * total_entries);
  const auto add = [&](cuda::DeviceRows x, cuda::DeviceRows c, const MatrixF* xh, const MatrixF* ch, std::span<const double> xn,
                       std::span<const double> cn, int k, std::span<std::int32_t> nearest, std::span<double> score) {
    searches.push_back({x, c, xh, ch, xn, cn, k, nearest, score, out, d_nearest + out, d_score + out, h_nearest + out, h_score + out});
    out += static_cast<std::size_t>(x.rows) * static_cast<std::size_t>(k);
  };
  for (const PlannedTask& p : planned) {
    if (!p.on_device) continue;
    const SearchTask& t = *p.task;
    const cuda::DeviceRows c = p.copy ? p.copy->view() : rows_at(block, *t.centres);
    block += p.copy ? 0 : 2;
    const cuda::DeviceRows x = p.kept ? p.kept->view() : rows_at(block, t.x->rows());
    block += p.kept ? 0 : 2;
    add(x, c, &t.x->rows(), t.centres, p.x_norms, p.c_norms, t.k, t.nearest, t.score);
    if (mutual(t)) add(c, x, t.centres, &t.x->rows(), p.c_norms, p.x_norms, 1, t.centre_nearest, t.centre_score);
  }
  return searches;
}

void CudaKernelImpl::enqueue(const DeviceSearch& s, Metric metric) const {
  cuda::Slot& slot = context_.slot(0);
  const std::int64_t m = s.x.rows, n = s.c.rows, d = s.x.d;
  const auto k = static_cast<std::size_t>(s.k);
  const std::size_t capacity = gpu::candidate_capacity(k);
  const auto mb = static_cast<std::int64_t>(gpu::search_tile_rows(options_.tile_bytes, static_cast<std::size_t>(n),
                                                                   static_cast<std::size_t>(d), capacity, static_cast<std::size_t>(m)));
  const bound::ScoreBound score_bound = screen_bound(metric, d);
  // The centres' largest norm and inverse norm: one error bound for a whole row (k = 1).
  const double max_norm = *std::max_element(s.c_norms.begin(), s.c_norms.end());
  const double max_inv_norm = metric == Metric::kCosine ? 1.0 / *std::min_element(s.c_norms.begin(), s.c_norms.end()) : 0.0;
  const float one = 1.0f, zero = 0.0f;
  for (std::int64_t r0 = 0; r0 < m; r0 += mb) {
    const std::int64_t rows = std::min(mb, m - r0);
    // Column-major view: G^T (n x rows, ld n) = C (d x n)^T X^T (d x rows), i.e. G row-major.
    SECPE_CUBLAS_CHECK(cublasSgemm(slot.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                                   static_cast<int>(d), &one, s.c.data, static_cast<int>(d), s.x.data + r0 * d,
                                   static_cast<int>(d), &zero, slot.g.get(), static_cast<int>(n)));
    context_.timeline.mark(DevicePhase::kGemm);
    if (s.k == 1) {
      cuda::launch_select_one(slot.g.get(), rows, n, s.x.norms.norm + r0, s.c.norms, max_norm, max_inv_norm, metric, score_bound,
                              static_cast<int>(capacity), slot.dcand.get(), slot.dcount.get(), slot.stream);
    } else {
      cuda::launch_select_candidates(slot.g.get(), rows, n, s.x.norms.norm + r0, s.c.norms, metric, score_bound, s.k,
                                     static_cast<int>(capacity), slot.dcand.get(), slot.dcount.get(), slot.stream);
    }
    SECPE_CUDA_CHECK(cudaGetLastError());
    context_.timeline.mark(DevicePhase::kSelect);
    cuda::launch_rescore(s.x, r0, rows, s.c, metric, s.k, static_cast<int>(capacity), slot.dcand.get(), slot.dcount.get(),
                         s.d_nearest + r0 * s.k, s.d_score + r0 * s.k, slot.stream);
    SECPE_CUDA_CHECK(cudaGetLastError());
    context_.timeline.mark(DevicePhase::kRescore);
  }
}

void CudaKernelImpl::collect(DeviceSearch& s, Metric metric) const {
  const auto m = static_cast<std::size_t>(s.x.rows), k = static_cast<std::size_t>(s.k);
  std::copy_n(s.h_nearest, m * k, s.nearest.begin());
  std::copy_n(s.h_score, m * k, s.score.begin());
  if (options_.corrupt_device_results) s.score[(m - 1) * k] = std::nextafter(s.score[(m - 1) * k], 1e300);
  std::vector<std::size_t> overflowed;
  for (std::size_t i = 0; i < m; ++i) {
    if (s.nearest[i * k] < 0) overflowed.push_back(i);
  }
  if (overflowed.empty()) return;
  traffic_.host_rescored_rows += overflowed.size();
  std::vector<std::int32_t> all(static_cast<std::size_t>(s.c.rows));
  std::iota(all.begin(), all.end(), 0);
  run_chunks(chunk_count(threads(), overflowed.size(), double(all.size()) * double(s.x.d)), overflowed.size(),
             [&](int, std::size_t b, std::size_t e) {
               std::vector<std::pair<double, std::int32_t>> scratch;
               for (std::size_t q = b; q < e; ++q) {
                 const std::size_t i = overflowed[q];
                 exact::best_k_of(metric, s.x_host->row(static_cast<Eigen::Index>(i)).data(), s.x_norms[i], *s.c_host, s.c_norms, all,
                                  k, scratch, s.nearest.data() + i * k, s.score.data() + i * k);
               }
             });
}

// Full: the first, middle and last rows against the host's best of every centre. Otherwise the
// last row's results rescored on the host, one pair at a time.
bool CudaKernelImpl::check(const DeviceSearch& s, Metric metric, bool full) const {
  const auto m = static_cast<std::size_t>(s.x.rows), k = static_cast<std::size_t>(s.k), n = static_cast<std::size_t>(s.c.rows);
  std::vector<std::size_t> rows{m - 1};
  if (full) rows = {0, m / 2, m - 1};
  std::vector<std::int32_t> ids(n), best(k);
  std::vector<double> best_score(k);
  std::vector<std::pair<double, std::int32_t>> scratch;
  std::iota(ids.begin(), ids.end(), 0);
  for (const std::size_t i : rows) {
    const float* xi = s.x_host->row(static_cast<Eigen::Index>(i)).data();
    bool same = true;
    if (full) {
      exact::best_k_of(metric, xi, s.x_norms[i], *s.c_host, s.c_norms, ids, k, scratch, best.data(), best_score.data());
      same = std::equal(best.begin(), best.end(), s.nearest.begin() + static_cast<std::ptrdiff_t>(i * k)) &&
             std::memcmp(best_score.data(), s.score.data() + i * k, k * sizeof(double)) == 0;
    } else {
      for (std::size_t j = 0; j < k && same; ++j) {
        const std::int32_t c = s.nearest[i * k + j];
        if (c < 0 || static_cast<std::size_t>(c) >= n) {
          same = false;
          break;
        }
        const double exact = exact::pair_score(metric, xi, s.c_host->row(c).data(), s.x_host->cols(), s.x_norms[i],
                                               s.c_norms[static_cast<std::size_t>(c)]);
        same = std::memcmp(&exact, &s.score[i * k + j], sizeof exact) == 0;
      }
    }
    if (!same) {
      fail("the device's result for row " + std::to_string(i) + " of a search of " + std::to_string(m) + " rows against " +
           std::to_string(n) + " centres differs from the host's exact " + (full ? "search" : "rescoring"));
      return false;
    }
  }
  return true;
}

}  // namespace secpe
