#pragma once
// The CUDA kernel's host side, shared by its files: cuda_kernel.cpp (the interface, kept rows,
// per-centre sums, the built-in check), batch_search.cpp (searches on the device: rows kept or
// uploaded whole, candidates rescored on the device, one upload, one download and one wait per
// batch), streamed_search.cpp (the safe path: rows streamed in tiles, candidates rescored on
// the host threads) and noisy_means.cpp (SecPE's release on the device).
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cuda/device_memory.hpp"
#include "compute/cuda/kernels.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "core/timer.hpp"

namespace secpe {

// Rows kept by a CudaKernelImpl: their exact norms on the host, and, when the device has room,
// the rows and their norms (|r|, |r|^2, 1/|r|: three runs) in device memory.
class DeviceKeptRows final : public KeptRows {
 public:
  DeviceKeptRows(const MatrixF& rows, const void* owner) : KeptRows(rows), owner(owner) {}
  cuda::DeviceRows view() const {
    const auto m = rows().rows();
    return {data.get(), m, rows().cols(), {dnorms.get(), dnorms.get() + m, dnorms.get() + 2 * m}};
  }

  const void* owner;          // the kernel that kept them (another kernel's handle is a plain view)
  std::vector<double> norms;  // exact::norms of every row
  bool resident = false;      // the rows are in device memory
  cuda::DeviceBuffer<float> data;
  cuda::DeviceBuffer<double> dnorms;
};

// The centres of a release on the device (every label's, noisy_means.cpp) and their norms
// (|c|, |c|^2, 1/|c|: three runs), where the release made them: the votes' search reads them
// there (DeviceCentres). Reused once no copy refers to it any more.
struct ReleasedBatch {
  cuda::DeviceBuffer<float> centres;
  cuda::DeviceBuffer<double> norms;
  std::size_t centres_capacity = 0, norms_capacity = 0;
};

// One label's released centres on the device (NoisyClusters::device_copy).
class DeviceCentres final : public DeviceCopy {
 public:
  DeviceCentres(const MatrixF& m, const void* owner, std::shared_ptr<ReleasedBatch> batch, const float* rows, const double* triple,
                std::vector<double> norms)
      : DeviceCopy(m), owner(owner), norms(std::move(norms)), rows_(m.rows()), d_(m.cols()), batch_(std::move(batch)), data_(rows),
        triple_(triple) {}
  cuda::DeviceRows view() const { return {data_, rows_, d_, {triple_, triple_ + rows_, triple_ + 2 * rows_}}; }

  const void* owner;          // the kernel that released them
  std::vector<double> norms;  // exact::norms of the centres

 private:
  Eigen::Index rows_, d_;
  std::shared_ptr<ReleasedBatch> batch_;
  const float* data_;
  const double* triple_;
};

// One direction of one search of a batch on the device: rows x against centres c, both with
// their host copies and exact norms; the k best of each row go to the batch's output on the
// device (d_nearest, d_score), come back to its pinned copy (h_nearest, h_score) and end in the
// caller's spans.
struct DeviceSearch {
  cuda::DeviceRows x, c;
  const MatrixF* x_host;
  const MatrixF* c_host;
  std::span<const double> x_norms, c_norms;
  int k;
  std::span<std::int32_t> nearest;
  std::span<double> score;
  std::size_t out = 0;  // entries before this search's in the batch's output
  std::int32_t* d_nearest = nullptr;
  double* d_score = nullptr;
  const std::int32_t* h_nearest = nullptr;
  const double* h_score = nullptr;
};
struct PlannedTask;

class CudaKernelImpl final : public CudaKernel {
 public:
  CudaKernelImpl(const CudaKernelOptions& options, int device);

  std::string name() const override { return "cuda"; }
  int threads() const override { return host_.threads(); }
  bool partial_passes_pay() const override { return false; }
  DeviceTraffic traffic() const override;
  std::string device_description() const override;
  bool tf32() const override { return options_.tf32; }

  void search(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
              std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                std::span<double> score) const override;
  void search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                     std::span<double> score, std::span<std::int32_t> centre_nearest,
                     std::span<double> centre_score) const override;
  std::unique_ptr<KeptRows> keep(const MatrixF& rows) const override;
  void search_batch(std::span<const SearchTask> tasks, Metric metric) const override;
  void add_to_centres(const MatrixF& x, std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                      std::span<std::int64_t> sums, std::span<std::int64_t> counts) const override;
  void add_kept_to_centres(const KeptRows& x, std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                           std::span<std::int64_t> sums, std::span<std::int64_t> counts) const override;
  void noisy_centre_means(std::span<const NoisyMeansTask> tasks) const override;

 private:
  // batch_search.cpp: the tasks the device can take (validated, with their norms) run there;
  // the others go to the streamed path. Returns false when the device path failed (a CUDA error
  // or the built-in check): the caller then runs the whole batch on the safe path.
  bool device_batch(std::span<const SearchTask> tasks, Metric metric) const;
  // The device tasks' inputs packed into one upload; their searches (one per direction) laid out
  // in one output; the scratch reserved. Nothing is queued yet.
  std::vector<DeviceSearch> stage(std::vector<PlannedTask>& planned, Metric metric) const;
  void enqueue(const DeviceSearch& s, Metric metric) const;
  void collect(DeviceSearch& s, Metric metric) const;  // results to the caller's spans, overflowed rows rescored
  bool check(const DeviceSearch& s, Metric metric, bool full) const;
  // streamed_search.cpp: today's path, rows streamed in tiles, candidates rescored on the host.
  void stream_search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                       std::span<double> score) const;
  void stream_task(const SearchTask& task, Metric metric) const;
  // noisy_means.cpp: SecPE's release on the device; false when the built-in check failed.
  bool release_on_device(std::span<const NoisyMeansTask> tasks) const;
  bool check_release(std::span<const NoisyMeansTask> tasks, bool full) const;
  std::shared_ptr<ReleasedBatch> released_batch(std::size_t floats, std::size_t doubles) const;
  void keep_released(std::span<const NoisyMeansTask* const> live, const std::shared_ptr<ReleasedBatch>& batch) const;
  // cuda_kernel.cpp
  void upload_staged(void* device, const void* host, std::size_t bytes) const;
  void wait(cudaStream_t stream) const;
  void fail(const std::string& what) const;  // the built-in check failed: report, count, safe path from now on
  void add_on_device(const DeviceKeptRows& kept, std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                     std::span<std::int64_t> sums, std::span<std::int64_t> counts) const;
  const DeviceKeptRows* ours(const KeptRows& rows) const;
  // Where host phases are added up (CudaKernelOptions::time_phases), else null.
  DevicePhases* timed() const { return options_.time_phases ? &traffic_.phases : nullptr; }
  // The candidate bound of this kernel's GEMM: float, or TF32 tensor cores (rounded inputs, sums
  // that may truncate).
  bound::ScoreBound screen_bound(Metric metric, long long d) const {
    return options_.tf32 ? bound::make_score_bound(metric, d, bound::kTf32InputUnit, bound::kTensorCoreAccumulationUnit)
                         : bound::make_score_bound(metric, d);
  }

  template <class T>
  void upload(T* device, const T* host, std::size_t n, cudaStream_t stream) const {
    SECPE_CUDA_CHECK(cudaMemcpyAsync(device, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    traffic_.bytes_up += n * sizeof(T);
  }
  template <class T>
  void download(T* host, const T* device, std::size_t n, cudaStream_t stream) const {
    SECPE_CUDA_CHECK(cudaMemcpyAsync(host, device, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    traffic_.bytes_down += n * sizeof(T);
  }

  CudaKernelOptions options_;
  BlasKernel host_;  // searches the GEMM cannot help with (exact_only, d = 0)
  mutable std::recursive_mutex mutex_;  // one call at a time uses the context
  mutable cuda::Context context_;
  mutable DeviceTraffic traffic_;
  mutable bool safe_ = false;         // a built-in check failed: the safe path from now on
  mutable bool checked_ = false;      // the first device batch had its full check
  mutable bool sums_checked_ = false; // the first per-centre sums of kept rows were compared with the CPU's
  mutable bool release_checked_ = false;  // the first release on the device was compared with the host's in full
  mutable std::vector<std::shared_ptr<ReleasedBatch>> released_;  // releases' device buffers, for reuse
};

// Adds the wall time of a scope to a host phase (DevicePhases; nothing when `phases` is null).
class PhaseClock {
 public:
  PhaseClock(DevicePhases* phases, DevicePhase phase) : phases_(phases), phase_(phase) {}
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  ~PhaseClock() {
    if (phases_) (*phases_)[phase_] += timer_.seconds();
  }

 private:
  DevicePhases* phases_;
  DevicePhase phase_;
  Timer timer_;
};

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

}  // namespace secpe
