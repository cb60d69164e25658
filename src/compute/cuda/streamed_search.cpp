// The CUDA kernel's safe path (the one first verified on GPUs): rows streamed from the host in
// tiles through cuBLAS SGEMM and the candidate selection, two tiles in flight on two streams, each
// tile's candidates rescored exactly on the host threads (exact::best_k_of) while the device works
// on the next. Rows too large to stay on the device, k beyond the device rescoring's reach, and
// every search after a failed built-in check take this path.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "compute/cuda/cuda_kernel_impl.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe {
namespace {

// Rescores a finished tile's rows on the host threads: each row's candidates, or every centre
// when its list overflowed (a tie among many; found < k never happens: the k best bounds are in).
void rescore_tile_on_host(const cuda::Slot& s, const MatrixF& x, const MatrixF& centres, const exact::Prepared& p, Metric metric,
                          std::size_t k, std::size_t capacity, int threads, std::span<std::int32_t> nearest,
                          std::span<double> score) {
  const auto rows = static_cast<std::size_t>(s.rows), nc = static_cast<std::size_t>(centres.rows());
  run_chunks(chunk_count(threads, rows, double(capacity) * double(x.cols())), rows, [&](int, std::size_t b, std::size_t e) {
    std::vector<std::int32_t> all;
    std::vector<std::pair<double, std::int32_t>> scratch;
    for (std::size_t r = b; r < e; ++r) {
      const auto found = static_cast<std::size_t>(s.count.get()[r]);
      std::span<const std::int32_t> ids = all;
      if (found <= capacity && found >= k) {
        ids = std::span<const std::int32_t>(s.cand.get() + r * capacity, found);
      } else {
        if (all.empty()) {
          all.resize(nc);
          std::iota(all.begin(), all.end(), 0);
        }
        ids = all;
      }
      const std::size_t i = static_cast<std::size_t>(s.r0) + r;
      exact::best_k_of(metric, x.row(static_cast<Eigen::Index>(i)).data(), p.row_norms[i], centres, p.centre_norms, ids, k, scratch,
                       nearest.data() + i * k, score.data() + i * k);
    }
  });
}

}  // namespace

void CudaKernelImpl::stream_search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                                     std::span<std::int32_t> nearest, std::span<double> score) const {
  const Eigen::Index m = x.rows();
  if (m == 0) return;
  const auto kk = static_cast<std::size_t>(std::max(k, 0));
  const exact::Prepared p = exact::prepare(x, centres, metric, kk, nearest.size(), score.size(), threads());
  const Eigen::Index n = centres.rows(), d = x.cols();
  if (n > std::numeric_limits<std::int32_t>::max() || d > std::numeric_limits<int>::max() / 2) {
    throw InputError("nearest-centre search: too many centres or dimensions for the cuda kernel");
  }
  const double max_rx = *std::max_element(p.row_norms.begin(), p.row_norms.end());
  const double max_rc = *std::max_element(p.centre_norms.begin(), p.centre_norms.end());
  if (d == 0 || bound::exact_only(max_rx, max_rc, n, static_cast<long long>(kk))) {
    host_.search_k(x, centres, metric, k, nearest, score);  // every pair exact: no use for a GEMM
    return;
  }

  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
  DrainOnExit drain(context_);
  const auto nc = static_cast<std::size_t>(n), dim = static_cast<std::size_t>(d), rows_total = static_cast<std::size_t>(m);
  // The centres and their norms, once per search (norms as exact::prepare computed them).
  std::vector<double> norms(3 * nc);
  for (std::size_t c = 0; c < nc; ++c) {
    norms[c] = p.centre_norms[c];
    norms[nc + c] = p.centre_norms[c] * p.centre_norms[c];
    norms[2 * nc + c] = metric == Metric::kCosine ? 1.0 / p.centre_norms[c] : 0.0;
  }
  cudaStream_t first = context_.slot(0).stream;
  context_.centres.reserve(nc * dim);
  context_.centre_norms.reserve(3 * nc);
  upload(context_.centres.get(), centres.data(), nc * dim, first);
  upload(context_.centre_norms.get(), norms.data(), 3 * nc, first);
  wait(first);  // both slots read them; the host copy may go
  const double* dn = context_.centre_norms.get();
  const cuda::Norms centre_norms{.norm = dn, .sq = dn + nc, .inv_norm = dn + 2 * nc};

  const bound::ScoreBound score_bound = screen_bound(metric, d);
  const std::size_t capacity = gpu::candidate_capacity(kk);
  const std::size_t mb = gpu::search_tile_rows(options_.tile_bytes, nc, dim, capacity, rows_total);
  for (std::size_t i = 0; i < 2; ++i) {
    cuda::Slot& s = context_.slot(i);
    s.x.reserve(mb * dim), s.dx.reserve(mb * dim);
    s.norms.reserve(mb), s.dnorms.reserve(mb);
    s.cand.reserve(mb * capacity), s.dcand.reserve(mb * capacity);
    s.count.reserve(mb), s.dcount.reserve(mb);
    s.g.reserve(mb * nc);
  }
  const auto finish = [&](cuda::Slot& s) {
    wait(s.stream);
    s.pending = false;
    rescore_tile_on_host(s, x, centres, p, metric, kk, capacity, threads(), nearest, score);
    traffic_.host_rescored_rows += static_cast<std::uint64_t>(s.rows);
  };

  const float one = 1.0f, zero = 0.0f;
  const std::size_t tiles = (rows_total + mb - 1) / mb;
  for (std::size_t t = 0; t < tiles; ++t) {
    cuda::Slot& s = context_.slot(t);
    if (s.pending) finish(s);  // tile t - 2, while the device works on tile t - 1
    const std::size_t r0 = t * mb, rows = std::min(mb, rows_total - r0);
    std::memcpy(s.x.get(), x.row(static_cast<Eigen::Index>(r0)).data(), rows * dim * sizeof(float));
    std::copy_n(p.row_norms.begin() + static_cast<std::ptrdiff_t>(r0), rows, s.norms.get());
    upload(s.dx.get(), s.x.get(), rows * dim, s.stream);
    upload(s.dnorms.get(), s.norms.get(), rows, s.stream);
    // Column-major view: G^T (n x rows, ld n) = C (d x n)^T X^T (d x rows), i.e. G row-major.
    SECPE_CUBLAS_CHECK(cublasSgemm(s.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                                   static_cast<int>(d), &one, context_.centres.get(), static_cast<int>(d), s.dx.get(),
                                   static_cast<int>(d), &zero, s.g.get(), static_cast<int>(n)));
    cuda::launch_select_candidates(s.g.get(), static_cast<std::int64_t>(rows), n, s.dnorms.get(), centre_norms, metric,
                                   score_bound, static_cast<int>(kk), static_cast<int>(capacity), s.dcand.get(),
                                   s.dcount.get(), s.stream);
    SECPE_CUDA_CHECK(cudaGetLastError());
    download(s.count.get(), s.dcount.get(), rows, s.stream);
    download(s.cand.get(), s.dcand.get(), rows * capacity, s.stream);
    s.pending = true, s.r0 = static_cast<std::int64_t>(r0), s.rows = static_cast<std::int64_t>(rows);
  }
  for (std::size_t t = tiles; t < tiles + 2; ++t) {
    if (context_.slot(t).pending) finish(context_.slot(t));
  }
}

void CudaKernelImpl::stream_task(const SearchTask& task, Metric metric) const {
  const MatrixF& x = task.x->rows();
  if (task.centre_nearest.empty()) return stream_search_k(x, *task.centres, metric, task.k, task.nearest, task.score);
  if (x.rows() == 0) return;  // search_mutual searches nothing then
  stream_search_k(x, *task.centres, metric, 1, task.nearest, task.score);
  stream_search_k(*task.centres, x, metric, 1, task.centre_nearest, task.centre_score);
}

}  // namespace secpe
