#pragma once
// Kernel throughput measurement, for `secpe bench kernel`: the BLAS kernel's nearest-centre
// search against plain cblas_sgemm on the same shape (M queries x N centres x d dimensions,
// 2 M N d flops for both), on synthetic data (uniform in [-1, 1), fixed seed). On the cuda
// device: the CUDA kernel searching rows kept on the device (the centres' upload, the norms and
// the rescoring included) against cuBLAS SGEMM on data already there.
#include <cstdint>
#include <string>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cuda/cuda_backend.hpp"

namespace secpe {

struct KernelBenchConfig {
  Eigen::Index rows = 20000;     // M: queries
  Eigen::Index centres = 35000;  // N
  Eigen::Index dim = 768;        // d
  std::string kernel = "blas";   // the nearest-centre kernel measured (blas uses `blocking`)
  int threads = 1;               // the kernel's threads; OpenBLAS's threads for the sgemm baseline
  int k = 1;                     // results per row (search for 1, search_k otherwise)
  Metric metric = Metric::kL2;
  int repeats = 1;               // the best (wall) of this many timings is reported
  int verify_rows = 16;          // this many leading rows are checked against the reference (0: none)
  std::uint64_t seed = 1;
  BlasKernelOptions blocking{};  // the blas kernel's row_block / centre_block (its screen: `screen`, its threads: `threads`)
  std::string device = "cpu";    // a registered device (devices/registry.cpp), resolved: its kernel takes `kernel`'s place
  std::string screen = "auto";   // --screen, as the device reads it (cuda: TF32 for the kernel and cuBLAS alike)
};

struct KernelBenchResult {
  std::string kernel;            // the kernel that ran (its name(): blas, reference, cuda)
  double gflop = 0.0;            // 2 M N d / 1e9
  double kernel_seconds = 0.0;   // BlasKernel search (best of repeats)
  double kernel_gflops = 0.0;
  double sgemm_seconds = 0.0;    // cblas_sgemm X C^T, in row chunks of at most 2^26 outputs
  double sgemm_gflops = 0.0;
  double ratio = 0.0;            // kernel_gflops / sgemm_gflops
  // Process CPU seconds (all threads) of the timed runs: on a shared machine, where wall times
  // are inflated by other processes, gflop / cpu_seconds is the steadier per-core figure.
  double kernel_cpu_seconds = 0.0;
  double sgemm_cpu_seconds = 0.0;
  bool verified = true;          // verify_rows agree with the reference bit for bit
  std::string screen;            // the candidate screen that ran (blas: with its engine, screen_label; cuda: fp32 or tf32)
  std::string openblas_core;     // openblas_get_corename(), e.g. "Haswell"
  std::string openblas_config;   // openblas_get_config()
  std::string baseline = "OpenBLAS cblas_sgemm";
  std::string gpu;               // cuda: the device's name
  double bytes_moved = 0.0;      // cuda: host <-> device bytes per search (up + down)
  // cuda: the rows are kept on the device first (keep_seconds: their upload and norms), then one
  // untimed search (cuBLAS loads its kernels; the built-in check's full comparison), then the
  // timed ones; per timed search:
  double keep_seconds = 0.0;
  double bytes_up = 0.0, bytes_down = 0.0, syncs = 0.0, host_rescored_rows = 0.0;
  std::uint64_t check_failures = 0;  // the kernel's built-in check (CudaKernel): 0 unless something is wrong
  DevicePhases phases;               // cuda: where a timed search's time went, the mean of the timed searches
};

KernelBenchResult bench_kernel(const KernelBenchConfig& config);

// Plain cblas_sgemm X C^T on `threads` OpenBLAS threads (restored afterwards), its output in
// chunks of rows so that the M x N matrix never exists whole: the GEMM floor of a nearest-centre
// search of X against C, for the benchmarks' baselines.
void openblas_sgemm_floor(const MatrixF& x, const MatrixF& c, int threads);

}  // namespace secpe
