// secpe privacy plan: the r/p each of K equal runs on one dataset may take so that together they
// stay within a total (privacy/run_composition.hpp, equal_run_r), for --r-over-p and
// --total-r-over-p of secpe run.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "privacy/run_composition.hpp"

namespace secpe::cli {

int command_privacy_plan(const std::vector<std::string>& args) {
  po::options_description desc("secpe privacy plan options");
  add_common_options(desc);
  desc.add_options()
    ("runs", po::value<int>(), "runs K planned on one dataset (those already in its ledger included)")
    ("total-r-over-p", po::value<double>(), "the total r/p that all of them together may give any secret")
    ("p", po::value<double>()->default_value(1e-4, "1e-4"), "the secrets' prior p");
  po::variables_map vm;
  if (!parse_options("privacy", "secpe privacy plan --runs K --total-r-over-p R [--p P]", desc, {}, args, vm)) return 0;
  if (!vm.count("runs") || !vm.count("total-r-over-p")) throw InputError("give --runs K and --total-r-over-p R");
  const int runs = option_in(vm, "runs", 1, 100000);
  const double p = vm["p"].as<double>(), total = vm["total-r-over-p"].as<double>();
  if (!(p > 0 && p < 1)) throw InputError("--p must be in (0, 1)");
  if (!(total > 1 && total * p < 1)) throw InputError("--total-r-over-p must be above 1 and below 1 / p");
  const double each = equal_run_r(p, total * p, runs) / p;
  char text[160];
  std::snprintf(text, sizeof text, "%d run(s) within a total r/p of %.6g (p = %.3g): each run may take --r-over-p %.4g\n", runs, total, p, each);
  std::cout << text
            << "This is the Gaussian view (K runs of mu / sqrt(K) each compose to mu exactly). A run's real releases are mixtures\n"
               "that compose a little differently, so secpe run composes them exactly with the dataset's ledger and refuses a run\n"
               "over --total-r-over-p before any release: give it the total, and leave a margin.\n";
  return 0;
}

}  // namespace secpe::cli
