#pragma once
// Error checks for CUDA runtime and cuBLAS calls: a failed call throws std::runtime_error naming
// the call and its file:line (a device fault is not the user's input: exit code 1), with the
// library's own description. Never data values.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace secpe::cuda {

[[noreturn]] void throw_call_error(const char* call, const char* file, int line, const char* what);

}  // namespace secpe::cuda

#define SECPE_CUDA_CHECK(call)                                                                    \
  do {                                                                                            \
    const cudaError_t secpe_status_ = (call);                                                     \
    if (secpe_status_ != cudaSuccess)                                                             \
      ::secpe::cuda::throw_call_error(#call, __FILE__, __LINE__, cudaGetErrorString(secpe_status_)); \
  } while (0)

#define SECPE_CUBLAS_CHECK(call)                                                                      \
  do {                                                                                                \
    const cublasStatus_t secpe_status_ = (call);                                                      \
    if (secpe_status_ != CUBLAS_STATUS_SUCCESS)                                                       \
      ::secpe::cuda::throw_call_error(#call, __FILE__, __LINE__, cublasGetStatusString(secpe_status_)); \
  } while (0)
