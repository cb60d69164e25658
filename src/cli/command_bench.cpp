// secpe bench <name>: benchmarks with one frame (bench/bench_report.hpp) and JSON output.
#include <mpi.h>

#include <iostream>

#include "bench/bench_report.hpp"
#include "bench/histogram_bench.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace secpe::cli {
namespace {

constexpr const char* kBenchUsage =
    "usage: secpe bench <name> [options]   (secpe bench <name> --help)\n\n"
    "benchmarks:\n"
    "  histogram   per-iteration vote histogram, SecPE against Aug-PE, on an embedding dataset (MPI)\n";

// Options every benchmark takes.
void add_bench_options(po::options_description& desc) {
  desc.add_options()("out", po::value<std::string>()->default_value(""), "also write the JSON report to this file")(
      "kernel", po::value<std::string>()->default_value("reference"), "nearest-centre kernel")(
      "iterations", po::value<int>()->default_value(3), "timed repetitions")(
      "seed", po::value<std::uint64_t>()->default_value(1), "seed");
}

int bench_histogram_command(const std::vector<std::string>& args) {
  po::options_description desc("secpe bench histogram options");
  add_common_options(desc);
  add_bench_options(desc);
  HistogramBenchOptions o;
  desc.add_options()
    ("data", po::value<std::string>()->required(), "embedding dataset (e.g. from secpe synth-embeddings)")
    ("synthetic", po::value<std::size_t>(&o.synthetic)->default_value(o.synthetic), "N_syn over all labels")
    ("variations", po::value<int>(&o.variations)->default_value(o.variations), "L: candidates = N_syn (L + 1)")
    ("clusters", po::value<int>(&o.clusters)->default_value(o.clusters), "K per label")
    ("kmeans-iterations", po::value<int>(&o.kmeans_iterations)->default_value(o.kmeans_iterations), "Lloyd iterations of the setup")
    ("private-batch", po::value<double>(&o.private_batch)->default_value(o.private_batch, "1000"), "expected sampled private records per label")
    ("method", po::value<std::string>(&o.method)->default_value(o.method), "secpe, augpe or both")
    ("augpe-fraction", po::value<double>(&o.augpe_fraction)->default_value(o.augpe_fraction, "1"),
     "share of private records measured for Aug-PE (the rest is extrapolated by the cost model)");
  po::variables_map vm;
  if (!parse_options("bench", "[mpirun -n R] secpe bench histogram --data FILE.h5 [options]", desc, {}, args, vm)) return 0;
  o.data = vm["data"].as<std::string>();
  o.kernel = vm["kernel"].as<std::string>();
  o.iterations = vm["iterations"].as<int>();
  o.seed = vm["seed"].as<std::uint64_t>();
  if (!std::filesystem::is_regular_file(o.data)) throw InputError("--data: cannot read '" + o.data.string() + "'");

  MPI_Init(nullptr, nullptr);
  int code = 0;
  {
    const Communicator comm;
    set_log_rank(comm.rank());
    try {
      auto report = bench_frame("histogram", args, 1, comm.size());
      report["kernel"] = o.kernel;
      report["figures"] = bench_histogram(comm, o);
      if (comm.is_root()) emit_bench_report(report, vm["out"].as<std::string>());
    } catch (const std::exception& e) {
      std::cerr << "secpe: error: " << e.what() << std::endl;
      code = dynamic_cast<const InputError*>(&e) ? 2 : 1;
      if (comm.size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    }
  }
  MPI_Finalize();
  return code;
}

}  // namespace

int command_bench(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kBenchUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "histogram") return bench_histogram_command(rest);
  throw InputError("unknown benchmark '" + args[0] + "'\n" + kBenchUsage);
}

}  // namespace secpe::cli
