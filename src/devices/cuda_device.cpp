// A CUDA GPU per rank (compute/cuda: cuBLAS screens and exact rescoring on the device), its ranks'
// large sums over NCCL where the build has it. --screen: auto (TF32 where the GPU has it: the
// fastest screen proven exact there), fp32 or tf32; the results are the same.
#include "comms/nccl_communicator.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "core/error.hpp"
#include "devices/device_kind.hpp"

namespace secpe {
namespace {

bool tf32_screen(const std::string& screen) {
  if (screen == "fp32") return false;
  if (screen == "tf32") return true;
  if (screen == "auto") return cuda_tf32_available();
  throw InputError("--screen: unknown GPU screen '" + screen + "' (expected auto, fp32 or tf32)");
}

class CudaDevice final : public DeviceKind {
 public:
  std::string name() const override { return "cuda"; }
  std::string description() const override { return "a CUDA GPU per rank, in --kernel's place; NCCL for the sums"; }
  std::optional<std::string> unusable() const override {
    if (cuda_device_count() > 0) return std::nullopt;
    return cuda_unusable_reason();
  }
  std::unique_ptr<NearestCentreKernel> make_kernel(const KernelRequest& request) const override {
    check_kernel_name(request.kernel);
    const bool tf32 = tf32_screen(request.screen);
    if (const auto why = unusable()) throw InputError("--device cuda: " + *why);
    return make_cuda_kernel(CudaKernelOptions{.threads = request.threads, .tf32 = tf32, .time_phases = request.time_phases});
  }
  std::unique_ptr<Communicator> sum_communicator(const Communicator& world) const override {
    return world.size() > 1 ? make_nccl_communicator(world) : nullptr;
  }
};

}  // namespace

const DeviceKind& cuda_device_kind() {
  static const CudaDevice kind;
  return kind;
}

}  // namespace secpe
