#include "compute/cuda/phase_timeline.hpp"

#include "compute/cuda/cuda_check.hpp"

namespace secpe::cuda {

PhaseTimeline::~PhaseTimeline() {
  for (cudaEvent_t e : pool_) cudaEventDestroy(e);
}

cudaEvent_t PhaseTimeline::event(std::size_t i) {
  while (pool_.size() <= i) {
    cudaEvent_t e = nullptr;
    SECPE_CUDA_CHECK(cudaEventCreate(&e));  // with timing, unlike the pipeline's events
    pool_.push_back(e);
  }
  return pool_[i];
}

void PhaseTimeline::start(cudaStream_t stream) {
  marks_.clear();
  stream_ = nullptr;
  if (!on_) return;
  SECPE_CUDA_CHECK(cudaEventRecord(event(0), stream));
  stream_ = stream;
}

void PhaseTimeline::mark(DevicePhase phase) {
  if (!on_ || !stream_) return;
  SECPE_CUDA_CHECK(cudaEventRecord(event(marks_.size() + 1), stream_));
  marks_.push_back(phase);
}

void PhaseTimeline::settle(cudaStream_t stream, DevicePhases& into) {
  if (!on_ || !stream_ || stream != stream_) return;
  for (std::size_t i = 0; i < marks_.size(); ++i) {
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, pool_[i], pool_[i + 1]) != cudaSuccess) {
      cudaGetLastError();  // a figure lost is no failure of the search: later checks must not see it
      continue;
    }
    into[marks_[i]] += double(ms) / 1e3;
  }
  marks_.clear();
  stream_ = nullptr;
}

}  // namespace secpe::cuda
