// secpe blas-check: which OpenBLAS core runs here, whether it fits the CPU, and a quick self-test
// of it (sgemm within its rounding bound; the blas kernel bit for bit against the reference).
// jobs/blas-core.sh runs it under each candidate OPENBLAS_CORETYPE and keeps the best that passes.
// Exit codes: 0 pass, 3 the self-test failed or the loaded core is not --expect-core.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "compute/cpu/blas_core.hpp"

namespace secpe::cli {

int command_blas_check(const std::vector<std::string>& args) {
  po::options_description desc("secpe blas-check options");
  add_common_options(desc);
  desc.add_options()
    ("expect-core", po::value<std::string>(), "fail unless OpenBLAS loaded this core (it may ignore an OPENBLAS_CORETYPE it cannot run)")
    ("candidates", po::bool_switch(), "only list the cores faster than the loaded one that this CPU supports, best first");
  po::variables_map vm;
  if (!parse_options("blas-check", "secpe blas-check [--expect-core NAME] [--candidates]", desc, {}, args, vm)) return 0;
  const BlasCore core = blas_core();
  if (vm["candidates"].as<bool>()) {
    for (const auto& name : faster_cores(core.cpu_tier, core.tier)) std::cout << name << "\n";
    return 0;
  }
  std::cout << "openblas core  " << core.name << " (" << tier_name(core.tier) << " kernels; " << core.source << ")\n"
            << "cpu supports   " << tier_name(core.cpu_tier) << "\n";
  if (const auto warning = blas_core_warning(core)) std::cout << "note           " << *warning << "\n";
  if (vm.count("expect-core") && vm["expect-core"].as<std::string>() != core.name) {
    std::cout << "self-test      not run: OpenBLAS loaded " << core.name << ", not " << vm["expect-core"].as<std::string>() << "\n";
    return 3;
  }
  std::string report;
  const bool ok = blas_self_test(&report);
  std::cout << "self-test      " << (ok ? "pass" : "FAIL: " + report) << "\n";
  return ok ? 0 : 3;
}

}  // namespace secpe::cli
