#pragma once
// The devices `--device NAME` can name, as strategies: where a rank's searches, sums and SecPE
// releases run (a NearestCentreKernel, compute/nearest.hpp), and which communicator carries its
// large sums. Every device answers bit for bit as the CPU's reference kernel does, so the device
// never changes an output. A new device: its backend under src/compute/<device>/, a file beside
// these defining its kind, and one line in kDeviceKinds (registry.cpp; docs/architecture.md).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comms/communicator.hpp"
#include "compute/nearest.hpp"

namespace secpe {

// What a kernel is made for.
struct KernelRequest {
  std::string kernel = "blas";  // --kernel, the CPU's kernel: a device with a kernel of its own takes its place
  int threads = 0;              // host threads (0: SECPE_THREADS if set, else the hardware's)
  std::string screen = "auto";  // --screen of the benchmarks, as the device reads it; auto: its fastest exact screen
  bool time_phases = false;     // the benchmarks: the device times its phases where it can
};

class DeviceKind {
 public:
  virtual ~DeviceKind() = default;
  virtual std::string name() const = 0;         // --device NAME
  virtual std::string description() const = 0;  // what it is, in a phrase, for --device's help
  // Why this process cannot use it (no hardware, no driver, not built in); nullopt when it can.
  virtual std::optional<std::string> unusable() const = 0;
  // Its kernel. An unknown --kernel or --screen is an InputError naming the option, on every
  // device, whether or not this process can use it; an unusable device is one too.
  virtual std::unique_ptr<NearestCentreKernel> make_kernel(const KernelRequest& request) const = 0;
  // The communicator for the per-centre sums of ranks on this device (every rank calls it
  // together); null: the ranks' own (MPI).
  virtual std::unique_ptr<Communicator> sum_communicator(const Communicator&) const { return nullptr; }
};

// The registered devices' names, in registration order (the CPU first).
std::vector<std::string> device_kind_names();
// --device's help: every device with its description, and auto.
std::string device_option_help();
// The registered device named `name`, usable here or not; an InputError naming --device and
// listing the names (auto among them) otherwise.
const DeviceKind& device_kind(const std::string& name);
// `name` is a registered device or auto; an InputError as device_kind's otherwise.
void check_device_name(const std::string& name);
// The device this process uses for --device `requested`. auto: the first registered device after
// the CPU that this process can use, else the CPU, and `note` (if given) says why. A named device
// this process cannot use is an InputError saying why.
const DeviceKind& resolve_device(const std::string& requested, std::string* note = nullptr);

}  // namespace secpe
