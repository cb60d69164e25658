// `secpe import`'s stage (import/import_dataset.hpp): read, secrets, checks, embed, write.
#include "import/import_dataset.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "embedders/dataset_embedder.hpp"
#include "embedders/embedder_kind.hpp"
#include "io/dataset.hpp"
#include "io/imported_embeddings.hpp"
#include "text/embedder.hpp"
#include "text/learned_embedder.hpp"

namespace secpe {
namespace {

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


// The embedder --embedder asks for (embedders/embedder_kind.hpp); auto is ppmi-sif, or hashing
// where ppmi-sif cannot be fitted (a dimension outside its range, or public records holding fewer
// words than the dimension).
std::unique_ptr<Embedder> chosen_embedder(const EmbedderChoice& choice, const std::vector<std::string>& texts, DatasetContents& contents) {
  if (choice.kind != kAutoEmbedder) return embedder_kind(choice.kind).make(choice.settings, texts, contents);
  const EmbedderKind& hashing = embedder_kind("hashing");
  const int dim = choice.settings.fit.dim;
  if (dim < kLearnedEmbedderMinDim || dim > kLearnedEmbedderMaxDim) {
    log_info("--embedder auto: the hashing embedder (ppmi-sif takes dimensions " + std::to_string(kLearnedEmbedderMinDim) + " to " +
             std::to_string(kLearnedEmbedderMaxDim) + ")");
    return hashing.make(choice.settings, texts, contents);
  }
  try {
    return embedder_kind("ppmi-sif").make(choice.settings, texts, contents);
  } catch (const InputError& e) {
    log_warn(std::string(e.what()) + "; --embedder auto uses the hashing embedder instead");
    return hashing.make(choice.settings, texts, contents);
  }
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

// Stage "embed": every record's embedding into `contents`, read from --embeddings or made by the
// chosen embedder; returns the embedder's name for the provenance.
std::string embed_records(const ImportOptions& options, const std::vector<std::string>& texts, DatasetContents& contents) {
  const EmbedderChoice& embedding = options.embedder;
  const int threads = options.threads;
  if (options.imported) {
    const std::filesystem::path& file = options.imported->file;
    contents.embeddings = read_imported_embeddings(file, {.h5_dataset = options.imported->h5_dataset, .rows = texts.size()});
    contents.provenance["embedding_model"] = options.imported->model;
    contents.provenance["embeddings_file"] = file.filename().string();  // a name: a path may say more than the dataset should
    log_info("imported " + std::to_string(contents.embeddings.cols()) + "-d embeddings of model " +
             contents.provenance["embedding_model"] + " from " + file.string() + " (rows L2-normalised)");
    return kImportedEmbedderName;
  }
  const std::unique_ptr<Embedder> embedder = chosen_embedder(embedding, texts, contents);
  const bool remote = embedding.kind != kAutoEmbedder && embedder_kind(embedding.kind).remote();
  embed_all(*embedder, texts, remote ? 1 : (threads > 0 ? threads : default_threads()), contents);
  return embedder->name();
}

}  // namespace

void import_dataset(const ImportOptions& options) {
  const std::filesystem::path& input = options.input;
  const std::filesystem::path& out = options.out;
  Corpus corpus = read_input(input, options.format, options.read);
  if (corpus.texts.empty()) throw InputError(input.string() + ": no records");
  log_info("read " + std::to_string(corpus.texts.size()) + " records from " + input.string() +
           (corpus.bad_records_skipped ? " (" + std::to_string(corpus.bad_records_skipped) + " bad records skipped)" : ""));

  DatasetContents contents;
  contents.labels = build_labels(corpus, contents.label_ids);
  const Timer secrets_timer;
  const SecretSet secrets = choose_secrets(options.secrets, corpus.texts, contents.labels, contents.label_ids, contents.secrets);
  log_info("secrets (" + secrets.mode + ") chosen and detected in " + std::to_string(secrets_timer.seconds()) + " s");
  check_labels_hold_no_secret(contents.labels, secrets);
  check_public_share(contents, options.min_public_share, options.allow_private_labels);
  contents.secret_names = secrets.secrets;
  contents.secret_categories = secrets.categories;
  std::size_t private_records = 0;
  for (std::size_t i = 0; i < contents.secrets.rows(); ++i) private_records += contents.secrets.is_private(i) ? 1 : 0;

  const std::string embedder_name = embed_records(options, corpus.texts, contents);
  contents.texts = std::move(corpus.texts);
  // Input files by name only (the secrets list's too, in secret_mode): run.json shows this
  // provenance, and a path may say more about the data than a published file should.
  contents.provenance.insert({{"source", input.filename().string()},
                              {"source_format", options.format == CorpusFormat::kJsonl ? "jsonl" : "augpe-csv"},
                              {"created_utc", options.created_utc},
                              {"secpe_version", build_info().version},
                              {"embedder", embedder_name},
                              {"embedding_dim", std::to_string(contents.embeddings.cols())},
                              {"secret_mode", secrets.mode},
                              {"secret_count", std::to_string(secrets.secrets.size())},
                              {"bad_records_skipped", std::to_string(corpus.bad_records_skipped)}});
  // synthetic.csv keeps a CSV's column order (a JSON object's fields keep none through parsing).
  const std::vector<int> order = options.format == CorpusFormat::kAugpeCsv
                                     ? input_column_order(options.header, options.read.text_column, options.read.label_columns)
                                     : std::vector<int>{};
  if (!order.empty()) contents.provenance["column_order"] = column_order_text(order);
  const auto uses = [&](const char* mode) { return std::count(options.secrets.modes.begin(), options.secrets.modes.end(), mode) > 0; };
  if (uses("random-word")) {
    contents.provenance["secret_quantile"] = std::to_string(options.secrets.random_word.quantile);
    contents.provenance["secret_max_private_share"] = std::to_string(options.secrets.random_word.max_private_share);
  }
  if (uses("pii")) contents.provenance["pii_categories"] = options.pii_categories_given;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_dataset(out, contents);
  log_info("wrote " + out.string() + ": " + std::to_string(contents.label_ids.size()) + " records, " +
           std::to_string(contents.labels.size()) + " labels, " + std::to_string(secrets.secrets.size()) + " secrets, " +
           std::to_string(private_records) + " private records, d = " + std::to_string(contents.embeddings.cols()));
}

}  // namespace secpe
