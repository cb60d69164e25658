#pragma once
// The CUDA backend, as the rest of secpe sees it: no CUDA header here, so every file compiles
// with or without it. In a build without CUDA (SECPE_HAVE_CUDA undefined) there is no device:
// cuda_device_count() is 0 and the rest throws an InputError saying so (compute/cuda_availability.cpp).
// The implementation is compute/cuda/ (cuda_kernel.cpp: host side; kernels.cu: device code).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "compute/nearest.hpp"

namespace secpe {

// CUDA devices this process can use (0 without a driver, a device or a CUDA build).
int cuda_device_count();

// Whether this process's GPU (the one make_cuda_kernel picks by default) has TF32 tensor cores
// (compute capability 8.0 or later: A100, H100): the fastest screen proven exact there, which
// secpe run and the benchmarks' --screen auto use. False without a GPU.
bool cuda_tf32_available();

// Why this process can use no CUDA device (the build, or the machine), for when cuda_device_count() is 0.
std::string cuda_unusable_reason();

struct CudaKernelOptions {
  int device = -1;   // CUDA device; -1: the one for this process's local rank (compute/impl/gpu_plan.hpp)
  int threads = 0;   // host threads (norms, packing, fallbacks; 0: as BlasKernelOptions::threads)
  bool tf32 = false; // TF32 tensor cores for the GEMM: faster, a wider bound, more rows rescored
  // Device memory per tile of rows: bounds the distance tiles (and the rows of a search too large
  // to stay on the device) for any shard size, on top of the centres and the kept rows.
  std::size_t tile_bytes = std::size_t{256} << 20;
  // Kept rows (NearestCentreKernel::keep) stay in device memory when they fit in its free memory
  // less this reserve (for tiles, centres and results); otherwise they stream through in tiles
  // (logged). false: nothing stays (every search uploads its rows, as rows used once do).
  bool keep_rows = true;
  std::size_t keep_reserve_bytes = std::size_t{2} << 30;
  // Exact rescoring of the candidates on the device (fp64, exact::pair_score's order and bits);
  // false: on the host threads (the path the built-in check falls back to).
  bool device_rescoring = true;
  // SecPE's release (NearestCentreKernel::noisy_centre_means) on the device when the labels' rows are
  // kept there; false: on the host threads.
  bool device_release = true;
  // Tests only: the device path's results are altered (the last row of every search gets a
  // wrong score, kept rows' sums a wrong entry; with corrupt_release, a release's last centre a
  // wrong coordinate), so that the built-in check must catch them.
  bool corrupt_device_results = false;
  bool corrupt_release = false;
  // Where the time goes (DevicePhases): the benchmarks set it; runs leave it off (no timing
  // events, no host clocks).
  bool time_phases = false;
};

// Where a CUDA kernel's time went, with CudaKernelOptions::time_phases. Host phases are the wall
// time of the host's own steps (kWait: blocked on the device). Device phases come from timing
// events between consecutive steps of the one stream a call queues its work on, so that a call's
// device phases add up to that stream's time from its first upload to its last download; a gap
// while the host still packs an input counts in the step that waited for it (an upload).
enum class DevicePhase : std::size_t {
  kPlan,          // host: checks, exact norms, the device-or-host choice of each search
  kStage,         // host: packing inputs into pinned buffers and queueing the work
  kWait,          // host: waiting for the device
  kCollect,       // host: results to the caller, overflowed candidate lists rescored
  kCheck,         // host: the built-in check's exact answers
  kReleaseHost,   // host: a release's inputs and subkeys staged, its centres copied out
  kReleaseNorms,  // host: the released centres' exact norms for the votes
  kSumsHost,      // host: kept rows' per-centre order and runs, the sums added up
  kUpload,        // device: host -> device copies
  kGemm,          // device: cuBLAS
  kSelect,        // device: the bound and the candidate lists
  kRescore,       // device: exact rescoring of the candidates
  kRelease,       // device: SecPE's release (sampled sums and noise)
  kSums,          // device: kept rows' per-centre sums
  kDownload,      // device: device -> host copies
  kCount
};
inline constexpr std::size_t kDevicePhases = static_cast<std::size_t>(DevicePhase::kCount);
inline constexpr std::array<const char*, kDevicePhases> kDevicePhaseNames = {
    "host_plan", "host_stage", "host_wait", "host_collect", "host_check", "host_release", "host_release_norms", "host_sums",
    "upload", "gemm", "select", "rescore", "release", "sums", "download"};
inline constexpr bool is_host_phase(std::size_t p) { return p < static_cast<std::size_t>(DevicePhase::kUpload); }

struct DevicePhases {
  std::array<double, kDevicePhases> seconds{};
  double& operator[](DevicePhase p) { return seconds[static_cast<std::size_t>(p)]; }
  double operator[](DevicePhase p) const { return seconds[static_cast<std::size_t>(p)]; }
  DevicePhases operator-(const DevicePhases& o) const {
    DevicePhases d;
    for (std::size_t i = 0; i < kDevicePhases; ++i) d.seconds[i] = seconds[i] - o.seconds[i];
    return d;
  }
};

// What a CUDA kernel has moved, waited for and spent so far (secpe bench reports it per iteration).
struct DeviceTraffic {
  std::uint64_t bytes_up = 0;            // host -> device
  std::uint64_t bytes_down = 0;          // device -> host
  std::uint64_t syncs = 0;               // times the host waited for the device
  std::uint64_t batches = 0;             // search batches (each: one upload, one download, one wait)
  std::uint64_t host_rescored_rows = 0;  // rows rescored on the host (a candidate list overflowed, or the safe path)
  std::uint64_t check_failures = 0;      // built-in checks that failed (see CudaKernel)
  std::uint64_t releases = 0;            // SecPE releases made on the device (noisy_centre_means)
  DevicePhases phases;                   // with CudaKernelOptions::time_phases; zeros otherwise
  DeviceTraffic operator-(const DeviceTraffic& o) const {
    return {bytes_up - o.bytes_up, bytes_down - o.bytes_down, syncs - o.syncs, batches - o.batches,
            host_rescored_rows - o.host_rescored_rows, check_failures - o.check_failures, releases - o.releases,
            phases - o.phases};
  }
};

// A NearestCentreKernel on a CUDA device, with results equal to the reference kernel's bit for
// bit (as the blas kernel's): cuBLAS SGEMM and a bound select candidates, which are rescored
// exactly (on the device, else on the host). Kept rows stay in device memory.
// Built-in check (HPCG-style): the first batch of searches on the device is compared with the
// host's exact answer on sampled rows (every centre scored), later batches on one row each, the
// first per-centre sums of kept rows with the CPU's sums, the first release of SecPE's centres
// with the host's release of every centre, later ones on one centre per label. A disagreement is
// reported on stderr and counted (traffic().check_failures); from then on the kernel runs its
// safe path (rows streamed from the host, candidates rescored on the host, sums and releases on
// the CPU), and the call that failed is redone that way, so the results stay exact.
class CudaKernel : public NearestCentreKernel {
 public:
  virtual DeviceTraffic traffic() const = 0;
  std::uint64_t bytes_moved() const {
    const DeviceTraffic t = traffic();
    return t.bytes_up + t.bytes_down;
  }
  virtual std::string device_description() const = 0;  // "NVIDIA H100 80GB HBM3 (device 0)"
  virtual bool tf32() const = 0;                        // its screen: TF32 (CudaKernelOptions::tf32), else fp32
};

std::unique_ptr<CudaKernel> make_cuda_kernel(const CudaKernelOptions& options);

}  // namespace secpe
