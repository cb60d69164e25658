// The CUDA kernel, host side: the interface (every search is a batch: batch_search.cpp, or the
// safe streamed path: streamed_search.cpp), kept rows uploaded once, per-centre sums (of rows
// streamed in tiles, or of kept rows read where they are kept), the built-in check's reporting.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <optional>

#include "compute/cuda/cuda_kernel_impl.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"

namespace secpe {
namespace {

// Rows per work item of the kept rows' sums: short runs keep every centre's work spread over
// many blocks (a label with one huge cluster would otherwise sum it on a handful of them).
constexpr std::size_t kSumRunRows = 256;
// Kept rows are uploaded through pinned buffers of this many bytes, two in flight.
constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

std::string gib(std::size_t bytes) { return std::to_string(double(bytes) / double(1 << 30)).substr(0, 5) + " GiB"; }

}  // namespace

CudaKernelImpl::CudaKernelImpl(const CudaKernelOptions& options, int device)
    : options_(options), host_(BlasKernelOptions{.threads = options.threads}), context_(device, options.tf32) {
  context_.timeline.enable(options.time_phases);
}

DeviceTraffic CudaKernelImpl::traffic() const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  return traffic_;
}

std::string CudaKernelImpl::device_description() const {
  cudaDeviceProp prop{};
  SECPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, context_.device()));
  return std::string(prop.name) + " (device " + std::to_string(context_.device()) + ")";
}

void CudaKernelImpl::wait(cudaStream_t stream) const {
  {
    const PhaseClock clock(timed(), DevicePhase::kWait);
    SECPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ++traffic_.syncs;
  context_.timeline.settle(stream, traffic_.phases);
}

void CudaKernelImpl::fail(const std::string& what) const {
  // On every rank (a failure is never private data: it names rows by index only), loudly.
  std::cerr << "secpe: CUDA KERNEL CHECK FAILED on device " << context_.device() << ": " << what
            << "; from now on this kernel runs its safe path (rows streamed from the host, candidates rescored and "
               "sums made on the host), so the results stay exact"
            << std::endl;
  ++traffic_.check_failures;
  safe_ = true;
}

const DeviceKeptRows* CudaKernelImpl::ours(const KeptRows& rows) const {
  const auto* kept = dynamic_cast<const DeviceKeptRows*>(&rows);
  return kept && kept->owner == this ? kept : nullptr;
}

void CudaKernelImpl::search(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                            std::span<double> score) const {
  search_k(x, centres, metric, 1, nearest, score);
}

void CudaKernelImpl::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                              std::span<double> score) const {
  const KeptRows view(x);
  search_kept(view, centres, metric, k, nearest, score);
}

void CudaKernelImpl::search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                                   std::span<double> score, std::span<std::int32_t> centre_nearest,
                                   std::span<double> centre_score) const {
  const KeptRows view(x);
  const SearchTask task{.x = &view, .centres = &centres, .k = 1, .nearest = nearest, .score = score,
                        .centre_nearest = centre_nearest, .centre_score = centre_score};
  search_batch(std::span<const SearchTask>(&task, 1), metric);
}

void CudaKernelImpl::search_batch(std::span<const SearchTask> tasks, Metric metric) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!safe_ && device_batch(tasks, metric)) return;
  for (const SearchTask& task : tasks) stream_task(task, metric);
}

void CudaKernelImpl::upload_staged(void* device, const void* host, std::size_t bytes) const {
  auto* to = static_cast<unsigned char*>(device);
  const auto* from = static_cast<const unsigned char*>(host);
  for (std::size_t i = 0; i < 2; ++i) context_.slot(i).staging.reserve(kStagingBytes);
  for (std::size_t t = 0, at = 0; at < bytes; ++t, at += kStagingBytes) {
    cuda::Slot& s = context_.slot(t);
    if (s.pending) wait(s.stream);  // this staging buffer's previous chunk has left
    s.pending = false;
    const std::size_t len = std::min(kStagingBytes, bytes - at);
    unsigned char* staging = s.staging.get();
    run_chunks(chunk_count(threads(), len, 0.05), len, [&](int, std::size_t b, std::size_t e) { std::memcpy(staging + b, from + at + b, e - b); });
    upload(to + at, staging, len, s.stream);
    s.pending = true;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if (context_.slot(i).pending) wait(context_.slot(i).stream);
    context_.slot(i).pending = false;
  }
}

std::unique_ptr<KeptRows> CudaKernelImpl::keep(const MatrixF& rows) const {
  auto kept = std::make_unique<DeviceKeptRows>(rows, this);
  kept->norms = exact::norms(rows, threads());
  const auto m = static_cast<std::size_t>(rows.rows()), d = static_cast<std::size_t>(rows.cols());
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!options_.keep_rows || safe_ || m == 0 || d == 0) return kept;
  SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
  const std::size_t bytes = m * d * sizeof(float) + 3 * m * sizeof(double);
  std::size_t free_bytes = 0, total_bytes = 0;
  SECPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::string what = std::to_string(m) + " rows (" + gib(bytes) + ")";
  if (!gpu::fits_on_device(bytes, free_bytes, options_.keep_reserve_bytes)) {
    log_info("cuda: " + what + " do not fit in the device's free memory (" + gib(free_bytes) + ", less " +
             gib(options_.keep_reserve_bytes) + " kept free): they stream through in tiles at every search");
    return kept;
  }
  // The norms as the searches read them: |r|, |r|^2, 1/|r| (the last read under cosine only).
  std::vector<double> triple(3 * m);
  for (std::size_t i = 0; i < m; ++i) {
    triple[i] = kept->norms[i];
    triple[m + i] = kept->norms[i] * kept->norms[i];
    triple[2 * m + i] = 1.0 / kept->norms[i];
  }
  try {
    DrainOnExit drain(context_);
    kept->data.reserve(m * d);
    kept->dnorms.reserve(3 * m);
    upload_staged(kept->data.get(), rows.data(), m * d * sizeof(float));
    upload_staged(kept->dnorms.get(), triple.data(), triple.size() * sizeof(double));
    kept->resident = true;
  } catch (const std::runtime_error& e) {  // out of memory after all, say: the rows stream instead
    context_.drain();
    kept->data.release();
    kept->dnorms.release();
    log_warn("cuda: " + what + " could not be kept on the device (" + e.what() + "): they stream through in tiles");
  }
  return kept;
}

void CudaKernelImpl::add_kept_to_centres(const KeptRows& x, std::span<const std::int32_t> centre_of,
                                         std::span<const std::uint8_t> include, std::span<std::int64_t> sums,
                                         std::span<std::int64_t> counts) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  const DeviceKeptRows* kept = ours(x);
  if (safe_) return host_.add_to_centres(x.rows(), centre_of, include, sums, counts);
  if (!kept || !kept->resident) return add_to_centres(x.rows(), centre_of, include, sums, counts);
  if (sums_checked_) {
    try {
      return add_on_device(*kept, centre_of, include, sums, counts);
    } catch (const std::out_of_range&) {
      throw;  // a centre outside [0, k): the caller's error, as on the CPU
    } catch (const std::runtime_error& e) {
      context_.drain();
      fail(std::string("per-centre sums of kept rows: ") + e.what());
    }
    return host_.add_to_centres(x.rows(), centre_of, include, sums, counts);
  }
  // The first sums of kept rows: the device's against the CPU's, which are the results.
  std::vector<std::int64_t> device_sums(sums.begin(), sums.end()), device_counts(counts.begin(), counts.end());
  host_.add_to_centres(x.rows(), centre_of, include, sums, counts);
  sums_checked_ = true;
  try {
    add_on_device(*kept, centre_of, include, device_sums, device_counts);
  } catch (const std::runtime_error& e) {
    context_.drain();
    return fail(std::string("per-centre sums of kept rows: ") + e.what());
  }
  if (!std::equal(sums.begin(), sums.end(), device_sums.begin()) || !std::equal(counts.begin(), counts.end(), device_counts.begin())) {
    fail("the per-centre sums of " + std::to_string(x.rows().rows()) + " kept rows differ from the CPU's");
  }
}

void CudaKernelImpl::add_on_device(const DeviceKeptRows& kept, std::span<const std::int32_t> centre_of,
                                   std::span<const std::uint8_t> include, std::span<std::int64_t> sums,
                                   std::span<std::int64_t> counts) const {
  const MatrixF& x = kept.rows();
  const auto n = static_cast<std::size_t>(x.rows()), dim = static_cast<std::size_t>(x.cols()), k = counts.size();
  if (centre_of.size() != n || (!include.empty() && include.size() != n) || sums.size() != k * dim) {
    throw std::logic_error("add_to_centres: sizes do not match");
  }
  std::optional<PhaseClock> clock(std::in_place, timed(), DevicePhase::kSumsHost);
  const gpu::CentreSegments segments = gpu::segment_by_centre(centre_of, include, k);
  const std::vector<gpu::TileSegment> runs = gpu::split_runs(segments, kSumRunRows);
  // Nothing is added before the device is done: a failure leaves sums and counts as they were.
  const auto add_counts = [&] {
    for (std::size_t c = 0; c < k; ++c) counts[c] += segments.offsets[c + 1] - segments.offsets[c];
  };
  if (runs.empty() || dim == 0) return add_counts();
  SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
  DrainOnExit drain(context_);
  cudaStream_t stream = context_.compute();
  auto& b = context_.batch;
  b.order.reserve(segments.order.size());
  b.runs.reserve(runs.size());
  context_.sums.reserve(k * dim);
  context_.timeline.start(stream);
  upload(b.order.get(), segments.order.data(), segments.order.size(), stream);
  upload(b.runs.get(), runs.data(), runs.size(), stream);
  context_.timeline.mark(DevicePhase::kUpload);
  SECPE_CUDA_CHECK(cudaMemsetAsync(context_.sums.get(), 0, k * dim * sizeof(std::int64_t), stream));
  cuda::launch_add_kept(kept.data.get(), static_cast<std::int64_t>(dim), b.order.get(), b.runs.get(),
                        static_cast<std::int64_t>(runs.size()), context_.sums.get(), stream);
  SECPE_CUDA_CHECK(cudaGetLastError());
  context_.timeline.mark(DevicePhase::kSums);
  std::vector<std::int64_t> device_sums(k * dim);
  download(device_sums.data(), context_.sums.get(), device_sums.size(), stream);
  context_.timeline.mark(DevicePhase::kDownload);
  clock.reset();  // the wait is its own phase
  wait(stream);
  clock.emplace(timed(), DevicePhase::kSumsHost);
  if (options_.corrupt_device_results) device_sums[0] += 1;
  for (std::size_t j = 0; j < device_sums.size(); ++j) sums[j] += device_sums[j];
  add_counts();
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

  const std::lock_guard<std::recursive_mutex> lock(mutex_);
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
    if (s.pending) {  // tile t - 2's buffers are free
      SECPE_CUDA_CHECK(cudaEventSynchronize(s.consumed));
      ++traffic_.syncs;
    }
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
  wait(compute);
  for (std::size_t j = 0; j < device_sums.size(); ++j) sums[j] += device_sums[j];
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error, just no GPU
    return 0;
  }
  return count;
}

bool cuda_tf32_available() {
  const int devices = cuda_device_count();
  if (devices == 0) return false;
  int major = 0;
  const int device = gpu::device_for_local_rank(gpu::local_rank_from_env(), devices);
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 8;
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
