// secpe blas-check: which OpenBLAS core runs here, whether it fits the CPU, and a quick self-test
// of it (sgemm within its rounding bound; the blas kernel bit for bit against the reference, with
// every screen that runs here); the screen auto uses. jobs/blas-core.sh runs it under each
// candidate OPENBLAS_CORETYPE and keeps the best that passes, then measures the screens
// (--choose-screen) and exports the choice as SECPE_BLAS_SCREEN_AUTO.
// Exit codes: 0 pass, 3 the self-test failed or the loaded core is not --expect-core.
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "compute/cpu/blas_core.hpp"
#include "compute/cpu/screen_choice.hpp"

namespace secpe::cli {
namespace {

// The measurement behind --choose-screen: a table on stderr, the choice on stdout.
int choose_screen_command() {
  const ScreenChoice r = choose_screen();
  std::cerr << "screens (CPU seconds of one search: 2048 random unit rows, d 768, by centres)\n" << std::setw(24) << "centres";
  for (const int n : r.centres) std::cerr << std::setw(9) << n;
  std::cerr << "\n";
  for (const ScreenTimings& t : r.timings) {
    std::cerr << std::setw(24) << t.label;
    for (const double s : t.seconds) std::cerr << std::setw(9) << std::fixed << std::setprecision(4) << s;
    std::cerr << "\n";
  }
  std::cout << auto_screen_text(r.choice) << "\n";
  return 0;
}

}  // namespace

int command_blas_check(const std::vector<std::string>& args) {
  po::options_description desc("secpe blas-check options");
  add_common_options(desc);
  desc.add_options()
    ("expect-core", po::value<std::string>(), "fail unless OpenBLAS loaded this core (it may ignore an OPENBLAS_CORETYPE it cannot run)")
    ("candidates", po::bool_switch(), "only list the cores faster than the loaded one that this CPU supports, best first")
    ("choose-screen", po::bool_switch(), "measure the candidate screens that run here (a few seconds) and print auto's choice for SECPE_BLAS_SCREEN_AUTO: SCREEN:MIN_CENTRES tiers, then ;SCREEN=SPEEDUP, each narrow screen's speed over sgemm");
  po::variables_map vm;
  if (!parse_options("blas-check", "secpe blas-check [--expect-core NAME] [--candidates] [--choose-screen]", desc, {}, args, vm)) return 0;
  const BlasCore core = blas_core();
  if (vm["candidates"].as<bool>()) {
    for (const auto& name : faster_cores(core.cpu_tier, core.tier)) std::cout << name << "\n";
    return 0;
  }
  if (vm["choose-screen"].as<bool>()) return choose_screen_command();
  const AutoScreen screen = auto_screen();
  std::cout << "openblas core  " << core.name << " (" << tier_name(core.tier) << " kernels; " << core.source << ")\n"
            << "cpu supports   " << tier_name(core.cpu_tier) << "\n"
            << "screen auto    ";
  for (const AutoScreen::Tier& t : screen.tiers) std::cout << screen_label(t.screen) << " from " << t.min_centres << " centres; ";
  std::cout << (screen.tiers.empty() ? "fp32 (sgemm) always; " : "fp32 (sgemm) below; ") << screen.source << "\n";
  if (!screen.speedups.empty()) {
    const std::string text = auto_screen_text(screen);
    std::cout << "screen speed   " << text.substr(text.find(';') + 1) << " (times sgemm's, measured)\n";
  }
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
