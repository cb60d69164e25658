// secpe import: a corpus file -> the project's HDF5 dataset (texts, labels, secret matrix,
// embeddings, provenance). Runs on one process.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "evolve/private_state.hpp"
#include "io/corpus.hpp"
#include "io/dataset.hpp"
#include "io/imported_embeddings.hpp"
#include "evolve/dataset_embedder.hpp"
#include "text/embedder.hpp"
#include "text/ppmi_sif_embedder.hpp"
#include "text/tfidf_svd_embedder.hpp"
#include "text/secrets.hpp"

namespace secpe::cli {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Label ids in sorted order of their values, so ids do not depend on record order.
// Label values are published with the synthetic data, so the text column cannot be a label and
// no label column may be named twice.
void check_label_columns(const std::vector<std::string>& columns, const std::string& text_column) {
  for (const auto& column : columns) {
    if (column == text_column) {
      throw InputError("--label-columns: '" + column + "' is the text column (--text-column); label values are "
                       "published with the synthetic data, so the text cannot be a label");
    }
    if (std::count(columns.begin(), columns.end(), column) > 1) throw InputError("--label-columns: '" + column + "' is named twice");
  }
}

// Every label value is published, so one holding a secret would publish the secret: refused
// (the secret is named by its index, the value not at all).
void check_labels_hold_no_secret(const LabelSet& labels, const SecretSet& secrets) {
  for (std::size_t c = 0; c < labels.columns.size(); ++c) {
    std::vector<std::string> values;
    for (const auto& row : labels.values) values.push_back(row[c]);
    const SecretMatrix found = detect_secrets(values, secrets);
    for (std::size_t v = 0; v < found.rows(); ++v) {
      if (!found.is_private(v)) continue;
      throw InputError("a value of label column '" + labels.columns[c] + "' contains secret #" +
                       std::to_string(found.secrets_of(v)[0]) + " (index in the secrets list); labels are published "
                       "with the synthetic data, so a label must not hold a secret: change the label or the secrets list");
    }
  }
}

// Each label row's values joined, for choosing random-word secrets that no label contains.
std::vector<std::string> label_texts(const LabelSet& labels) {
  std::vector<std::string> out;
  for (const auto& row : labels.values) {
    std::string joined;
    for (const auto& value : row) joined += value + "\n";
    out.push_back(std::move(joined));
  }
  return out;
}

// The built-in embedder `kind`: hashing, or a learned one (tfidf-svd, ppmi-sif) fitted here, its
// model going into `contents`; auto is ppmi-sif, or hashing where ppmi-sif cannot be fitted (a
// dimension outside its range, or public records holding fewer words than the dimension).
std::unique_ptr<Embedder> builtin_embedder(const std::string& kind, const TfidfSvdOptions& options, const std::vector<std::string>& texts,
                                           DatasetContents& contents) {
  const auto hashing = [&] { return std::make_unique<HashingEmbedder>(options.dim); };
  if (kind == "hashing") return hashing();
  if (kind == "auto" && (options.dim < kLearnedEmbedderMinDim || options.dim > kLearnedEmbedderMaxDim)) {
    log_info("--embedder auto: the hashing embedder (ppmi-sif takes dimensions " + std::to_string(kLearnedEmbedderMinDim) + " to " +
             std::to_string(kLearnedEmbedderMaxDim) + ")");
    return hashing();
  }
  // The learned embedder sees the public records only: nothing in the model (vocabulary, weights,
  // projection) depends on a record that holds a secret.
  std::vector<std::string_view> public_texts;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!contents.secrets.is_private(i)) public_texts.push_back(texts[i]);
  }
  const bool words = kind != "tfidf-svd";
  log_info("fitting the " + std::string(words ? "ppmi-sif" : "tfidf-svd") + " embedder on " + std::to_string(public_texts.size()) + " public records");
  const Timer timer;
  std::unique_ptr<LearnedEmbedder> fitted;
  try {
    fitted = std::make_unique<LearnedEmbedder>(words ? fit_ppmi_sif(public_texts, {.dim = options.dim, .min_df = options.min_df, .vocabulary = options.vocabulary})
                                                     : fit_tfidf_svd(public_texts, options));
  } catch (const InputError& e) {
    if (kind != "auto") throw;
    log_warn(std::string(e.what()) + "; --embedder auto uses the hashing embedder instead");
    return hashing();
  }
  log_info(fitted->name() + " fitted in " + std::to_string(timer.seconds()) + " s");
  contents.embedder_model = {.terms = fitted->vectorizer().terms(), .idf = fitted->vectorizer().idf(), .projection = fitted->projection()};
  contents.provenance["embedder_public_records"] = std::to_string(public_texts.size());
  contents.provenance["embedder_min_df"] = std::to_string(options.min_df);
  contents.provenance["embedder_max_vocabulary"] = std::to_string(options.vocabulary);
  return fitted;
}

// Every text's embedding into contents.embeddings, in blocks, with progress.
void embed_all(const Embedder& embedder, const std::vector<std::string>& texts, DatasetContents& contents) {
  Progress progress("embed", texts.size());
  constexpr std::size_t kBlock = 8192;
  contents.embeddings.resize(static_cast<Eigen::Index>(texts.size()), embedder.dim());
  for (std::size_t b = 0; b < texts.size(); b += kBlock) {
    const std::size_t e = std::min(texts.size(), b + kBlock);
    MatrixF block;
    embedder.embed(std::span<const std::string>(texts).subspan(b, e - b), block);
    contents.embeddings.middleRows(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(e - b)) = block;
    progress.step(e);
  }
  progress.finish();
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

struct SecretChoice {
  std::vector<std::string> modes;
  std::string secrets_file;          // list mode
  int count = 100;                   // random-word mode
  double quantile = 0.2;
  PiiCategories pii_categories = kAllPiiCategories;
};

// The secrets of `texts` by every mode of `choice`, pii first (its detections join the matrix:
// text/secrets.hpp, choose_pii_secrets); `matrix` gets the records x secrets matrix.
SecretSet choose_secrets(const SecretChoice& choice, const std::vector<std::string>& texts, const LabelSet& labels,
                         SecretMatrix& matrix) {
  std::vector<SecretSet> sets;
  SecretMatrix detected;
  const bool pii = std::count(choice.modes.begin(), choice.modes.end(), "pii") > 0;
  if (pii) sets.push_back(choose_pii_secrets(texts, choice.pii_categories, &detected));
  for (const auto& mode : choice.modes) {
    if (mode == "list") sets.push_back(read_secret_list(choice.secrets_file));
    if (mode == "random-word") sets.push_back(choose_random_word_secrets(texts, choice.count, choice.quantile, label_texts(labels)));
  }
  SecretSet secrets = merge_secret_sets(sets);
  if (secrets.secrets.empty()) throw InputError("--secrets pii: no PII of the chosen categories in the corpus, so no secret and no private record");
  matrix = detect_secrets(texts, secrets);
  if (pii) {
    detected.num_secrets = matrix.num_secrets;
    matrix = secret_union(matrix, detected);
  }
  return secrets;
}

}  // namespace

int command_import(const std::vector<std::string>& args) {
  po::options_description desc("secpe import options");
  add_common_options(desc);
  add_http_embedder_options(desc, false);
  add_http_client_options(desc);
  desc.add_options()
    ("input", po::value<std::string>()->default_value("data/demo/corpus.csv"), "corpus file to import")
    ("format", po::value<std::string>(), "augpe-csv or jsonl (default: jsonl for *.jsonl, else augpe-csv)")
    ("out", po::value<std::string>()->default_value("data/demo/demo.h5"), "dataset to write (HDF5)")
    ("text-column", po::value<std::string>()->default_value("text"), "CSV column or JSON field holding the text")
    ("label-columns", po::value<std::string>()->default_value("label1,label2"), "comma-separated label columns or fields")
    ("label-prefixes", po::value<std::string>()->default_value("Business Category: |Review Stars: "),
     "'|'-separated prefixes stripped from each label column (Aug-PE's by default; '' for none)")
    ("on-bad-record", po::value<std::string>()->default_value("error"), "error: stop at the first bad record; skip: skip and count")
    ("secrets", po::value<std::string>()->default_value("random-word"),
     "secret detection: pii, random-word or list, or several joined by commas (pii,list)")
    ("secrets-file", po::value<std::string>(), "secrets list (one per line) for --secrets list")
    ("pii-categories", po::value<std::string>()->default_value("all"),
     "pii mode: the categories detected, comma-separated (EMAIL,PHONENUMBER,CREDITCARDNUMBER,IBAN,SSN,IPADDRESS,URL,DATE,TIME,ZIPCODE,STREET,PERSON) or all")
    ("embeddings", po::value<std::string>(), "precomputed embeddings (.npy float32/float64, or .h5) of one row per record, instead of an embedder")
    ("embeddings-dataset", po::value<std::string>()->default_value("embeddings"), "--embeddings .h5: the dataset holding them")
    ("embeddings-model", po::value<std::string>(), "--embeddings: the name of the model that made them (required)")
    ("secret-count", po::value<int>()->default_value(100), "random-word mode: number of secret words")
    ("secret-quantile", po::value<double>()->default_value(0.2, "0.2"), "random-word mode: frequency quantile the words are taken around")
    ("embedder", po::value<std::string>()->default_value("auto"),
     "auto (ppmi-sif where the public records hold enough words for it, else hashing), hashing (feature hashing, nothing learned), tfidf-svd (TF-IDF + truncated SVD learned from the public records only), "
     "ppmi-sif (word vectors of the factorised PPMI matrix of the public records' word co-occurrences, SIF-weighted) or "
     "http (a model behind an OpenAI-compatible /embeddings API, e.g. Text Embeddings Inference: EVERY text, private ones included, is sent there)")
    ("embedding-dim", po::value<int>()->default_value(256), "embedding dimension (hashing, auto: 1 to 65536; tfidf-svd, ppmi-sif: 64 to 1024; http: the model's, checked when given)")
    ("state-dir", po::value<std::string>(), "--embedder http: private folder of the response cache (embeddings of private texts; default OUT.state). Never publish it")
    ("embedder-vocabulary", po::value<std::size_t>()->default_value(TfidfSvdOptions{}.vocabulary),
     "tfidf-svd, ppmi-sif: the terms (tfidf-svd: word unigrams and bigrams; ppmi-sif: words) of the public records kept, the most frequent first")
    ("embedder-min-df", po::value<std::size_t>()->default_value(TfidfSvdOptions{}.min_df),
     "tfidf-svd, ppmi-sif: a kept term occurs in at least this many public records");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parse_options("import", "secpe import [--input] FILE [--format augpe-csv|jsonl] --out DATA.h5", desc, positional, args, vm)) return 0;

  const std::filesystem::path input = vm["input"].as<std::string>();
  const std::filesystem::path out = vm["out"].as<std::string>();
  check_output_file("out", out);
  std::string format = vm.count("format") ? vm["format"].as<std::string>() : (input.extension() == ".jsonl" ? "jsonl" : "augpe-csv");
  const auto columns = split_list(vm["label-columns"].as<std::string>(), ',');
  check_label_columns(columns, vm["text-column"].as<std::string>());
  auto prefixes = split_list(vm["label-prefixes"].as<std::string>(), '|');
  if (vm["label-prefixes"].defaulted() && format == "jsonl") prefixes.assign(columns.size(), "");
  prefixes.resize(columns.size());
  const auto on_bad = parse_on_bad_record(vm["on-bad-record"].as<std::string>());
  const std::string embedder_kind = vm["embedder"].as<std::string>();
  if (embedder_kind != "auto" && embedder_kind != "hashing" && embedder_kind != "tfidf-svd" && embedder_kind != "ppmi-sif" && embedder_kind != "http") {
    throw InputError("--embedder must be auto, hashing, tfidf-svd, ppmi-sif or http, not '" + embedder_kind + "'");
  }
  const bool learned = embedder_kind == "tfidf-svd" || embedder_kind == "ppmi-sif";
  const bool http = embedder_kind == "http";
  if (!http) refuse_http_options(vm, {"embed-url", "embed-model", "embed-batch", "state-dir", "api-key-env", "concurrency", "http-timeout", "http-retries", "http-backoff"}, "--embedder http");
  const std::filesystem::path state_dir = vm.count("state-dir") ? std::filesystem::path(vm["state-dir"].as<std::string>()) : default_state_dir(out);
  for (const char* name : {"embedder-vocabulary", "embedder-min-df"}) {
    if (!learned && embedder_kind != "auto" && !vm[name].defaulted()) {
      throw InputError(std::string("--") + name + " applies to --embedder auto, tfidf-svd or ppmi-sif only");
    }
  }
  int dim = learned ? option_in(vm, "embedding-dim", kLearnedEmbedderMinDim, kLearnedEmbedderMaxDim) : option_in(vm, "embedding-dim", 1, 65536);
  HttpEmbedderOptions http_options;
  if (http) {
    http_options = http_embedder_options(vm, true);
    http_options.dim = vm["embedding-dim"].defaulted() ? 0 : dim;
    http_options.cache_dir = state_dir;
    http_options.cache_writer = "import";
  }
  const TfidfSvdOptions svd_options{.dim = dim,
                                    .min_df = option_in<std::size_t>(vm, "embedder-min-df", 1, 1u << 30),
                                    .vocabulary = option_in<std::size_t>(vm, "embedder-vocabulary", learned ? static_cast<std::size_t>(dim) : 1, 1u << 24)};
  SecretChoice secret_choice{.modes = parse_secret_modes(vm["secrets"].as<std::string>()),
                             .secrets_file = {},
                             .count = option_in(vm, "secret-count", 1, 10000000),
                             .quantile = vm["secret-quantile"].as<double>()};
  auto uses = [&](const char* mode) { return std::count(secret_choice.modes.begin(), secret_choice.modes.end(), mode) > 0; };
  if (uses("list") != (vm.count("secrets-file") > 0)) throw InputError("--secrets list and --secrets-file FILE come together");
  if (vm.count("secrets-file")) secret_choice.secrets_file = vm["secrets-file"].as<std::string>();
  if (!(secret_choice.quantile >= 0 && secret_choice.quantile <= 1)) throw InputError("--secret-quantile must be in [0, 1]");
  if (!uses("pii") && !vm["pii-categories"].defaulted()) throw InputError("--pii-categories applies to --secrets pii only");
  try {
    secret_choice.pii_categories = parse_pii_categories(vm["pii-categories"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--pii-categories: ") + e.what());
  }
  const bool imported = vm.count("embeddings") > 0;
  if (imported) {
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

  Corpus corpus;
  if (format == "augpe-csv") {
    CsvReadOptions o;
    o.text_column = vm["text-column"].as<std::string>();
    o.label_columns = columns;
    o.label_prefixes = prefixes;
    o.on_bad_record = on_bad;
    corpus = read_augpe_csv(input, o);
  } else if (format == "jsonl") {
    JsonlReadOptions o;
    o.text_field = vm["text-column"].as<std::string>();
    o.label_fields = columns;
    o.label_prefixes = prefixes;
    o.on_bad_record = on_bad;
    corpus = read_jsonl(input, o);
  } else {
    throw InputError("--format must be augpe-csv or jsonl, not '" + format + "'");
  }
  if (corpus.texts.empty()) throw InputError(input.string() + ": no records");
  log_info("read " + std::to_string(corpus.texts.size()) + " records from " + input.string() +
           (corpus.bad_records_skipped ? " (" + std::to_string(corpus.bad_records_skipped) + " bad records skipped)" : ""));

  DatasetContents contents;
  contents.labels = build_labels(corpus, contents.label_ids);
  const Timer secrets_timer;
  const SecretSet secrets = choose_secrets(secret_choice, corpus.texts, contents.labels, contents.secrets);
  log_info("secrets (" + secrets.mode + ") chosen and detected in " + std::to_string(secrets_timer.seconds()) + " s");
  check_labels_hold_no_secret(contents.labels, secrets);
  contents.secret_names = secrets.secrets;
  contents.secret_categories = secrets.categories;
  std::size_t private_records = 0;
  for (std::size_t i = 0; i < contents.secrets.rows(); ++i) private_records += contents.secrets.is_private(i) ? 1 : 0;

  std::string embedder_name;
  if (imported) {
    const std::filesystem::path file = vm["embeddings"].as<std::string>();
    contents.embeddings = read_imported_embeddings(file, {.h5_dataset = vm["embeddings-dataset"].as<std::string>(), .rows = corpus.texts.size()});
    embedder_name = kImportedEmbedderName;
    contents.provenance["embedding_model"] = vm["embeddings-model"].as<std::string>();
    contents.provenance["embeddings_file"] = std::filesystem::absolute(file).string();
    log_info("imported " + std::to_string(contents.embeddings.cols()) + "-d embeddings of model " +
             contents.provenance["embedding_model"] + " from " + file.string() + " (rows L2-normalised)");
  } else {
    std::unique_ptr<Embedder> embedder;
    if (http) {
      embedder = std::make_unique<HttpEmbedder>(http_options);
      contents.provenance["embedder_url"] = http_options.client.base_url;
      contents.provenance["embedder_model"] = http_options.model;
      log_info("embedding with " + embedder->name() + " at " + http_options.client.base_url + "; response cache (private) in " + state_dir.string());
    } else {
      embedder = builtin_embedder(embedder_kind, svd_options, corpus.texts, contents);
    }
    embed_all(*embedder, corpus.texts, contents);
    embedder_name = embedder->name();
  }
  contents.texts = std::move(corpus.texts);
  contents.provenance.insert({{"source", std::filesystem::absolute(input).string()},
                              {"source_format", format},
                              {"created_utc", utc_now()},
                              {"secpe_version", SECPE_VERSION},
                              {"embedder", embedder_name},
                              {"embedding_dim", std::to_string(contents.embeddings.cols())},
                              {"secret_mode", secrets.mode},
                              {"secret_count", std::to_string(secrets.secrets.size())},
                              {"bad_records_skipped", std::to_string(corpus.bad_records_skipped)}});
  if (uses("random-word")) contents.provenance["secret_quantile"] = std::to_string(secret_choice.quantile);
  if (uses("pii")) contents.provenance["pii_categories"] = vm["pii-categories"].as<std::string>();
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_dataset(out, contents);
  log_info("wrote " + out.string() + ": " + std::to_string(contents.label_ids.size()) + " records, " +
           std::to_string(contents.labels.size()) + " labels, " + std::to_string(secrets.secrets.size()) + " secrets, " +
           std::to_string(private_records) + " private records, d = " + std::to_string(contents.embeddings.cols()));
  return 0;
}

}  // namespace secpe::cli
