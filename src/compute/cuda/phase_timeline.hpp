#pragma once
// Timing events on one stream, for CudaKernelOptions::time_phases: start() before a call's first
// queued step, mark(phase) after each step, settle() once the host has waited for the stream:
// each step's device time (from the event before it to its own) goes to its phase. Only the
// benchmarks turn it on; without it every call here does nothing.
#include <cuda_runtime.h>

#include <vector>

#include "compute/cuda/cuda_backend.hpp"

namespace secpe::cuda {

class PhaseTimeline {
 public:
  PhaseTimeline() = default;
  PhaseTimeline(const PhaseTimeline&) = delete;
  PhaseTimeline& operator=(const PhaseTimeline&) = delete;
  ~PhaseTimeline();

  void enable(bool on) { on_ = on; }
  // A new timeline on `stream` (one not settled is dropped). Call on the stream's device.
  void start(cudaStream_t stream);
  // The steps queued on the timeline's stream since its last mark (or its start) were `phase`.
  void mark(DevicePhase phase);
  // The host has waited for `stream`: when it is the timeline's, every step's time is added to
  // `into` and the timeline ends.
  void settle(cudaStream_t stream, DevicePhases& into);
  // Ends the timeline without a figure (its call failed).
  void drop() { marks_.clear(); }

 private:
  cudaEvent_t event(std::size_t i);  // the i-th event of the pool, created when first needed

  bool on_ = false;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> pool_;
  std::vector<DevicePhase> marks_;  // marks_[i] ends at event i + 1; event 0 is the start
};

}  // namespace secpe::cuda
