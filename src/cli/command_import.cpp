// secpe import: its options, checked and handed to the import stage (import/import_dataset.hpp),
// which reads the corpus and writes the project's HDF5 dataset. Runs on one process.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "cli/options.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "evolve/private_state.hpp"
#include "import/import_dataset.hpp"
#include "io/corpus.hpp"
#include "text/learned_embedder.hpp"

namespace secpe::cli {
namespace {

// The dataset's creation time: now, or SOURCE_DATE_EPOCH's (the reproducible-builds convention:
// seconds since 1970) so that the same inputs import to the same bytes, and a run on them, whose
// noise is keyed by the dataset's bytes, can be repeated from the inputs alone.
std::string utc_now() {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  std::time_t t = std::time(nullptr);
  if (epoch) {
    char* end = nullptr;
    const long long seconds = std::strtoll(epoch, &end, 10);
    if (*epoch == '\0' || *end != '\0' || seconds < 0) throw InputError("SOURCE_DATE_EPOCH must be a count of seconds, not '" + std::string(epoch) + "'");
    t = static_cast<std::time_t>(seconds);
  }
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Label ids in sorted order of their values, so ids do not depend on record order.
// Label values are published with the synthetic data, so the text column cannot be a label and
// no label column may be named twice.
// --label-columns, or by default Aug-PE's label1,label2; a file whose header (a JSONL file's first
// record) holds the text column alone is one unlabelled corpus (PubMed). Any other header without
// the default columns is an error that lists its columns.
std::vector<std::string> label_columns_of(const po::variables_map& vm, const std::filesystem::path& input,
                                          const std::vector<std::string>& header) {
  const auto given = split_list(vm["label-columns"].as<std::string>(), ',');
  if (!vm["label-columns"].defaulted()) return given;
  const std::string& text = vm["text-column"].as<std::string>();
  if (is_text_alone(header, text)) {
    log_info(input.string() + " holds the text column '" + text + "' alone: imported as one unlabelled corpus (--label-columns names label columns)");
    return {};
  }
  for (const auto& column : given) {
    if (std::find(header.begin(), header.end(), column) != header.end()) continue;
    std::string names;
    for (const auto& h : header) names += (names.empty() ? "'" : ", '") + h + "'";
    throw InputError(input.string() + ": no label column '" + column + "' (the default --label-columns " + vm["label-columns"].as<std::string>() +
                     "); its columns are " + names + ": name the label columns with --label-columns, or --label-columns '' for none");
  }
  return given;
}

void check_label_columns(const std::vector<std::string>& columns, const std::string& text_column) {
  for (const auto& column : columns) {
    if (column == text_column) {
      throw InputError("--label-columns: '" + column + "' is the text column (--text-column); label values are "
                       "published with the synthetic data, so the text cannot be a label");
    }
    if (std::count(columns.begin(), columns.end(), column) > 1) throw InputError("--label-columns: '" + column + "' is named twice");
  }
}

// --secrets: a comma-separated list of modes, each at most once; their secrets are merged (a
// secret found by two modes counts once, under the first mode's category).
std::vector<std::string> parse_secret_modes(const std::string& text) {
  std::vector<std::string> modes = split_list(text, ',');
  if (modes.empty()) throw InputError("--secrets needs at least one of pii, random-word, list");
  for (const auto& mode : modes) {
    if (mode != "random-word" && mode != "list" && mode != "pii") {
      throw InputError("--secrets: unknown mode '" + mode + "' (pii, random-word, list, or several joined by commas)");
    }
    if (std::count(modes.begin(), modes.end(), mode) > 1) throw InputError("--secrets: '" + mode + "' is named twice");
  }
  return modes;
}

void describe_import_options(po::options_description& desc) {
  desc.add_options()
    ("input", po::value<std::string>()->default_value("data/demo/corpus.csv"), "corpus file to import")
    ("format", po::value<std::string>(), "augpe-csv or jsonl (default: jsonl for *.jsonl, else augpe-csv)")
    ("out", po::value<std::string>()->default_value("data/demo/demo.h5"), "dataset to write (HDF5); an existing one is refused unless --force")
    ("text-column", po::value<std::string>()->default_value("text"), "CSV column or JSON field holding the text")
    ("label-columns", po::value<std::string>()->default_value("label1,label2"), "comma-separated label columns or fields")
    ("label-prefixes", po::value<std::string>()->default_value("Business Category: |Review Stars: "),
     "'|'-separated prefixes stripped from each label column's values that carry them, and written back in synthetic.csv for the columns where some value did (Aug-PE's by default; '' for none)")
    ("on-bad-record", po::value<std::string>()->default_value("error"), "error: stop at the first bad record; skip: skip and count")
    ("secrets", po::value<std::string>()->default_value("random-word"),
     "secret detection: pii, random-word or list, or several joined by commas (pii,list)")
    ("secrets-file", po::value<std::string>(), "secrets list (one per line) for --secrets list")
    ("pii-categories", po::value<std::string>()->default_value("all"),
     "pii mode: the categories detected, comma-separated (EMAIL,PHONENUMBER,CREDITCARDNUMBER,IBAN,SSN,IPADDRESS,URL,DATE,TIME,ZIPCODE,STREET,PERSON) or all")
    ("embeddings", po::value<std::string>(), "precomputed embeddings (.npy float32/float64, or .h5) of one row per record, instead of an embedder")
    ("embeddings-dataset", po::value<std::string>()->default_value("embeddings"), "--embeddings .h5: the dataset holding them")
    ("embeddings-model", po::value<std::string>(), "--embeddings: the name of the model that made them (required)")
    ("secret-count", po::value<int>()->default_value(RandomWordOptions{}.count), "random-word mode: number of secret words (at most)")
    ("secret-quantile", po::value<double>()->default_value(RandomWordOptions{}.quantile, "0.2"), "random-word mode: frequency quantile the words are taken around")
    ("secret-max-private-share", po::value<double>()->default_value(RandomWordOptions{}.max_private_share, "0.3"),
     "random-word mode: take no word that would make more than this share of the records private (the next word out from the quantile is taken instead); 1: no limit, the paper's setting")
    ("embedder", po::value<std::string>()->default_value(kAutoEmbedder),
     ("auto (ppmi-sif where the public records hold enough words for it, else hashing), " + embedder_kinds_help()).c_str())
    ("embedding-dim", po::value<int>()->default_value(256), "embedding dimension (hashing, auto: 1 to 65536; tfidf-svd, ppmi-sif: 64 to 1024; http: the model's, checked when given)")
    ("state-dir", po::value<std::string>(), "--embedder http: private folder of the response cache (embeddings of private texts; default OUT.state). Never publish it")
    ("embedder-vocabulary", po::value<std::size_t>()->default_value(TfidfSvdOptions{}.vocabulary),
     "tfidf-svd, ppmi-sif: the terms (tfidf-svd: word unigrams and bigrams; ppmi-sif: words) of the public records kept, the most frequent first")
    ("embedder-min-df", po::value<std::size_t>()->default_value(TfidfSvdOptions{}.min_df),
     "tfidf-svd, ppmi-sif: a kept term occurs in at least this many public records")
    ("min-public-share", po::value<double>()->default_value(0.2, "0.2"),
     "warn when fewer than this share of a label's records are public (hold no secret)")
    ("allow-private-labels", po::bool_switch(), "import even when a label has no public record (it then gets no synthetic text); refused otherwise")
    ("threads", po::value<int>()->default_value(0), "threads for the embedding and the learned embedders' fit (0: the SECPE_THREADS environment variable if set, else all hardware threads)");
  add_force_option(desc, "--out");
}

std::vector<std::string> with_auto(std::vector<std::string> names) {
  names.insert(names.begin(), kAutoEmbedder);
  return names;
}

EmbedderChoice embedder_choice_from(const po::variables_map& vm, const std::filesystem::path& out, int threads) {
  EmbedderChoice c{.kind = vm["embedder"].as<std::string>(), .settings = {}};
  const bool automatic = c.kind == kAutoEmbedder;
  const EmbedderKind* kind = automatic ? nullptr : &embedder_kind(c.kind, kAutoEmbedder);  // an unknown one is refused, naming the known ones
  const bool learned = kind && kind->learned(), remote = kind && kind->remote();
  refuse_shared_api_key(vm);
  if (!remote) refuse_http_options(vm, {"embed-url", "embed-model", "embed-batch", "embed-api-key-env", "state-dir", "concurrency", "http-timeout", "http-retries", "http-backoff", "http-max-response-mb"}, "--embedder http");
  c.settings.state_dir = vm.count("state-dir") ? std::filesystem::path(vm["state-dir"].as<std::string>()) : default_state_dir(out);
  for (const char* name : {"embedder-vocabulary", "embedder-min-df"}) {
    if (!learned && !automatic && !vm[name].defaulted()) {
      throw InputError(std::string("--") + name + " applies to --embedder " + or_list(with_auto(embedder_kind_names(true))) + " only");
    }
  }
  const int dim = learned ? option_in(vm, "embedding-dim", kLearnedEmbedderMinDim, kLearnedEmbedderMaxDim) : option_in(vm, "embedding-dim", 1, 65536);
  if (remote) {
    c.settings.http = http_embedder_options(vm, true);
    c.settings.http.dim = vm["embedding-dim"].defaulted() ? 0 : dim;
    c.settings.http.cache_dir = c.settings.state_dir;
    c.settings.http.cache_writer = "import";
  }
  c.settings.fit = {.dim = dim,
                    .min_df = option_in<std::size_t>(vm, "embedder-min-df", 1, 1u << 30),
                    .vocabulary = option_in<std::size_t>(vm, "embedder-vocabulary", learned ? static_cast<std::size_t>(dim) : 1, 1u << 24),
                    .threads = threads};
  return c;
}

// --secrets and the options of its modes.
SecretChoice secret_choice_from(const po::variables_map& vm) {
  SecretChoice secret_choice{.modes = parse_secret_modes(vm["secrets"].as<std::string>()),
                             .secrets_file = {},
                             .random_word = {.count = option_in(vm, "secret-count", 1, 10000000),
                                             .quantile = option_in(vm, "secret-quantile", 0.0, 1.0),
                                             .max_private_share = option_in(vm, "secret-max-private-share", 0.0, 1.0)}};
  auto uses = [&](const char* mode) { return std::count(secret_choice.modes.begin(), secret_choice.modes.end(), mode) > 0; };
  if (uses("list") != (vm.count("secrets-file") > 0)) throw InputError("--secrets list and --secrets-file FILE come together");
  if (vm.count("secrets-file")) secret_choice.secrets_file = vm["secrets-file"].as<std::string>();
  if (!(secret_choice.random_word.max_private_share > 0)) throw InputError("--secret-max-private-share must be in (0, 1]");
  if (!uses("random-word")) {
    for (const char* name : {"secret-count", "secret-quantile", "secret-max-private-share"}) {
      if (!vm[name].defaulted()) throw InputError(std::string("--") + name + " applies to --secrets random-word only");
    }
  }
  if (!uses("pii") && !vm["pii-categories"].defaulted()) throw InputError("--pii-categories applies to --secrets pii only");
  try {
    secret_choice.pii_categories = parse_pii_categories(vm["pii-categories"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--pii-categories: ") + e.what());
  }
  return secret_choice;
}

// --embeddings (imported rows) and the embedder's options exclude each other.
void check_embeddings_options(const po::variables_map& vm, OnBadRecord on_bad) {
  if (vm.count("embeddings")) {
    for (const char* name : {"embedder", "embedding-dim", "embedder-vocabulary", "embedder-min-df"}) {
      if (!vm[name].defaulted()) throw InputError(std::string("--") + name + " and --embeddings exclude each other: imported embeddings bring their own model");
    }
    if (!vm.count("embeddings-model")) throw InputError("--embeddings needs --embeddings-model NAME, the model that made them");
    if (on_bad == OnBadRecord::kSkip) {
      throw InputError("--embeddings and --on-bad-record skip exclude each other: with records skipped, the rows no longer match the records");
    }
    if (vm["embeddings-model"].as<std::string>().empty()) throw InputError("--embeddings-model must not be empty");
  } else {
    if (!vm["embeddings-dataset"].defaulted()) throw InputError("--embeddings-dataset applies to --embeddings only");
    if (vm.count("embeddings-model")) throw InputError("--embeddings-model applies to --embeddings only");
  }
}


// Every option checked and turned into the stage's options, before any record is read.
ImportOptions import_options_from(const po::variables_map& vm) {
  ImportOptions o;
  o.input = vm["input"].as<std::string>();
  o.out = vm["out"].as<std::string>();
  check_new_output_file("out", o.out, vm["force"].as<bool>());
  o.created_utc = utc_now();  // here: a bad SOURCE_DATE_EPOCH fails before any work
  try {
    o.format = corpus_format(o.input, vm.count("format") ? vm["format"].as<std::string>() : "");
  } catch (const InputError& e) {
    throw InputError(std::string("--format ") + e.what());
  }
  o.header = read_column_names(o.input, o.format);  // for the label columns and their order
  o.read.text_column = vm["text-column"].as<std::string>();
  o.read.label_columns = label_columns_of(vm, o.input, o.header);
  check_label_columns(o.read.label_columns, o.read.text_column);
  o.read.label_prefixes = split_list(vm["label-prefixes"].as<std::string>(), '|');
  o.read.label_prefixes.resize(o.read.label_columns.size());
  o.min_public_share = option_in(vm, "min-public-share", 0.0, 1.0);
  o.allow_private_labels = vm["allow-private-labels"].as<bool>();
  o.threads = option_in(vm, "threads", 0, 65536);
  o.read.on_bad_record = parse_on_bad_record(vm["on-bad-record"].as<std::string>());
  o.embedder = embedder_choice_from(vm, o.out, o.threads);
  o.secrets = secret_choice_from(vm);
  o.pii_categories_given = vm["pii-categories"].as<std::string>();
  check_embeddings_options(vm, o.read.on_bad_record);
  if (vm.count("embeddings")) {
    o.imported = ImportedEmbeddingsChoice{.file = vm["embeddings"].as<std::string>(),
                                          .h5_dataset = vm["embeddings-dataset"].as<std::string>(),
                                          .model = vm["embeddings-model"].as<std::string>()};
  }
  return o;
}

}  // namespace

int command_import(const std::vector<std::string>& args) {
  po::options_description desc("secpe import options");
  add_common_options(desc);
  add_http_embedder_options(desc, false);
  add_http_client_options(desc);
  describe_import_options(desc);
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parse_options("import", "secpe import [--input] FILE [--format augpe-csv|jsonl] --out DATA.h5", desc, positional, args, vm)) return 0;
  import_dataset(import_options_from(vm));
  return 0;
}

}  // namespace secpe::cli
