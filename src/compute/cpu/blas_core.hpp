#pragma once
// Which OpenBLAS kernels ("core") run here, and whether they fit the CPU. OpenBLAS picks its core
// at load time from the CPUs it knows; a build older than the CPU (Debian 12's 0.3.21 on a newer
// Xeon) falls back to its generic Prescott (SSE3) kernels, a 4x loss on sgemm that nobody is told
// about. OPENBLAS_CORETYPE overrides the choice, but some builds compute wrong results with some
// cores on some CPUs, so a core is only ever chosen after a self-test (jobs/blas-core.sh runs
// `secpe blas-check` under each candidate and keeps the best that passes).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.hpp"

namespace secpe {

// Instruction-set tiers of x86-64 sgemm kernels, in order of speed.
enum class IsaTier : int { kUnknown = -1, kSse = 0, kAvx = 1, kAvx2 = 2, kAvx512 = 3, kAvx512Bf16 = 4 };

inline constexpr const char* kCoreFromEnvironment = "OPENBLAS_CORETYPE from the environment";

struct BlasCore {
  std::string name;          // openblas_get_corename()
  IsaTier tier;              // the tier of that core's kernels
  IsaTier cpu_tier;          // the best tier this CPU supports
  std::string source;        // who chose it: OpenBLAS itself, jobs/blas-core.sh, or the environment (kCoreFromEnvironment)
};

BlasCore blas_core();

// Pure helpers (tested): the tier of an OpenBLAS 0.3.x x86-64 core name (kUnknown for others),
// and the cores worth trying on a CPU of `cpu_tier` that are faster than `current`, best first.
IsaTier core_tier(std::string_view name);
std::vector<std::string> faster_cores(IsaTier cpu_tier, IsaTier current);
inline constexpr EnumNames<IsaTier, 6> kIsaTierNames{{{IsaTier::kAvx512Bf16, "AVX512-BF16"},
                                                      {IsaTier::kAvx512, "AVX-512"},
                                                      {IsaTier::kAvx2, "AVX2+FMA"},
                                                      {IsaTier::kAvx, "AVX"},
                                                      {IsaTier::kSse, "SSE"},
                                                      {IsaTier::kUnknown, "unknown"}}};
inline std::string tier_name(IsaTier tier) { return std::string(name_of(kIsaTierNames, tier)); }

// The one-line warning when the running core is slower than the CPU allows, with the fix.
std::optional<std::string> blas_core_warning(const BlasCore& core);

// A quick correctness check of the loaded core: sgemm on small random shapes against a double
// reference within a rigorous rounding bound, and the blas nearest-centre kernel (fp32 screen, and
// every narrow screen that runs here) against the reference kernel bit for bit. `report` gets one
// line on failure.
bool blas_self_test(std::string* report);

}  // namespace secpe
