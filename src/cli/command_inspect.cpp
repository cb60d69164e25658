// secpe inspect: a summary of a dataset (.h5) or of a run's output folder. Prints counts and
// provenance, never record text.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/dataset_ledger.hpp"
#include "evolve/private_state.hpp"
#include "evolve/run_timings.hpp"
#include "io/corpus.hpp"
#include "io/dataset.hpp"

namespace secpe::cli {
namespace {

// --secrets: every secret by value, with its category and how many records hold it, so a user can
// judge the secrets an import chose (random words, detected PII). The dataset's owner's screen only:
// no other output or message of secpe names a secret by value.
void list_secrets(const DatasetReader& reader, const SecretMatrix& secrets) {
  const auto names = reader.secret_names();
  const auto categories = reader.secret_categories();
  std::vector<std::size_t> holders(names.size(), 0);
  for (std::size_t i = 0; i < secrets.rows(); ++i)
    for (const auto j : secrets.secrets_of(i)) ++holders[static_cast<std::size_t>(j)];
  std::cout << "\nsecrets by value (PRIVATE: never publish this listing)\n    #  records  category  secret\n";
  for (std::size_t j = 0; j < names.size(); ++j) {
    std::printf("%5zu %8zu  %-8s  %s\n", j, holders[j], j < categories.size() ? categories[j].c_str() : "?", names[j].c_str());
  }
}

// What the runs recorded in the privacy ledger spent on this dataset (found by content).
void show_ledger(const std::filesystem::path& path, const std::filesystem::path& ledger_dir) {
  try {
    const auto runs = DatasetLedger(ledger_dir).runs_of(dataset_digest(path));
    std::cout << "\nprivacy ledger " << ledger_dir.string() << ": " << runs.size() << " run(s) of this dataset recorded\n";
    if (!runs.empty()) std::cout << describe_runs(runs);
  } catch (const InputError& e) {
    std::cout << "\nprivacy ledger " << ledger_dir.string() << ": " << e.what() << "\n";
  }
}

void inspect_dataset(const std::filesystem::path& path, bool show_secrets, const std::filesystem::path& ledger_dir) {
  DatasetReader reader(path);
  const auto& info = reader.info();
  const auto labels = reader.label_ids(0, info.num_records);
  const auto secrets = reader.secrets(0, info.num_records);
  std::vector<std::size_t> total(info.labels.size()), pub(info.labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    ++total[static_cast<std::size_t>(labels[i])];
    if (!secrets.is_private(i)) ++pub[static_cast<std::size_t>(labels[i])];
  }
  std::size_t n_pub = 0;
  for (auto p : pub) n_pub += p;
  // Per category: how many secrets, and how many records hold one (never which secret).
  const auto categories = reader.secret_categories();
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_category;
  for (const auto& c : categories) ++by_category[c].first;
  for (std::size_t i = 0; i < secrets.rows(); ++i) {
    std::set<std::string> held;
    for (const auto j : secrets.secrets_of(i)) held.insert(categories[static_cast<std::size_t>(j)]);
    for (const auto& c : held) ++by_category[c].second;
  }
  std::cout << "dataset      " << path.string() << "\n"
            << "records      " << info.num_records << " (" << n_pub << " public, " << info.num_records - n_pub << " private)\n"
            << "labels       " << info.labels.size() << " (columns:";
  for (const auto& c : info.labels.columns) std::cout << " " << c;
  std::cout << ")\nsecrets      " << info.num_secrets << "\nembeddings   "
            << (info.embedding_dim ? std::to_string(info.embedding_dim) + "-d float32" : std::string("none")) << "\n"
            << "texts        " << (info.has_text ? "yes" : "no") << "\n";
  for (const auto& [k, v] : info.provenance) std::cout << "  " << k << " = " << v << "\n";
  std::cout << "\n  secrets  records  category (records holding a secret of it)\n";
  for (const auto& [category, counts] : by_category) std::printf("%9zu %8zu  %s\n", counts.first, counts.second, category.c_str());
  std::cout << "\n  id  records   public  private  label\n";
  for (std::size_t l = 0; l < info.labels.size(); ++l) {
    std::printf("%4zu %8zu %8zu %8zu  %s\n", l, total[l], pub[l], total[l] - pub[l], info.labels.display(l).c_str());
  }
  show_ledger(path, ledger_dir);
  if (show_secrets) list_secrets(reader, secrets);
}

template <class Json = nlohmann::json>
Json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path.string());
  try {
    return Json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw InputError(path.string() + ": not valid JSON");
  }
}

// How the candidates were made and voted on, from run.json's options and summary (all public): the
// generator, with the built-in one's label mode and topics (as resolved), the variation, and
// SecPE's votes per centre.
std::string generation_line(const nlohmann::json& run) {
  const nlohmann::json& options = run["options"];
  const std::string method = run.value("method", "");
  const auto option = [&](const char* name) { return options.value(name, std::string("?")); };
  std::string line = option("generator");
  if (line == "builtin") {
    line += ' ';
    line += option("generator-labels");
    std::string topics = option("generator-topics");
    if (run.contains("summary") && run["summary"].contains("generator_topics")) topics = std::to_string(run["summary"]["generator_topics"].get<int>());
    if (topics != "0" && topics != "?") line += " (" + topics + " topics)";
  }
  line += ", variation " + option("variation");
  if (method == "secpe") line += ", votes per centre " + option("votes-per-center");
  return line;
}

void inspect_output(const std::filesystem::path& dir) {
  // A run writes run.json last (core/atomic_file.hpp: write_file_set): without it the set is unfinished.
  if (!std::filesystem::is_regular_file(dir / "run.json")) {
    throw InputError(dir.string() + ": not a complete secpe output folder (no run.json, which a run writes last)");
  }
  for (const char* name : {"synthetic.csv", "privacy.json", "metrics.jsonl"}) {
    if (!std::filesystem::is_regular_file(dir / name)) throw InputError(dir.string() + ": not a secpe output folder (no " + name + ")");
  }
  const auto run = read_json(dir / "run.json");
  const auto privacy = read_json(dir / "privacy.json");
  std::cout << "output       " << dir.string() << "\n"
            << "method       " << run.value("method", "?") << ", " << run.value("ranks", 0) << " rank(s), seed "
            << run.value("seed", std::uint64_t{0}) << " (" << run.value("seed_source", "?") << ", public)\n"
            << "noise key    " << run.value("noise_key", "?") << "\n"
            << "budget       p = " << privacy["budget"].value("p", 0.0) << ", r = " << privacy["budget"].value("r", 0.0)
            << ", mu = " << privacy["budget"].value("mu", 0.0) << ", eps = " << privacy["equivalent_dp"].value("epsilon", 0.0)
            << " at delta = " << privacy["equivalent_dp"].value("delta", 0.0) << "\n"
            << "calibration  " << privacy["calibration"].value("mode", "?")
            << (privacy["calibration"].contains("lambda") ? ", lambda = " + privacy["calibration"]["lambda"].dump() : "")
            << (privacy.contains("all_secrets_within_budget")
                    ? std::string(privacy["all_secrets_within_budget"].get<bool>()
                                      ? ", every secret within its budget"
                                      : ", " + privacy.value("secrets_over_budget", nlohmann::ordered_json(0)).dump() + " SECRETS EXCEED THEIR BUDGET")
                    : "")
            << "\n"
            << "timings      private (they follow the private record count): secpe inspect on the run's state folder shows them\n";
  if (run.contains("options")) std::cout << "generation   " << generation_line(run) << "\n";
  if (privacy.contains("leak_scan")) {  // counts of PII patterns in the released texts (public)
    const auto& scan = privacy["leak_scan"];
    std::cout << "leak scan    " << scan["synthetic"].value("flagged", 0) << " of " << scan["synthetic"].value("texts", 0)
              << " synthetic texts show a PII pattern"
              << (scan.value("drop_leaking", false) ? " (dropped)" : " (kept: --drop-leaking drops them)") << "\n";
  }
  // The label columns as the run wrote them (none for an unlabelled corpus).
  CsvReadOptions options;
  options.label_columns.clear();
  for (const auto& column : read_column_names(dir / "synthetic.csv", CorpusFormat::kAugpeCsv))
    if (column != options.text_column) options.label_columns.push_back(column);
  options.label_prefixes.resize(options.label_columns.size());
  const Corpus synthetic = read_augpe_csv(dir / "synthetic.csv", options);
  std::map<std::vector<std::string>, std::size_t> counts;
  for (const auto& l : synthetic.labels) ++counts[l];
  std::cout << "synthetic    " << synthetic.texts.size() << " texts in " << counts.size() << " labels\n\n  count  sigma  label\n";
  std::map<std::string, double> sigma;
  for (const auto& l : privacy["labels"]) sigma[l.value("name", "")] = l.value("sigma", 0.0);
  for (const auto& [label, n] : counts) {
    std::string name;
    for (const auto& part : label) name += (name.empty() ? "" : " | ") + part;
    std::printf("%7zu  %5.2f  %s\n", n, sigma.count(name) ? sigma[name] : 0.0, name.c_str());
  }
}

void inspect_checkpoint(const std::filesystem::path& path) {
  const Checkpoint c = load_checkpoint(path, std::nullopt, nullptr);
  std::cout << "checkpoint   " << path.string() << " (checksum checked; its MAC needs the noise key: --resume checks it)\n"
            << "finished     " << c.labels.size() << " label(s)\n";
  for (const auto& [key, value] : c.fingerprint.items()) std::cout << "  " << key << " = " << value.dump() << "\n";
  std::cout << "\n  id  synthetic  iterations  label\n";
  for (const auto& [label, outcome] : c.labels) {
    std::printf("%4zu %10zu %11zu  %s\n", label, outcome.synthetic.size(), outcome.releases.size(),
                outcome.report.value("name", "").c_str());
  }
}

// timings.json (evolve/run_timings.hpp): the last invocation's stages, and per label the sums of
// the private timings of its iterations.
void inspect_timings(const std::filesystem::path& path) {
  const auto timings = read_json<nlohmann::ordered_json>(path);  // the stages in their order
  auto print_seconds = [](const nlohmann::ordered_json& seconds_by_name) {
    for (const auto& [name, seconds] : seconds_by_name.items()) std::printf("  %-22s %10.3f\n", name.c_str(), seconds.get<double>());
  };
  std::cout << "timings      wall seconds of the last invocation's stages\n";
  print_seconds(timings.value("run", nlohmann::ordered_json::object()));
  const auto steps = timings.value("evolve_steps", nlohmann::ordered_json::object());
  if (!steps.empty()) std::cout << "\n  evolution's steps, summed over labels and iterations\n";
  print_seconds(steps);
  std::map<long long, nlohmann::ordered_json> per_label;
  for (const auto& line : timings.value("iterations", nlohmann::ordered_json::array())) add_timings(per_label[line.value("label", -1LL)], line);
  if (!per_label.empty()) std::cout << "\n  label  seconds over its iterations\n";
  for (const auto& [label, sums] : per_label) {
    std::printf("  %5lld ", label);
    for (const auto& [key, seconds] : sums.items()) std::printf(" %s %.3f", key.c_str(), seconds.get<double>());
    std::cout << "\n";
  }
  std::cout << "\n";
}

// A run's private state folder: its calibration's per-label inputs (private counts), its timings and checkpoint.
void inspect_state(const std::filesystem::path& dir) {
  std::cout << "state folder " << dir.string() << " (PRIVATE: never publish it or this listing)\n";
  if (std::filesystem::is_regular_file(calibration_inputs_path(dir))) {
    const auto calibration = read_json(calibration_inputs_path(dir));
    std::cout << "calibration  " << calibration.value("calibration", "?") << "\n\n  id  private  batch used  lowered  sigma      label\n";
    for (const auto& l : calibration.value("labels", nlohmann::json::array())) {
      std::printf("%4lld %8lld %11.4g %8s  %-9.4g  %s\n", l.value("id", 0LL), l.value("private_records", 0LL), l.value("private_batch_used", 0.0),
                  l.value("batch_lowered", false) ? "yes" : "no", l.value("sigma", 0.0), l.value("name", "").c_str());
    }
    std::cout << "\n";
  }
  if (std::filesystem::is_regular_file(timings_path(dir))) inspect_timings(timings_path(dir));
  if (std::filesystem::is_regular_file(checkpoint_path(dir))) inspect_checkpoint(checkpoint_path(dir));
}

bool is_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  char first = 0;
  in >> first;
  return first == '{';
}

}  // namespace

int command_inspect(const std::vector<std::string>& args) {
  po::options_description desc("secpe inspect options");
  add_common_options(desc);
  desc.add_options()("file", po::value<std::string>()->required(), "dataset (.h5), checkpoint (checkpoint.json), output folder or private state folder")(
      "secrets", po::bool_switch(), "a dataset: list its secrets by value, with their category and holders (private: the owner's screen only)")(
      "ledger-dir", po::value<std::string>(), "a dataset: the privacy ledger whose runs of it to show (default: SECPE_LEDGER_DIR if set, else ~/.local/share/secpe/ledger)");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_options("inspect", "secpe inspect DATA.h5 [--secrets]|OUT.state/checkpoint.json|OUT|OUT.state", desc, positional, args, vm)) return 0;
  const std::filesystem::path path = vm["file"].as<std::string>();
  const bool state = std::filesystem::is_directory(path) && !std::filesystem::exists(path / "run.json") &&
                     (std::filesystem::exists(calibration_inputs_path(path)) || std::filesystem::exists(checkpoint_path(path)) ||
                      std::filesystem::exists(timings_path(path)));
  if (vm["secrets"].as<bool>() && !(std::filesystem::is_regular_file(path) && !is_json_file(path)))
    throw InputError("--secrets lists a dataset's secrets: give a dataset (.h5), not '" + path.string() + "'");
  if (state) inspect_state(path);
  else if (std::filesystem::is_directory(path)) inspect_output(path);
  else if (std::filesystem::is_regular_file(path) && is_json_file(path)) inspect_checkpoint(path);
  else if (std::filesystem::is_regular_file(path))
    inspect_dataset(path, vm["secrets"].as<bool>(), vm.count("ledger-dir") ? std::filesystem::path(vm["ledger-dir"].as<std::string>()) : default_ledger_dir());
  else throw InputError("cannot read '" + path.string() + "'");
  return 0;
}

}  // namespace secpe::cli
