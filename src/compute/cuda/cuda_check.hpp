#pragma once
// Error checks for CUDA runtime and cuBLAS calls: a failed call throws std::runtime_error naming
// the call and its file:line (a device fault is not the user's input: exit code 1), with the
// library's own description. Never data values.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace secpe::cuda {

[[noreturn]] void throw_call_error(const char* call, const char* file, int line, const char* what);

}  // namespace secpe::cuda

// `call` must return `success`; otherwise describe(status) says why.
#define SECPE_CHECK_STATUS(call, success, describe)                                        \
  do {                                                                                     \
    const auto secpe_status_ = (call);                                                     \
    if (secpe_status_ != (success))                                                        \
      ::secpe::cuda::throw_call_error(#call, __FILE__, __LINE__, describe(secpe_status_)); \
  } while (0)

#define SECPE_CUDA_CHECK(call) SECPE_CHECK_STATUS(call, cudaSuccess, cudaGetErrorString)
#define SECPE_CUBLAS_CHECK(call) SECPE_CHECK_STATUS(call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString)
