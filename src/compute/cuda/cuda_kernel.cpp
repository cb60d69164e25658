// The CUDA kernel, host side: tiles of rows through cuBLAS SGEMM and the candidate selection
// (kernels.cu), two tiles in flight on two streams, each tile's candidates rescored exactly on
// the host (exact::best_k_of) while the device works on the next; per-centre sums by segments.
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cuda/device_memory.hpp"
#include "compute/cuda/kernels.hpp"
#include "compute/cuda_backend.hpp"
#include "compute/exact_score.hpp"
#include "compute/gpu_plan.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe {
namespace {

// Waits for the device on every way out of a call, so that no transfer still targets a buffer
// after an exception (the next call may reuse or free it).
class DrainOnExit {
 public:
  explicit DrainOnExit(cuda::Context& context) : context_(context) {}
  DrainOnExit(const DrainOnExit&) = delete;
  DrainOnExit& operator=(const DrainOnExit&) = delete;
  ~DrainOnExit() { context_.drain(); }

 private:
  cuda::Context& context_;
};

class CudaKernelImpl final : public CudaKernel {
 public:
  CudaKernelImpl(const CudaKernelOptions& options, int device)
      : options_(options), host_(BlasKernelOptions{.threads = options.threads}), context_(device, options.tf32) {}

  std::string name() const override { return "cuda"; }
  int threads() const override { return host_.threads(); }
  std::uint64_t bytes_moved() const override { return bytes_moved_; }
  std::string device_description() const override {
    cudaDeviceProp prop{};
    SECPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, context_.device()));
    return std::string(prop.name) + " (device " + std::to_string(context_.device()) + ")";
  }

  void search(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
              std::span<double> score) const override {
    search_k(x, centres, metric, 1, nearest, score);
  }
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                std::span<double> score) const override;
  void add_to_centres(const MatrixF& x, std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                      std::span<std::int64_t> sums, std::span<std::int64_t> counts) const override;

 private:
  template <class T>
  void upload(T* device, const T* host, std::size_t n, cudaStream_t stream) const {
    SECPE_CUDA_CHECK(cudaMemcpyAsync(device, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    bytes_moved_ += n * sizeof(T);
  }
  template <class T>
  void download(T* host, const T* device, std::size_t n, cudaStream_t stream) const {
    SECPE_CUDA_CHECK(cudaMemcpyAsync(host, device, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    bytes_moved_ += n * sizeof(T);
  }

  CudaKernelOptions options_;
  BlasKernel host_;  // searches the GEMM cannot help with (exact_only, d = 0)
  mutable std::mutex mutex_;  // one call at a time uses the context
  mutable cuda::Context context_;
  mutable std::uint64_t bytes_moved_ = 0;
};

void CudaKernelImpl::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                              std::span<std::int32_t> nearest, std::span<double> score) const {
  const Eigen::Index m = x.rows();
  if (m == 0) return;
  const auto kk = static_cast<std::size_t>(std::max(k, 0));
  const exact::Prepared p = exact::prepare(x, centres, metric, kk, nearest.size(), score.size());
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

  const std::lock_guard<std::mutex> lock(mutex_);
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
  SECPE_CUDA_CHECK(cudaStreamSynchronize(first));  // both slots read them; the host copy may go
  const double* dn = context_.centre_norms.get();
  const cuda::CentreNorms centre_norms{.norm = dn, .sq = dn + nc, .inv_norm = dn + 2 * nc};

  const bound::ScoreBound score_bound =
      bound::make_score_bound(metric, d, options_.tf32 ? bound::kTf32InputUnit : 0.0);
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

  // Rescores a finished tile's rows on the host threads.
  const auto finish = [&](cuda::Slot& s) {
    SECPE_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    s.pending = false;
    const auto rows = static_cast<std::size_t>(s.rows);
    run_chunks(chunk_count(host_.threads(), rows, double(capacity) * double(d)), rows, [&](int, std::size_t b, std::size_t e) {
      std::vector<std::int32_t> all;
      std::vector<std::pair<double, std::int32_t>> scratch;
      for (std::size_t r = b; r < e; ++r) {
        const auto found = static_cast<std::size_t>(s.count.get()[r]);
        std::span<const std::int32_t> ids = all;
        if (found <= capacity && found >= kk) {
          ids = std::span<const std::int32_t>(s.cand.get() + r * capacity, found);
        } else if (all.empty()) {  // a tie among many (found < k never happens: the k best bounds are in)
          all.resize(nc);
          std::iota(all.begin(), all.end(), 0);
          ids = all;
        }
        const std::size_t i = static_cast<std::size_t>(s.r0) + r;
        exact::best_k_of(metric, x.row(static_cast<Eigen::Index>(i)).data(), p.row_norms[i], centres, p.centre_norms, ids, kk,
                         scratch, nearest.data() + i * kk, score.data() + i * kk);
      }
    });
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

void CudaKernelImpl::add_to_centres(const MatrixF& x, std::span<const std::int32_t> centre_of,
                                    std::span<const std::uint8_t> include, std::span<std::int64_t> sums,
                                    std::span<std::int64_t> counts) const {
  const auto n = static_cast<std::size_t>(x.rows()), dim = static_cast<std::size_t>(x.cols()), k = counts.size();
  if (centre_of.size() != n || (!include.empty() && include.size() != n) || sums.size() != k * dim) {
    throw std::logic_error("add_to_centres: sizes do not match");
  }
  const gpu::CentreSegments segments = gpu::segment_by_centre(centre_of, include, k);
  for (std::size_t c = 0; c < k; ++c) counts[c] += segments.offsets[c + 1] - segments.offsets[c];
  const auto total = static_cast<std::int64_t>(segments.order.size());
  if (total == 0 || dim == 0) return;

  const std::lock_guard<std::mutex> lock(mutex_);
  SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
  DrainOnExit drain(context_);
  cudaStream_t compute = context_.compute();
  context_.sums.reserve(k * dim);
  SECPE_CUDA_CHECK(cudaMemsetAsync(context_.sums.get(), 0, k * dim * sizeof(std::int64_t), compute));
  const std::size_t mb = gpu::sum_tile_rows(options_.tile_bytes, dim, static_cast<std::size_t>(total));
  for (std::size_t i = 0; i < 2; ++i) {
    cuda::Slot& s = context_.slot(i);
    s.x.reserve(mb * dim), s.dx.reserve(mb * dim);
    s.segments.reserve(mb), s.dsegments.reserve(mb);
  }
  const std::size_t tiles = (static_cast<std::size_t>(total) + mb - 1) / mb;
  for (std::size_t t = 0; t < tiles; ++t) {
    cuda::Slot& s = context_.slot(t);
    if (s.pending) SECPE_CUDA_CHECK(cudaEventSynchronize(s.consumed));  // tile t - 2's buffers are free
    const auto p0 = static_cast<std::int64_t>(t * mb), p1 = std::min<std::int64_t>(p0 + static_cast<std::int64_t>(mb), total);
    // The sort by centre: the tile's rows gathered in segment order into the pinned buffer.
    for (std::int64_t q = p0; q < p1; ++q) {
      const float* row = x.row(static_cast<Eigen::Index>(segments.order[static_cast<std::size_t>(q)])).data();
      std::memcpy(s.x.get() + static_cast<std::size_t>(q - p0) * dim, row, dim * sizeof(float));
    }
    const std::vector<gpu::TileSegment> runs = gpu::tile_segments(segments, p0, p1);
    std::copy(runs.begin(), runs.end(), s.segments.get());
    upload(s.dx.get(), s.x.get(), static_cast<std::size_t>(p1 - p0) * dim, s.stream);
    upload(s.dsegments.get(), s.segments.get(), runs.size(), s.stream);
    SECPE_CUDA_CHECK(cudaEventRecord(s.uploaded, s.stream));
    // One compute stream: tiles add into the same sums one after the other, never concurrently.
    SECPE_CUDA_CHECK(cudaStreamWaitEvent(compute, s.uploaded, 0));
    cuda::launch_add_segments(s.dx.get(), static_cast<std::int64_t>(dim), s.dsegments.get(),
                              static_cast<std::int64_t>(runs.size()), context_.sums.get(), compute);
    SECPE_CUDA_CHECK(cudaGetLastError());
    SECPE_CUDA_CHECK(cudaEventRecord(s.consumed, compute));
    s.pending = true;
  }
  std::vector<std::int64_t> device_sums(k * dim);
  download(device_sums.data(), context_.sums.get(), device_sums.size(), compute);
  SECPE_CUDA_CHECK(cudaStreamSynchronize(compute));
  for (std::size_t j = 0; j < device_sums.size(); ++j) sums[j] += device_sums[j];
}

}  // namespace

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error, just no GPU
    return 0;
  }
  return count;
}

std::unique_ptr<CudaKernel> make_cuda_kernel(const CudaKernelOptions& options) {
  const int devices = cuda_device_count();
  if (devices == 0) throw InputError("no CUDA device is usable by this process (no GPU, or no driver)");
  const int device = options.device >= 0 ? options.device : gpu::device_for_local_rank(gpu::local_rank_from_env(), devices);
  if (device >= devices) {
    throw InputError("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(devices) + " found)");
  }
  return std::make_unique<CudaKernelImpl>(options, device);
}

}  // namespace secpe
