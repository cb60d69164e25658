// secpe corpus: writes the built-in demo corpus (Aug-PE CSV) and the list of its planted secrets.
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "text/demo_corpus.hpp"

namespace secpe::cli {

int command_corpus(const std::vector<std::string>& args) {
  po::options_description desc("secpe corpus options");
  add_common_options(desc);
  desc.add_options()
    ("records", po::value<std::size_t>()->default_value(4000), "number of reviews")
    ("out", po::value<std::string>()->default_value("data/demo/corpus.csv"), "output CSV (Aug-PE format: text,label1,label2)")
    ("secrets-out", po::value<std::string>(), "where to write the planted secrets, one per line (default: OUT with .secrets.txt)")
    ("seed", po::value<std::uint64_t>()->default_value(7), "seed of the corpus generator")
    ("secret-rate", po::value<double>()->default_value(0.25, "0.25"), "fraction of reviews drawn for planted secrets, in [0, 1]; a label's first 3 reviews get none, nor a review that would put over half of its label's reviews private");
  add_force_option(desc, "--out and --secrets-out");
  po::variables_map vm;
  if (!parse_options("corpus", "secpe corpus [--records N] [--out FILE.csv]", desc, {}, args, vm)) return 0;

  DemoCorpusOptions options;
  options.records = option_in<std::size_t>(vm, "records", 1, 1000000000);
  options.seed = vm["seed"].as<std::uint64_t>();
  options.secret_rate = vm["secret-rate"].as<double>();
  if (!(options.secret_rate >= 0 && options.secret_rate <= 1)) throw InputError("--secret-rate must be in [0, 1]");
  const std::filesystem::path out = vm["out"].as<std::string>();
  std::filesystem::path secrets_out = out;
  secrets_out.replace_extension(".secrets.txt");
  if (vm.count("secrets-out")) secrets_out = vm["secrets-out"].as<std::string>();
  const bool force = vm["force"].as<bool>();
  check_new_output_file("out", out, force);
  check_new_output_file("secrets-out", secrets_out, force);

  const DemoCorpus demo = make_demo_corpus(options);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  if (secrets_out.has_parent_path()) std::filesystem::create_directories(secrets_out.parent_path());
  write_file_atomically(out, [&](std::ostream& o) {
    write_augpe_csv(o, demo.corpus.label_columns, demo.corpus.label_prefixes, demo.corpus.texts, demo.corpus.labels);
  }, FileAccess::kPrivate);  // a stand-in for a private corpus, planted secrets and all
  write_file_atomically(secrets_out, [&](std::ostream& o) {
    o << "# secrets planted in " << out.filename().string() << " (secpe corpus --seed " << options.seed << ")\n";
    for (const auto& s : demo.planted) o << s << "\n";
  }, FileAccess::kPrivate);
  log_info("wrote " + std::to_string(demo.corpus.texts.size()) + " reviews to " + out.string() + " and " +
           std::to_string(demo.planted.size()) + " planted secrets to " + secrets_out.string());
  return 0;
}

}  // namespace secpe::cli
