// secpe eval: how good a synthetic set is, against real records (src/eval). Runs under MPI: the
// real file is streamed in chunks dealt to the ranks in turn; rank 0 prints and writes the report.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "cli/options.hpp"
#include "compute/nearest.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "eval/evaluate.hpp"
#include "eval/report.hpp"

namespace secpe::cli {
namespace {

void describe_eval_options(po::options_description& desc) {
  const EvalOptions e;
  const RealSetOptions r;
  desc.add_options()
    ("synthetic", po::value<std::string>(), "the synthetic set (Aug-PE CSV or JSON lines): classifiers are trained on it")
    ("real", po::value<std::string>(), "the real set (Aug-PE CSV, streamed: any size; or JSON lines, read whole): classifiers are tested on it")
    ("format", po::value<std::string>(), "augpe-csv or jsonl, for both files (default: each file's own, jsonl for *.jsonl, else augpe-csv)")
    ("out", po::value<std::string>(), "also write the report here (JSON)")
    ("text-column", po::value<std::string>()->default_value("text"), "column holding the text, in both files")
    ("label-columns", po::value<std::string>(), "comma-separated label columns to evaluate (default: every column but the text that both files have)")
    ("label-prefixes", po::value<std::string>()->default_value("Business Category: |Review Stars: "),
     "'|'-separated prefixes removed from label values that start with one (so files with and without Aug-PE's prefixes compare equal; '' for none)")
    ("on-bad-record", po::value<std::string>()->default_value("error"), "error: stop at the first bad record; skip: skip and count")
    ("features", po::value<std::string>()->default_value("tfidf"), "classifier features, comma-separated: tfidf (word 1-2 grams) and/or embeddings (the hashing embedder's)")
    ("ngrams", po::value<int>()->default_value(e.tfidf.max_n), "tfidf: word n-grams of 1 to this many words")
    ("min-df", po::value<std::size_t>()->default_value(e.tfidf.min_df), "tfidf: a term must occur in at least this many synthetic texts")
    ("max-features", po::value<std::size_t>()->default_value(e.tfidf.max_features), "tfidf: the most frequent terms kept (by document frequency)")
    ("c", po::value<double>()->default_value(e.classifier.c, "10"), "classifier: inverse L2 regularisation strength C (as scikit-learn's LogisticRegression)")
    ("max-iterations", po::value<int>()->default_value(e.classifier.solver.max_iterations), "classifier: L-BFGS iterations at most")
    ("tolerance", po::value<double>()->default_value(e.classifier.solver.gradient_tolerance, "1e-4"), "classifier: stop when no gradient entry of the mean loss exceeds this")
    ("embedding-dim", po::value<int>()->default_value(r.embedding_dim), "dimension of the hashing embedder (FID, precision/recall, --features embeddings)")
    ("knn", po::value<int>()->default_value(e.knn), "k of k-NN precision and recall")
    ("sample", po::value<std::size_t>()->default_value(e.sample_records), "records per side in the seeded sample of precision/recall and of the real diversity reference")
    ("near-duplicate-n", po::value<int>()->default_value(e.near_duplicates.n), "near-duplicates: word n-grams compared")
    ("near-duplicate-share", po::value<double>()->default_value(e.near_duplicates.share, "0.5"), "near-duplicates: share of a text's n-grams another text of its label must hold")
    ("next-word", po::bool_switch(), "next-word prediction (a trigram model of the synthetic texts predicting every word of the real sample's texts: accuracy, loss, perplexity) for a labelled corpus too; an unlabelled one always gets it")
    ("seed", po::value<std::uint64_t>()->default_value(e.seed), "public seed of the samples")
    ("kernel", po::value<std::string>()->default_value(e.kernel), "nearest-centre kernel of precision/recall: blas or reference (same answers)")
    ("chunk-records", po::value<std::size_t>()->default_value(r.chunk_records), "real records per chunk (memory per rank; chunks are dealt to the ranks in turn)")
    ("threads", po::value<int>()->default_value(0), "threads per rank for the classifiers and the precision/recall searches (0: the SECPE_THREADS environment variable if set, else all hardware threads)")
    ("quiet", po::bool_switch(), "no progress output");
}

std::string required_file(const po::variables_map& vm, const std::string& option) {
  if (!vm.count(option)) throw InputError("--" + option + " FILE (.csv or .jsonl) is required");
  const std::string path = vm[option].as<std::string>();
  if (!std::filesystem::is_regular_file(path)) throw InputError("--" + option + ": cannot read '" + path + "'");
  return path;
}

// Each file's format: --format, else its extension.
CorpusFormat format_of(const po::variables_map& vm, const std::string& path) {
  try {
    return corpus_format(path, vm.count("format") ? vm["format"].as<std::string>() : "");
  } catch (const InputError& e) {
    throw InputError(std::string("--format ") + e.what());
  }
}

// The label columns to evaluate: --label-columns, else every column of the synthetic file but the
// text that the real file also has.
std::vector<std::string> label_columns(const po::variables_map& vm, const std::string& synthetic,
                                       const std::string& real, const std::string& text_column) {
  if (vm.count("label-columns")) return split_list(vm["label-columns"].as<std::string>(), ',');  // '': none, label-blind figures only
  const auto s = read_column_names(synthetic, format_of(vm, synthetic)), r = read_column_names(real, format_of(vm, real));
  if (is_text_alone(s, text_column) && is_text_alone(r, text_column)) {
    log_info("--synthetic and --real hold the text column alone (unlabelled corpora): the label-blind figures only");
    return {};
  }
  std::vector<std::string> columns;
  for (const auto& c : s) {
    if (c == text_column) continue;
    if (std::find(r.begin(), r.end(), c) != r.end()) {
      columns.push_back(c);
    } else {
      log_info("label column '" + c + "' of " + synthetic + " is not in " + real + ": not evaluated");
    }
  }
  if (columns.empty()) {
    throw InputError("no label column common to --synthetic " + synthetic + " and --real " + real +
                     " (give --label-columns to name them)");
  }
  return columns;
}

// The real side: a CSV file streamed, a JSON-lines file read whole; label prefixes removed.
std::shared_ptr<const RealSource> real_source(const std::string& file, CorpusFormat format, const CsvReadOptions& read,
                                              const std::vector<std::string>& prefixes) {
  if (format == CorpusFormat::kAugpeCsv) return std::make_shared<CsvRealSource>(file, read, prefixes);
  Corpus corpus = read_corpus(file, format, read);
  if (corpus.bad_records_skipped > 0) log_warn(file + ": " + std::to_string(corpus.bad_records_skipped) + " bad records skipped");
  strip_label_prefixes(corpus, prefixes);
  return std::make_shared<MemoryRealSource>(std::move(corpus), file);
}

}  // namespace

int command_eval(const std::vector<std::string>& args) {
  po::options_description desc("secpe eval options");
  add_common_options(desc);
  describe_eval_options(desc);
  po::variables_map vm;
  if (!parse_options("eval", "[mpirun -n R] secpe eval --synthetic S.csv --real R.csv|R.jsonl [--out E.json]", desc, {}, args, vm)) return 0;
  const std::string synthetic_file = required_file(vm, "synthetic");
  const std::string real_file = required_file(vm, "real");
  const CorpusFormat synthetic_format = format_of(vm, synthetic_file), real_format = format_of(vm, real_file);
  const std::string text_column = vm["text-column"].as<std::string>();
  const auto prefixes = split_list(vm["label-prefixes"].as<std::string>(), '|');

  EvalOptions e;
  e.features.clear();
  for (const auto& f : split_list(vm["features"].as<std::string>(), ',')) {
    try {
      e.features.push_back(parse_features(f));
    } catch (const InputError& error) {
      throw InputError(std::string("--features: ") + error.what());
    }
  }
  if (e.features.empty()) throw InputError("--features names no features");
  e.tfidf = {.max_n = vm["ngrams"].as<int>(), .min_df = vm["min-df"].as<std::size_t>(),
             .max_features = vm["max-features"].as<std::size_t>()};
  if (e.tfidf.max_n < 1) throw InputError("--ngrams must be at least 1");
  e.classifier.c = vm["c"].as<double>();
  if (!(e.classifier.c > 0)) throw InputError("--c must be positive");
  e.classifier.solver.max_iterations = vm["max-iterations"].as<int>();
  e.classifier.solver.gradient_tolerance = vm["tolerance"].as<double>();
  if (e.classifier.solver.max_iterations < 0) throw InputError("--max-iterations must not be negative");
  e.knn = vm["knn"].as<int>();
  if (e.knn < 1) throw InputError("--knn must be at least 1");
  e.sample_records = vm["sample"].as<std::size_t>();
  e.near_duplicates = {.n = vm["near-duplicate-n"].as<int>(), .share = vm["near-duplicate-share"].as<double>()};
  if (e.near_duplicates.n < 1) throw InputError("--near-duplicate-n must be at least 1");
  if (!(e.near_duplicates.share > 0 && e.near_duplicates.share <= 1)) throw InputError("--near-duplicate-share must be in (0, 1]");
  e.next_word = vm["next-word"].as<bool>();
  e.seed = vm["seed"].as<std::uint64_t>();
  e.kernel = vm["kernel"].as<std::string>();
  e.threads = option_in(vm, "threads", 0, 65536);
  make_kernel(e.kernel);  // an unknown name fails now, not after reading the real file
  e.synthetic_name = synthetic_file;
  const RealSetOptions r{.embedding_dim = vm["embedding-dim"].as<int>(), .sample_records = e.sample_records,
                         .seed = e.seed, .chunk_records = vm["chunk-records"].as<std::size_t>()};
  if (r.embedding_dim < 1 || r.embedding_dim > 65536) throw InputError("--embedding-dim must be in [1, 65536]");
  if (r.chunk_records < 1) throw InputError("--chunk-records must be at least 1");
  const OnBadRecord on_bad = parse_on_bad_record(vm["on-bad-record"].as<std::string>());
  const bool quiet = vm["quiet"].as<bool>();
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "";
  if (!out.empty()) check_output_file("out", out);

  return run_under_mpi([&](const Communicator& comm) {
    set_log_quiet(quiet);
    const CsvReadOptions read{.text_column = text_column,
                              .label_columns = label_columns(vm, synthetic_file, real_file, text_column),
                              .label_prefixes = {},
                              .on_bad_record = on_bad};
    Corpus synthetic = read_corpus(synthetic_file, synthetic_format, read);
    strip_label_prefixes(synthetic, prefixes);
    if (synthetic.bad_records_skipped > 0) {
      log_warn(synthetic_file + ": " + std::to_string(synthetic.bad_records_skipped) + " bad records skipped");
    }
    const RealSet real = prepare_real_set(real_source(real_file, real_format, read, prefixes), r, comm);
    const EvalReport report = evaluate(synthetic, real, e, comm);
    if (!comm.is_root()) return;
    print_eval_summary(report, std::cout);
    if (!out.empty()) {
      const std::filesystem::path path = out;
      if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
      write_file_atomically(path, [&](std::ostream& os) { os << eval_report_json(report).dump(2) << "\n"; });
    }
  });
}

}  // namespace secpe::cli
