#include "compute/cpu/blas_core.hpp"

#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/nearest.hpp"
#include "compute/verify.hpp"

namespace secpe {
namespace {

IsaTier cpu_tier() {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (avx512 && __builtin_cpu_supports("avx512bf16")) return IsaTier::kAvx512Bf16;
  if (avx512) return IsaTier::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return IsaTier::kAvx2;
  if (__builtin_cpu_supports("avx")) return IsaTier::kAvx;
  return IsaTier::kSse;
}

MatrixF random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& gen) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  MatrixF m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = u(gen);
  return m;
}

}  // namespace

IsaTier core_tier(std::string_view name) {
  if (name == "Cooperlake" || name == "SapphireRapids") return IsaTier::kAvx512Bf16;
  if (name == "SkylakeX") return IsaTier::kAvx512;
  if (name == "Haswell" || name == "Zen") return IsaTier::kAvx2;
  if (name == "Sandybridge" || name == "Bulldozer" || name == "Piledriver" || name == "Steamroller" || name == "Excavator")
    return IsaTier::kAvx;
  for (const char* sse : {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Nano", "Opteron", "Opteron(SSE3)",
                          "Barcelona", "Bobcat", "Katmai", "Coppermine", "Northwood"})
    if (name == sse) return IsaTier::kSse;
  return IsaTier::kUnknown;
}

std::vector<std::string> faster_cores(IsaTier cpu, IsaTier current) {
  if (current == IsaTier::kUnknown) return {};  // not x86-64 or a core we do not know: leave it alone
  std::vector<std::string> out;
  const std::pair<IsaTier, const char*> best_first[] = {
      {IsaTier::kAvx512Bf16, "Cooperlake"}, {IsaTier::kAvx512, "SkylakeX"}, {IsaTier::kAvx2, "Haswell"}, {IsaTier::kAvx, "Sandybridge"}};
  for (const auto& [tier, name] : best_first)
    if (tier <= cpu && tier > current) out.push_back(name);
  return out;
}

BlasCore blas_core() {
  BlasCore core;
  core.name = openblas_get_corename();
  core.tier = core_tier(core.name);
  core.cpu_tier = cpu_tier();
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  const char* chosen = std::getenv("SECPE_BLAS_CORE_CHOSEN");
  core.source = !coretype ? "OpenBLAS's own detection"
                : chosen  ? "OPENBLAS_CORETYPE, chosen by jobs/blas-core.sh after a self-test"
                          : kCoreFromEnvironment;
  return core;
}

std::optional<std::string> blas_core_warning(const BlasCore& core) {
  const auto better = faster_cores(core.cpu_tier, core.tier);
  if (better.empty()) return std::nullopt;
  // jobs/blas-core.sh keeps a core the user (or the site) set, so pointing at it alone would not help then.
  const std::string fix = core.source == kCoreFromEnvironment
                              ? "OPENBLAS_CORETYPE=" + core.name + " is set in this environment and jobs/blas-core.sh keeps a core that is set: unset it to let the script choose the fastest core that passes secpe's self-test"
                              : "Source jobs/blas-core.sh (the job scripts do) to choose the fastest core that passes secpe's self-test";
  return "OpenBLAS runs its " + core.name + " (" + tier_name(core.tier) + ") kernels on a CPU with " + tier_name(core.cpu_tier) +
         ": sgemm, and so every search, may be several times slower. " + fix + ", or check one by hand: OPENBLAS_CORETYPE=" +
         better.front() + " secpe blas-check";
}

bool blas_self_test(std::string* report) {
  std::mt19937_64 gen(12345);
  // sgemm: every entry of A B^T within the standard bound gamma_k * sum |a||b| of the exact value.
  for (const auto [m, n, k] : {std::array<int, 3>{37, 29, 256}, std::array<int, 3>{64, 96, 768}, std::array<int, 3>{5, 300, 33}}) {
    const MatrixF a = random_matrix(m, k, gen), b = random_matrix(n, k, gen);
    MatrixF c(m, n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    const double u = 0x1.0p-24, gamma = k * u / (1 - k * u);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double exact = 0, magnitude = 0;
        for (int l = 0; l < k; ++l) {
          exact += double(a(i, l)) * double(b(j, l));
          magnitude += std::fabs(double(a(i, l)) * double(b(j, l)));
        }
        if (!(std::fabs(double(c(i, j)) - exact) <= gamma * magnitude + 1e-30)) {
          if (report) *report = "sgemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " is wrong at (" +
                                std::to_string(i) + ", " + std::to_string(j) + ")";
          return false;
        }
      }
  }
  // The exact nearest-centre kernel on top of it, with the fp32 screen and each narrow screen
  // that runs here (bf16: AMX or AVX512-BF16; int8: AVX512-VNNI or AVX-VNNI).
  const MatrixF x = random_matrix(300, 64, gen), centres = random_matrix(40, 64, gen);
  for (const BlasScreen screen : {BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kInt8}) {
    const BlasKernel kernel(BlasKernelOptions{.screen = screen});
    for (const Metric metric : {Metric::kCosine, Metric::kL2, Metric::kInnerProduct}) {
      std::string line;
      if (!verify_against_reference(kernel, x, centres, metric, &line, 3)) {
        if (report)
          *report = "the blas kernel (" + blas_screen_name(kernel.screen_for(centres.rows())) +
                    " screen) disagrees with the reference kernel (" + metric_name(metric) + "): " + line;
        return false;
      }
    }
  }
  return true;
}

}  // namespace secpe
