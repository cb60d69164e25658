#include <string>
#include <stdexcept>

#include "compute/cuda/device_memory.hpp"

namespace secpe::cuda {

void throw_call_error(const char* call, const char* file, int line, const char* what) {
  throw std::runtime_error(std::string("CUDA: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                           (what ? what : "unknown error"));
}

Context::Context(int device, bool tf32) : device_(device) {
  SECPE_CUDA_CHECK(cudaSetDevice(device));
  try {
    for (Slot& s : slots_) {
      SECPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
      SECPE_CUDA_CHECK(cudaEventCreateWithFlags(&s.uploaded, cudaEventDisableTiming));
      SECPE_CUDA_CHECK(cudaEventCreateWithFlags(&s.consumed, cudaEventDisableTiming));
      SECPE_CUBLAS_CHECK(cublasCreate(&s.blas));
      SECPE_CUBLAS_CHECK(cublasSetStream(s.blas, s.stream));
      // Pedantic float unless TF32 was asked for: no reduced-precision shortcut (TF32, emulation)
      // may slip in, since the candidate bound assumes a float GEMM (compute/impl/search_bound.hpp).
      SECPE_CUBLAS_CHECK(cublasSetMathMode(s.blas, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
    }
    SECPE_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  } catch (...) {
    release();
    throw;
  }
}

Context::~Context() { release(); }

void Context::release() noexcept {
  cudaSetDevice(device_);
  drain();
  for (Slot& s : slots_) {
    if (s.blas) cublasDestroy(s.blas);
    if (s.uploaded) cudaEventDestroy(s.uploaded);
    if (s.consumed) cudaEventDestroy(s.consumed);
    if (s.stream) cudaStreamDestroy(s.stream);
    s.blas = nullptr, s.uploaded = s.consumed = nullptr, s.stream = nullptr;
  }
  if (compute_) cudaStreamDestroy(compute_);
  compute_ = nullptr;
}

void Context::drain() noexcept {
  for (Slot& s : slots_) {
    if (s.stream) cudaStreamSynchronize(s.stream);
    s.pending = false;
  }
  if (compute_) cudaStreamSynchronize(compute_);
  cudaGetLastError();  // clears a sticky launch error left by the failure being reported
  timeline.drop();
}

}  // namespace secpe::cuda
