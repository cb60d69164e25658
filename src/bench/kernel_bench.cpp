#include "bench/kernel_bench.hpp"

#include <memory>
#include <algorithm>
#include <cblas.h>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "bench/cuda/sgemm_bench.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "devices/device_kind.hpp"

namespace secpe {
namespace {

MatrixF random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  MatrixF m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = dist(gen);
  return m;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timing {
  double wall = 0.0, cpu = 0.0;
};

// The timed calls of both sides on one progress line (rank 0's stderr), as every long command shows
// it: at the default shape a call takes seconds on a GPU and tens of seconds on a CPU thread.
struct TimedCalls {
  Progress progress;
  std::size_t done = 0;
  void finished(const std::string& what) { progress.step(++done, what + " done"); }
};

// The best wall time of `repeats` runs, and the CPU time (all threads) of that run; each run is
// reported to `calls` as `name` and its number.
template <class F>
Timing best_of(int repeats, F&& f, TimedCalls& calls, const std::string& name) {
  Timing best;
  const int runs = std::max(1, repeats);
  for (int r = 0; r < runs; ++r) {
    const double c0 = process_cpu_seconds();
    const Timer t0;
    f();
    const double wall = t0.seconds();
    const double cpu = process_cpu_seconds() - c0;
    if (r == 0 || wall < best.wall) best = {wall, cpu};
    calls.finished(name + " " + std::to_string(r + 1) + "/" + std::to_string(runs));
  }
  return best;
}

// Baseline: plain sgemm on the same shape, OpenBLAS threaded its own way, output in chunks of rows.
void bench_openblas_sgemm(const KernelBenchConfig& config, const MatrixF& x, const MatrixF& c, KernelBenchResult& r, TimedCalls& calls) {
  const Timing st = best_of(config.repeats, [&] { openblas_sgemm_floor(x, c, config.threads); }, calls, "sgemm");
  r.sgemm_seconds = st.wall;
  r.sgemm_cpu_seconds = st.cpu;
}

// The leading verify_rows rows of the kernel's answer against the reference kernel, bit for bit.
void verify_head(const KernelBenchConfig& config, const MatrixF& x, const MatrixF& c, const std::vector<std::int32_t>& idx,
                 const std::vector<double>& score, KernelBenchResult& r) {
  const int k = std::max(1, config.k);
  const Eigen::Index check = std::min<Eigen::Index>(std::max(0, config.verify_rows), x.rows());
  if (check <= 0) return;
  const MatrixF head = x.topRows(check);
  std::vector<std::int32_t> ref_idx(static_cast<std::size_t>(check * k));
  std::vector<double> ref_score(ref_idx.size());
  ReferenceKernel().search_k(head, c, config.metric, k, ref_idx, ref_score);
  r.verified = std::equal(ref_idx.begin(), ref_idx.end(), idx.begin()) &&
               std::memcmp(ref_score.data(), score.data(), ref_score.size() * sizeof(double)) == 0;
}

}  // namespace

void openblas_sgemm_floor(const MatrixF& x, const MatrixF& c, int threads) {
  const Eigen::Index m = x.rows(), n = c.rows(), d = x.cols();
  if (m == 0 || n == 0) return;
  const int saved_threads = openblas_get_num_threads();
  openblas_set_num_threads(std::max(1, threads));
  const Eigen::Index chunk = std::clamp<Eigen::Index>((Eigen::Index(1) << 26) / n, 1, m);
  std::vector<float> out(static_cast<std::size_t>(chunk * n));
  for (Eigen::Index r0 = 0; r0 < m; r0 += chunk) {
    const Eigen::Index mb = std::min(chunk, m - r0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(mb), int(n), int(d), 1.0f, x.row(r0).data(), int(d),
                c.data(), int(d), 0.0f, out.data(), int(n));
  }
  openblas_set_num_threads(saved_threads);
}

KernelBenchResult bench_kernel(const KernelBenchConfig& config) {
  const Eigen::Index m = config.rows, n = config.centres, d = config.dim;
  const MatrixF x = random_matrix(m, d, config.seed);
  const MatrixF c = random_matrix(n, d, config.seed + 1);
  const int k = std::max(1, config.k);
  KernelBenchResult r;
  r.gflop = 2.0 * double(m) * double(n) * double(d) / 1e9;
  r.openblas_core = openblas_get_corename();
  r.openblas_config = openblas_get_config();

  const int threads = std::max(1, config.threads);
  std::unique_ptr<NearestCentreKernel> owned = device_kind(config.device).make_kernel(
      KernelRequest{.kernel = config.kernel, .threads = threads, .screen = config.screen, .time_phases = true});
  if (dynamic_cast<const BlasKernel*>(owned.get())) {  // with the benchmark's blocks (the device checked --screen)
    BlasKernelOptions options = config.blocking;
    options.threads = threads;
    options.screen = parse_blas_screen(config.screen);
    owned = std::make_unique<BlasKernel>(options);
  }
  const auto* cuda = dynamic_cast<const CudaKernel*>(owned.get());
  r.kernel = owned->name();
  if (cuda) r.screen = cuda->tf32() ? "tf32" : "fp32";
  if (const auto* blas = dynamic_cast<const BlasKernel*>(owned.get())) r.screen = screen_label(blas->screen_for(n));
  const NearestCentreKernel& kernel = *owned;
  std::vector<std::int32_t> idx(static_cast<std::size_t>(m * k));
  std::vector<double> score(idx.size());
  const Timer keep_timer;
  const std::unique_ptr<KeptRows> kept = kernel.keep(x);
  r.keep_seconds = keep_timer.seconds();
  const auto search = [&] { kernel.search_kept(*kept, c, config.metric, k, idx, score); };
  if (cuda) search();  // untimed: cuBLAS loads its kernels, and the built-in check compares sampled rows in full
  const DeviceTraffic before = cuda ? cuda->traffic() : DeviceTraffic{};
  // The kernel's runs, then the baseline's: sgemm's runs, or cuBLAS's timing as one call.
  const auto runs = static_cast<std::size_t>(std::max(1, config.repeats));
  TimedCalls calls{Progress("bench kernel", runs + (cuda ? 1 : runs))};
  const Timing kt = best_of(config.repeats, search, calls, "kernel");
  r.kernel_seconds = kt.wall;
  r.kernel_cpu_seconds = kt.cpu;
  if (cuda) {
    const GemmShape shape{m, n, d};
    r.sgemm_seconds = cuda_gemm_seconds(std::span<const GemmShape>(&shape, 1), config.repeats, cuda->tf32());
    calls.finished("cuBLAS sgemm");
    r.baseline = cuda->tf32() ? "cuBLAS cublasSgemm (TF32)" : "cuBLAS cublasSgemm";
    r.gpu = cuda->device_description();
    const DeviceTraffic t = cuda->traffic() - before;
    const double per = 1.0 / double(std::max(1, config.repeats));
    r.bytes_up = double(t.bytes_up) * per, r.bytes_down = double(t.bytes_down) * per;
    r.bytes_moved = r.bytes_up + r.bytes_down;
    r.syncs = double(t.syncs) * per, r.host_rescored_rows = double(t.host_rescored_rows) * per;
    for (std::size_t p = 0; p < kDevicePhases; ++p) r.phases.seconds[p] = t.phases.seconds[p] * per;
    r.check_failures = cuda->traffic().check_failures;
  } else {
    bench_openblas_sgemm(config, x, c, r, calls);
  }
  calls.progress.finish();
  r.kernel_gflops = r.gflop / r.kernel_seconds;
  r.sgemm_gflops = r.gflop / r.sgemm_seconds;
  r.ratio = r.kernel_gflops / r.sgemm_gflops;
  verify_head(config, x, c, idx, score, r);
  return r;
}

#ifndef SECPE_HAVE_CUDA
double cuda_gemm_seconds(std::span<const GemmShape>, int, bool) {
  throw InputError("this secpe was built without CUDA: no cuBLAS baseline");
}
#endif

}  // namespace secpe
