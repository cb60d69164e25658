// --device: parsing, resolution (auto: the GPU when there is one), and the CUDA backend's
// stand-ins in a build without CUDA, where no device is ever usable.
#include "compute/cuda/cuda_backend.hpp"
#include "core/error.hpp"

namespace secpe {

bool cuda_screen_is_tf32(const std::string& screen) {
  if (screen == "fp32") return false;
  if (screen == "tf32") return true;
  if (screen == "auto") return cuda_tf32_available();
  throw InputError("--screen: unknown GPU screen '" + screen + "' (expected auto, fp32 or tf32)");
}

Device resolve_device(Device requested, std::string* note) {
  if (requested == Device::kCpu) return Device::kCpu;
#ifdef SECPE_HAVE_CUDA
  const char* why = "no CUDA device is usable by this process (no GPU, or no driver)";
#else
  const char* why = "this secpe was built without CUDA (nvcc was not found, or -DSECPE_CUDA=OFF)";
#endif
  if (cuda_device_count() > 0) return Device::kCuda;
  if (requested == Device::kCuda) throw InputError(std::string("the cuda device was asked for, but ") + why);
  if (note) *note = std::string("device auto: ") + why + "; the CPU kernels run instead";
  return Device::kCpu;
}

#ifndef SECPE_HAVE_CUDA
int cuda_device_count() { return 0; }
bool cuda_tf32_available() { return false; }

std::unique_ptr<CudaKernel> make_cuda_kernel(const CudaKernelOptions&) {
  throw InputError("this secpe was built without CUDA: no cuda kernel");
}
#endif

}  // namespace secpe
