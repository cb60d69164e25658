// Why no CUDA device is usable (devices/cuda_device.cpp says it for --device cuda and auto), and
// the CUDA backend's stand-ins in a build without CUDA, where no device ever is.
#include "compute/cuda/cuda_backend.hpp"
#include "core/error.hpp"

namespace secpe {

std::string cuda_unusable_reason() {
#ifdef SECPE_HAVE_CUDA
  return "no CUDA device is usable by this process (no GPU, or no driver)";
#else
  return "this secpe was built without CUDA (nvcc was not found, or -DSECPE_CUDA=OFF)";
#endif
}

#ifndef SECPE_HAVE_CUDA
int cuda_device_count() { return 0; }
bool cuda_tf32_available() { return false; }

std::unique_ptr<CudaKernel> make_cuda_kernel(const CudaKernelOptions&) {
  throw InputError("this secpe was built without CUDA: no cuda kernel");
}
#endif

}  // namespace secpe
