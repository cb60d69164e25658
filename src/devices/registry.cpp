// The devices --device knows, the CPU first (auto's fallback). A new device: its file beside
// these, defining its kind, and one line in kDeviceKinds (docs/architecture.md).
#include "core/error.hpp"
#include "core/kind_registry.hpp"
#include "devices/device_kind.hpp"

namespace secpe {

const DeviceKind& cpu_device_kind();
const DeviceKind& cuda_device_kind();

namespace {

constexpr KindRegistry<DeviceKind>::Ref kDeviceKinds[] = {&cpu_device_kind, &cuda_device_kind};
constexpr KindRegistry<DeviceKind> kDeviceRegistry{kDeviceKinds};
constexpr const char* kAuto = "auto";

}  // namespace

std::vector<std::string> device_kind_names() { return kDeviceRegistry.names(); }

const DeviceKind& device_kind(const std::string& name) {
  if (const DeviceKind* kind = kDeviceRegistry.find(name)) return *kind;
  std::vector<std::string> names = device_kind_names();
  names.push_back(kAuto);
  throw_unknown_name("--device", name, or_list(names));
}

std::string device_option_help() {
  return kDeviceRegistry.help() + "; or auto (the first of them after cpu that this process can use, else cpu)";
}

void check_device_name(const std::string& name) {
  if (name != kAuto) device_kind(name);
}

const DeviceKind& resolve_device(const std::string& requested, std::string* note) {
  if (requested != kAuto) {
    const DeviceKind& kind = device_kind(requested);
    if (const auto why = kind.unusable()) throw InputError("--device " + requested + ": " + *why);
    return kind;
  }
  std::vector<std::string> whys;
  for (const auto kind : kDeviceRegistry.kinds().subspan(1)) {
    const auto why = kind().unusable();
    if (!why) return kind();
    whys.push_back(kind().name() + ": " + *why);
  }
  const DeviceKind& cpu = kDeviceRegistry.kinds().front()();
  if (note) {
    std::string reasons;
    for (const std::string& why : whys) reasons += (reasons.empty() ? "" : "; ") + why;
    *note = "device auto: " + reasons + "; the CPU kernels run instead";
  }
  return cpu;
}

}  // namespace secpe
