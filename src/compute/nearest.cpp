// The interface's defaults (every kernel may do better, none may answer differently) and its
// factory of the CPU's kernels, make_kernel (a device's kernel: devices/device_kind.hpp).
#include <stdexcept>
#include <string_view>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"

namespace secpe {

void NearestCentreKernel::search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                                   std::span<std::int32_t> nearest, std::span<double> score) const {
  ReferenceKernel().search_k(x, centres, metric, k, nearest, score);
}

void NearestCentreKernel::search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                                        std::span<double> score, std::span<std::int32_t> centre_nearest,
                                        std::span<double> centre_score) const {
  if (x.rows() == 0) return;
  search(x, centres, metric, nearest, score);
  search(centres, x, metric, centre_nearest, centre_score);
}

std::unique_ptr<KeptRows> NearestCentreKernel::keep(const MatrixF& rows) const { return std::make_unique<KeptRows>(rows); }

void NearestCentreKernel::search_batch(std::span<const SearchTask> tasks, Metric metric) const {
  for (const SearchTask& t : tasks) {
    const MatrixF& x = t.x->rows();
    if (!t.centre_nearest.empty()) {
      if (t.k != 1) throw std::logic_error("search_batch: a mutual search returns one nearest centre per row");
      search_mutual(x, *t.centres, metric, t.nearest, t.score, t.centre_nearest, t.centre_score);
    } else if (t.k == 1) {
      search(x, *t.centres, metric, t.nearest, t.score);
    } else {
      search_k(x, *t.centres, metric, t.k, t.nearest, t.score);
    }
  }
}

void NearestCentreKernel::search_kept(const KeptRows& x, const MatrixF& centres, Metric metric, int k,
                                      std::span<std::int32_t> nearest, std::span<double> score) const {
  const SearchTask task{.x = &x, .centres = &centres, .k = k, .nearest = nearest, .score = score};
  search_batch(std::span<const SearchTask>(&task, 1), metric);
}

namespace {

// The CPU's kernels --kernel names; a new one is a line here.
struct CpuKernel {
  std::string_view name;
  std::unique_ptr<NearestCentreKernel> (*make)(int threads);
};
constexpr CpuKernel kCpuKernels[] = {
    {"reference", [](int) -> std::unique_ptr<NearestCentreKernel> { return std::make_unique<ReferenceKernel>(); }},
    {"blas", [](int threads) -> std::unique_ptr<NearestCentreKernel> { return std::make_unique<BlasKernel>(BlasKernelOptions{.threads = threads}); }},
};

const CpuKernel& cpu_kernel(const std::string& name) {
  for (const CpuKernel& kernel : kCpuKernels)
    if (kernel.name == name) return kernel;
  std::vector<std::string> names;
  for (const CpuKernel& kernel : kCpuKernels) names.emplace_back(kernel.name);
  throw InputError("unknown compute kernel '" + name + "' (expected " + or_list(names) + ")");
}

}  // namespace

void check_kernel_name(const std::string& name) { cpu_kernel(name); }

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name, int threads) { return cpu_kernel(name).make(threads); }

}  // namespace secpe
