// secpe synth-embeddings: a Yelp-scale embedding dataset (no text) for scaling studies.
#include <filesystem>

#include "bench/synth_embeddings.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace secpe::cli {

int command_synth_embeddings(const std::vector<std::string>& args) {
  po::options_description desc("secpe synth-embeddings options");
  add_common_options(desc);
  SynthEmbeddingOptions o;
  desc.add_options()
    ("records", po::value<std::size_t>(&o.records)->default_value(o.records), "number of records")
    ("dim", po::value<int>(&o.dim)->default_value(o.dim), "embedding dimension")
    ("labels", po::value<std::string>(&o.labels)->default_value(o.labels), "yelp (50 labels, Yelp's skew) or a number of equal labels")
    ("secrets", po::value<int>(&o.secrets)->default_value(o.secrets), "number of secrets")
    ("private-fraction", po::value<double>(&o.private_fraction)->default_value(o.private_fraction, "0.3"), "share of records holding a secret")
    ("holders", po::value<std::string>(&o.holders)->default_value(o.holders), "who holds which secret: zipf (Zipf popularity) or demo (as secpe corpus plants them)")
    ("components", po::value<int>(&o.components)->default_value(o.components), "mixture components per label")
    ("private-components", po::value<int>(&o.private_components)->default_value(o.private_components), "extra components per label that only private records are drawn from (a subject the public records lack; 0: none)")
    ("spread", po::value<double>(&o.spread)->default_value(o.spread, "0.6"), "noise around each component centre")
    ("seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed), "seed")
    ("threads", po::value<unsigned>(&o.threads)->default_value(0), "threads (0: all)")
    ("out", po::value<std::string>()->required(), "dataset to write (HDF5)");
  add_force_option(desc, "--out");
  po::variables_map vm;
  if (!parse_options("synth-embeddings", "secpe synth-embeddings --records N --dim D --labels yelp --out FILE.h5", desc, {}, args, vm)) return 0;
  const std::filesystem::path out = vm["out"].as<std::string>();
  check_new_output_file("out", out, vm["force"].as<bool>());
  const Timer t0;
  const DatasetContents contents = synth_embeddings(o);
  const double generate = t0.seconds();
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_dataset(out, contents);
  const double total = t0.seconds();
  log_info("wrote " + out.string() + ": " + std::to_string(o.records) + " records x " + std::to_string(o.dim) + " in " +
           std::to_string(total) + " s (generation " + std::to_string(generate) + " s)");
  return 0;
}

}  // namespace secpe::cli
