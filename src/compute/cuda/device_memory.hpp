#pragma once
// Owned device and pinned host buffers that only grow (reused across searches), and a CUDA
// device context: two pipeline slots (stream, cuBLAS handle, events, buffers) so that one tile's
// transfers overlap the other's compute, a compute stream for the per-centre sums, the
// buffers of a batch of searches on the device, and the timing of a call's steps.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "compute/cuda/cuda_check.hpp"
#include "compute/cuda/phase_timeline.hpp"
#include "compute/impl/gpu_plan.hpp"

namespace secpe::cuda {

enum class Memory { kDevice, kPinnedHost };

template <class T, Memory kind>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }
  // At least n elements (contents not kept). Call only while no stream uses the buffer.
  void reserve(std::size_t n) {
    if (n <= capacity_ && data_) return;
    release();
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(T);
    if constexpr (kind == Memory::kDevice) {
      SECPE_CUDA_CHECK(cudaMalloc(&p, bytes));
    } else {
      SECPE_CUDA_CHECK(cudaMallocHost(&p, bytes));
    }
    data_ = static_cast<T*>(p);
    capacity_ = n;
  }
  T* get() const { return data_; }
  // Frees the memory now. Call only while no stream uses the buffer.
  void release() {
    if (!data_) return;
    if constexpr (kind == Memory::kDevice) {
      cudaFree(data_);
    } else {
      cudaFreeHost(data_);
    }
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

template <class T>
using DeviceBuffer = Buffer<T, Memory::kDevice>;
template <class T>
using PinnedBuffer = Buffer<T, Memory::kPinnedHost>;

struct Slot {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cudaEvent_t uploaded = nullptr;  // this slot's inputs are on the device
  cudaEvent_t consumed = nullptr;  // the compute stream is done with them
  PinnedBuffer<float> x;           // staging: a tile of rows
  PinnedBuffer<double> norms;
  PinnedBuffer<std::int32_t> cand, count;
  PinnedBuffer<gpu::TileSegment> segments;
  PinnedBuffer<unsigned char> staging;  // uploads of kept rows, a chunk at a time
  DeviceBuffer<float> dx, g;
  DeviceBuffer<double> dnorms;
  DeviceBuffer<std::int32_t> dcand, dcount;
  DeviceBuffer<gpu::TileSegment> dsegments;
  bool pending = false;  // work enqueued whose results are not yet taken
  std::int64_t r0 = 0, rows = 0;
};

class Context {
 public:
  Context(int device, bool tf32);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();
  int device() const { return device_; }
  Slot& slot(std::size_t i) { return slots_[i % 2]; }
  cudaStream_t compute() const { return compute_; }
  // Waits for every stream, ignoring errors: after a failure, before buffers may be reused or
  // freed. A timeline not settled by then is dropped (its call did not finish).
  void drain() noexcept;

  DeviceBuffer<float> centres;
  DeviceBuffer<double> centre_norms;  // |c|, |c|^2, 1/|c|: three runs of n
  DeviceBuffer<std::int64_t> sums;
  // A batch of searches on the device (slot 0's stream): every input in one upload, every result
  // in one download; the kept rows' sums read their order and runs from `runs`.
  struct Batch {
    PinnedBuffer<unsigned char> in, out;
    DeviceBuffer<unsigned char> din, dout;
    DeviceBuffer<std::int64_t> order;
    DeviceBuffer<gpu::TileSegment> runs;
    std::size_t out_bytes = 0;  // of the current batch's results: scores (double), then nearest (int32)
  } batch;
  // A release of SecPE's centres (noisy_means.cpp): its inputs in one upload, the released
  // centres and sizes in one download.
  struct ReleaseIo {
    PinnedBuffer<unsigned char> in, out;
    DeviceBuffer<unsigned char> din, dout;
  } release_io;
  PhaseTimeline timeline;  // the device phases of the call in progress (CudaKernelOptions::time_phases)

 private:
  void release() noexcept;  // streams, events and handles (the buffers free themselves)
  int device_;
  Slot slots_[2];
  cudaStream_t compute_ = nullptr;
};

}  // namespace secpe::cuda
