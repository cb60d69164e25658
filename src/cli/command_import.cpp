// secpe import: a corpus file -> the project's HDF5 dataset (texts, labels, secret matrix,
// embeddings, provenance). Runs on one process.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <mutex>

#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "cli/options.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
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

// Every label needs public records: the generator learns from them and N_syn follows their label
// counts, so a label without one gets no synthetic text (and a dataset without any cannot run).
// Refused unless `allow`; labels with a public share under `min_share` are named in a warning.
// Public counts are public (records without a secret); the messages give no private count.
void check_public_share(const DatasetContents& contents, double min_share, bool allow) {
  std::vector<std::int64_t> records(contents.labels.size(), 0), public_records(contents.labels.size(), 0);
  for (std::size_t i = 0; i < contents.label_ids.size(); ++i) {
    const auto l = static_cast<std::size_t>(contents.label_ids[i]);
    ++records[l];
    public_records[l] += contents.secrets.is_private(i) ? 0 : 1;
  }
  std::string none, low;
  std::size_t none_count = 0, low_count = 0;
  for (std::size_t l = 0; l < records.size(); ++l) {
    std::string name = "'";  // (built in steps: GCC 12 warns wrongly about "'" + string)
    name += contents.labels.display(l);
    name += "'";
    if (public_records[l] == 0) {
      if (none_count++ < 10) none += (none.empty() ? "" : ", ") + name;
    } else if (double(public_records[l]) < min_share * double(records[l])) {
      if (low_count++ < 10) low += (low.empty() ? "" : ", ") + name + " (" + std::to_string(public_records[l]) + " public)";
    }
  }
  const std::string change = "choose fewer or rarer secrets (--secret-count, --secret-quantile, a shorter --secrets-file, fewer --pii-categories)";
  if (low_count > 0) {
    log_warn(std::to_string(low_count) + " label(s) have less than " + std::to_string(int(std::lround(100 * min_share))) +
             "% public records (--min-public-share): " + low + (low_count > 10 ? ", ..." : "") +
             "; their synthetic text learns from few examples: " + change + " to keep more records public");
  }
  if (none_count == 0) return;
  const std::string what = std::to_string(none_count) + " label(s) have no public record (every record holds a secret): " + none +
                           (none_count > 10 ? ", ..." : "") +
                           ". The generator learns from public records only and N_syn follows their label counts, so ";
  if (allow) {
    log_warn(what + "these labels get no synthetic text (--allow-private-labels)");
    return;
  }
  throw InputError(what + "these labels would get no synthetic text: " + change +
                   ", or import anyway with --allow-private-labels");
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
    fitted = std::make_unique<LearnedEmbedder>(
        words ? fit_ppmi_sif(public_texts, {.dim = options.dim, .min_df = options.min_df, .vocabulary = options.vocabulary, .threads = options.threads})
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

// Every text's embedding into contents.embeddings, in blocks of rows embedded on `threads` threads
// (each row's embedding is the text's alone, so the thread count changes nothing), with progress.
void embed_all(const Embedder& embedder, const std::vector<std::string>& texts, int threads, DatasetContents& contents) {
  Progress progress("import: embed", texts.size());
  constexpr std::size_t kBlock = 2048;
  contents.embeddings.resize(static_cast<Eigen::Index>(texts.size()), embedder.dim());
  const std::size_t blocks = (texts.size() + kBlock - 1) / kBlock;
  std::atomic<std::size_t> done{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  run_chunks(std::min<int>(threads, static_cast<int>(blocks)), blocks, [&](int chunk, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t b = k * kBlock, e = std::min(texts.size(), b + kBlock);
      try {
        MatrixF block;
        embedder.embed(std::span<const std::string>(texts).subspan(b, e - b), block);
        contents.embeddings.middleRows(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(e - b)) = block;
      } catch (const ContextOverflowError& overflow) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::make_exception_ptr(overflow.about("record #" + std::to_string(b + overflow.index()) + " (0-based, in input order)"));
        return;
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        return;
      }
      done += e - b;
      if (chunk == 0) progress.step(done);  // one thread reports
    }
  });
  if (error) std::rethrow_exception(error);
  progress.finish();
}

// The corpus, CSV read in chunks with progress (a large file takes a while), JSON lines whole.
Corpus read_input(const std::filesystem::path& input, CorpusFormat format, const CsvReadOptions& options) {
  if (format == CorpusFormat::kJsonl) return read_corpus(input, format, options);
  AugpeCsvStream stream(input, options);
  Progress progress("import: read (bytes)", stream.file_size(), 5.0);
  Corpus corpus, chunk;
  while (stream.next(65536, chunk)) {
    corpus.texts.insert(corpus.texts.end(), std::make_move_iterator(chunk.texts.begin()), std::make_move_iterator(chunk.texts.end()));
    corpus.labels.insert(corpus.labels.end(), std::make_move_iterator(chunk.labels.begin()), std::make_move_iterator(chunk.labels.end()));
    corpus.label_columns = chunk.label_columns;
    corpus.label_prefixes = chunk.label_prefixes;
    progress.step(stream.bytes_read(), std::to_string(corpus.texts.size()) + " records");
  }
  corpus.bad_records_skipped = stream.bad_records_skipped();
  progress.finish(std::to_string(corpus.texts.size()) + " records");
  return corpus;
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
  RandomWordOptions random_word;     // random-word mode
  PiiCategories pii_categories = kAllPiiCategories;
};

// The secrets of `texts` by every mode of `choice`, pii first (its detections join the matrix:
// text/secrets.hpp, choose_pii_secrets); `matrix` gets the records x secrets matrix.
SecretSet choose_secrets(const SecretChoice& choice, const std::vector<std::string>& texts, const LabelSet& labels,
                         const std::vector<std::int32_t>& label_ids, SecretMatrix& matrix) {
  std::vector<SecretSet> sets;
  SecretMatrix detected;
  const bool pii = std::count(choice.modes.begin(), choice.modes.end(), "pii") > 0;
  if (pii) sets.push_back(choose_pii_secrets(texts, choice.pii_categories, &detected));
  for (const auto& mode : choice.modes) {
    if (mode == "list") sets.push_back(read_secret_list(choice.secrets_file));
    if (mode != "random-word") continue;
    try {
      sets.push_back(choose_random_word_secrets(texts, choice.random_word, label_texts(labels), label_ids));
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (--secret-max-private-share; a --secret-quantile nearer 1 takes rarer words)");
    }
    if (sets.back().secrets.size() < static_cast<std::size_t>(choice.random_word.count)) {
      log_info("random-word: " + std::to_string(sets.back().secrets.size()) + " of the " + std::to_string(choice.random_word.count) +
               " secret words asked for were taken: more would have made over " +
               std::to_string(int(std::lround(100 * choice.random_word.max_private_share))) +
               "% of the records, or every record of some label, private (--secret-max-private-share; 1 takes the words near "
               "the quantile whatever they cost)");
    }
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
    ("embedder", po::value<std::string>()->default_value("auto"),
     "auto (ppmi-sif where the public records hold enough words for it, else hashing), hashing (feature hashing, nothing learned), tfidf-svd (TF-IDF + truncated SVD learned from the public records only), "
     "ppmi-sif (word vectors of the factorised PPMI matrix of the public records' word co-occurrences, SIF-weighted) or "
     "http (a model behind an OpenAI-compatible /embeddings API, e.g. Text Embeddings Inference: EVERY text, private ones included, is sent there)")
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

// The built-in or HTTP embedder the options ask for (imported embeddings are checked apart).
struct EmbedderChoice {
  std::string kind;                    // --embedder
  bool learned = false, http = false;  // tfidf-svd or ppmi-sif; http
  HttpEmbedderOptions http_options;    // http
  TfidfSvdOptions svd_options;         // hashing (its dim) and the learned embedders
  std::filesystem::path state_dir;     // http: the private response cache
};

EmbedderChoice embedder_choice_from(const po::variables_map& vm, const std::filesystem::path& out, int threads) {
  EmbedderChoice c;
  const std::string embedder_kind = vm["embedder"].as<std::string>();
  if (embedder_kind != "auto" && embedder_kind != "hashing" && embedder_kind != "tfidf-svd" && embedder_kind != "ppmi-sif" && embedder_kind != "http") {
    throw InputError("--embedder must be auto, hashing, tfidf-svd, ppmi-sif or http, not '" + embedder_kind + "'");
  }
  c.kind = embedder_kind;
  c.learned = embedder_kind == "tfidf-svd" || embedder_kind == "ppmi-sif";
  c.http = embedder_kind == "http";
  refuse_shared_api_key(vm);
  if (!c.http) refuse_http_options(vm, {"embed-url", "embed-model", "embed-batch", "embed-api-key-env", "state-dir", "concurrency", "http-timeout", "http-retries", "http-backoff", "http-max-response-mb"}, "--embedder http");
  c.state_dir = vm.count("state-dir") ? std::filesystem::path(vm["state-dir"].as<std::string>()) : default_state_dir(out);
  for (const char* name : {"embedder-vocabulary", "embedder-min-df"}) {
    if (!c.learned && embedder_kind != "auto" && !vm[name].defaulted()) {
      throw InputError(std::string("--") + name + " applies to --embedder auto, tfidf-svd or ppmi-sif only");
    }
  }
  const int dim = c.learned ? option_in(vm, "embedding-dim", kLearnedEmbedderMinDim, kLearnedEmbedderMaxDim) : option_in(vm, "embedding-dim", 1, 65536);
  if (c.http) {
    c.http_options = http_embedder_options(vm, true);
    c.http_options.dim = vm["embedding-dim"].defaulted() ? 0 : dim;
    c.http_options.cache_dir = c.state_dir;
    c.http_options.cache_writer = "import";
  }
  c.svd_options = {.dim = dim,
                   .min_df = option_in<std::size_t>(vm, "embedder-min-df", 1, 1u << 30),
                   .vocabulary = option_in<std::size_t>(vm, "embedder-vocabulary", c.learned ? static_cast<std::size_t>(dim) : 1, 1u << 24),
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

}  // namespace

// Stage "embed": every record's embedding into `contents`, read from --embeddings or made by the
// chosen embedder; returns the embedder's name for the provenance.
std::string embed_records(const po::variables_map& vm, const EmbedderChoice& embedding, int threads,
                          const std::vector<std::string>& texts, DatasetContents& contents) {
  if (vm.count("embeddings")) {
    const std::filesystem::path file = vm["embeddings"].as<std::string>();
    contents.embeddings = read_imported_embeddings(file, {.h5_dataset = vm["embeddings-dataset"].as<std::string>(), .rows = texts.size()});
    contents.provenance["embedding_model"] = vm["embeddings-model"].as<std::string>();
    contents.provenance["embeddings_file"] = file.filename().string();  // a name: a path may say more than the dataset should
    log_info("imported " + std::to_string(contents.embeddings.cols()) + "-d embeddings of model " +
             contents.provenance["embedding_model"] + " from " + file.string() + " (rows L2-normalised)");
    return kImportedEmbedderName;
  }
  std::unique_ptr<Embedder> embedder;
  if (embedding.http) {
    embedder = std::make_unique<HttpEmbedder>(embedding.http_options);
    contents.provenance["embedder_url"] = embedding.http_options.client.base_url;
    contents.provenance["embedder_model"] = embedding.http_options.model;
    log_info("embedding with " + embedder->name() + " at " + embedding.http_options.client.base_url + "; response cache (private) in " +
             embedding.state_dir.string());
  } else {
    embedder = builtin_embedder(embedding.kind, embedding.svd_options, texts, contents);
  }
  embed_all(*embedder, texts, embedding.http ? 1 : (threads > 0 ? threads : default_threads()), contents);
  return embedder->name();
}

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

  const std::filesystem::path input = vm["input"].as<std::string>();
  const std::filesystem::path out = vm["out"].as<std::string>();
  check_new_output_file("out", out, vm["force"].as<bool>());
  const std::string created_utc = utc_now();  // here: a bad SOURCE_DATE_EPOCH fails before any work
  CorpusFormat format;
  try {
    format = corpus_format(input, vm.count("format") ? vm["format"].as<std::string>() : "");
  } catch (const InputError& e) {
    throw InputError(std::string("--format ") + e.what());
  }
  const std::vector<std::string> header = read_column_names(input, format);  // for the label columns and their order
  const auto columns = label_columns_of(vm, input, header);
  check_label_columns(columns, vm["text-column"].as<std::string>());
  auto prefixes = split_list(vm["label-prefixes"].as<std::string>(), '|');
  prefixes.resize(columns.size());
  const double min_public_share = option_in(vm, "min-public-share", 0.0, 1.0);
  const int threads = option_in(vm, "threads", 0, 65536);
  const auto on_bad = parse_on_bad_record(vm["on-bad-record"].as<std::string>());
  const EmbedderChoice embedding = embedder_choice_from(vm, out, threads);
  const SecretChoice secret_choice = secret_choice_from(vm);
  auto uses = [&](const char* mode) { return std::count(secret_choice.modes.begin(), secret_choice.modes.end(), mode) > 0; };
  check_embeddings_options(vm, on_bad);

  Corpus corpus = read_input(input, format, {.text_column = vm["text-column"].as<std::string>(),
                                                     .label_columns = columns,
                                                     .label_prefixes = prefixes,
                                                     .on_bad_record = on_bad});
  if (corpus.texts.empty()) throw InputError(input.string() + ": no records");
  log_info("read " + std::to_string(corpus.texts.size()) + " records from " + input.string() +
           (corpus.bad_records_skipped ? " (" + std::to_string(corpus.bad_records_skipped) + " bad records skipped)" : ""));

  DatasetContents contents;
  contents.labels = build_labels(corpus, contents.label_ids);
  const Timer secrets_timer;
  const SecretSet secrets = choose_secrets(secret_choice, corpus.texts, contents.labels, contents.label_ids, contents.secrets);
  log_info("secrets (" + secrets.mode + ") chosen and detected in " + std::to_string(secrets_timer.seconds()) + " s");
  check_labels_hold_no_secret(contents.labels, secrets);
  check_public_share(contents, min_public_share, vm["allow-private-labels"].as<bool>());
  contents.secret_names = secrets.secrets;
  contents.secret_categories = secrets.categories;
  std::size_t private_records = 0;
  for (std::size_t i = 0; i < contents.secrets.rows(); ++i) private_records += contents.secrets.is_private(i) ? 1 : 0;

  const std::string embedder_name = embed_records(vm, embedding, threads, corpus.texts, contents);
  contents.texts = std::move(corpus.texts);
  // Input files by name only (the secrets list's too, in secret_mode): run.json shows this
  // provenance, and a path may say more about the data than a published file should.
  contents.provenance.insert({{"source", input.filename().string()},
                              {"source_format", format == CorpusFormat::kJsonl ? "jsonl" : "augpe-csv"},
                              {"created_utc", created_utc},
                              {"secpe_version", build_info().version},
                              {"embedder", embedder_name},
                              {"embedding_dim", std::to_string(contents.embeddings.cols())},
                              {"secret_mode", secrets.mode},
                              {"secret_count", std::to_string(secrets.secrets.size())},
                              {"bad_records_skipped", std::to_string(corpus.bad_records_skipped)}});
  // synthetic.csv keeps a CSV's column order (a JSON object's fields keep none through parsing).
  const std::vector<int> order = format == CorpusFormat::kAugpeCsv ? input_column_order(header, vm["text-column"].as<std::string>(), columns) : std::vector<int>{};
  if (!order.empty()) contents.provenance["column_order"] = column_order_text(order);
  if (uses("random-word")) {
    contents.provenance["secret_quantile"] = std::to_string(secret_choice.random_word.quantile);
    contents.provenance["secret_max_private_share"] = std::to_string(secret_choice.random_word.max_private_share);
  }
  if (uses("pii")) contents.provenance["pii_categories"] = vm["pii-categories"].as<std::string>();
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_dataset(out, contents);
  log_info("wrote " + out.string() + ": " + std::to_string(contents.label_ids.size()) + " records, " +
           std::to_string(contents.labels.size()) + " labels, " + std::to_string(secrets.secrets.size()) + " secrets, " +
           std::to_string(private_records) + " private records, d = " + std::to_string(contents.embeddings.cols()));
  return 0;
}

}  // namespace secpe::cli
