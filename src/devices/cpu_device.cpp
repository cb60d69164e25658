// The CPU: the kernel --kernel names (compute/cpu: reference or blas), always usable, its ranks'
// sums over MPI. --screen is the blas kernel's candidate screen (compute/cpu/blas_kernel.hpp).
#include "compute/cpu/blas_kernel.hpp"
#include "core/error.hpp"
#include "devices/device_kind.hpp"

namespace secpe {
namespace {

class CpuDevice final : public DeviceKind {
 public:
  std::string name() const override { return "cpu"; }
  std::string description() const override { return "the --kernel on the host's cores"; }
  std::optional<std::string> unusable() const override { return std::nullopt; }
  std::unique_ptr<NearestCentreKernel> make_kernel(const KernelRequest& request) const override {
    check_kernel_name(request.kernel);  // an unknown kernel is named before its screen is judged
    BlasKernelOptions options{.threads = request.threads};
    try {
      options.screen = parse_blas_screen(request.screen);
    } catch (const InputError& e) {
      throw InputError(std::string("--screen: ") + e.what());
    }
    if (request.kernel == "blas") return std::make_unique<BlasKernel>(options);
    if (options.screen != BlasScreen::kAuto) throw InputError("--screen " + request.screen + " is for --kernel blas");
    return secpe::make_kernel(request.kernel, request.threads);
  }
};

}  // namespace

const DeviceKind& cpu_device_kind() {
  static const CpuDevice kind;
  return kind;
}

}  // namespace secpe
