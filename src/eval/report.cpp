#include "eval/report.hpp"

#include <cstdio>
#include <filesystem>
#include <ostream>

namespace secpe {

namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// part / whole, none without a whole (a class without real records or predictions).
std::optional<double> share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? std::optional<double>(static_cast<double>(part) / static_cast<double>(whole)) : std::nullopt;
}

// Per class (named by `classes`, in the classifier's order): real records, predictions, recall, precision.
Json per_class_json(const ClassificationScores& s, const std::vector<std::string>& classes) {
  Json out = Json::array();
  for (std::size_t c = 0; c < s.per_class.size() && c < classes.size(); ++c) {
    const ClassCounts& k = s.per_class[c];
    out.push_back({{"class", classes[c]}, {"real", k.support}, {"predicted", k.predicted}, {"correct", k.correct},
                   {"recall", optional_json(share(k.correct, k.support))}, {"precision", optional_json(share(k.correct, k.predicted))}});
  }
  return out;
}

Json scores_json(const ClassificationScores& s, const std::vector<std::string>& classes) {
  return {{"accuracy", s.accuracy}, {"macro_f1", s.macro_f1}, {"records", s.records}, {"per_class", per_class_json(s, classes)}};
}

Json lengths_json(const LengthStats& s) {
  Json q = Json::object();
  for (std::size_t i = 0; i < s.quantiles.size(); ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "p%g", 100.0 * LengthStats::kLevels[i]);
    q[name] = s.quantiles[i];
  }
  return {{"texts", s.texts}, {"mean", s.mean}, {"std", s.std}, {"quantiles", q}};
}

Json diversity_json(const DiversityReport& d) {
  return {{"texts", d.texts}, {"distinct_1", d.distinct_1}, {"distinct_2", d.distinct_2},
          {"near_duplicates", d.near_duplicates}, {"near_duplicate_rate", d.near_duplicate_rate}};
}

std::string percent(double x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

std::string number(const std::optional<double>& x, const char* format) {
  if (!x) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *x);
  return buf;
}

// "label1 tfidf recall per class (real records): a 12% (40), b 0% (3), ...": which classes the
// synthetic set taught, where accuracy alone mostly shows the majority class. At most kShown classes.
void print_recall(const std::string& column, const ClassifierReport& k, const std::vector<std::string>& classes, std::ostream& out) {
  constexpr std::size_t kShown = 12;
  out << "  " << column << " " << features_name(k.features) << " recall per class (real records):";
  const std::size_t n = std::min(k.scores.per_class.size(), classes.size());
  for (std::size_t c = 0; c < std::min(n, kShown); ++c) {
    const ClassCounts& counts = k.scores.per_class[c];
    const std::optional<double> recall = share(counts.correct, counts.support);
    out << (c ? ", " : " ") << classes[c] << " " << (recall ? percent(*recall) : std::string("n/a")) << " (" << counts.support << ")";
  }
  if (n > kShown) out << ", ... (" << n - kShown << " more in the JSON report)";
  out << "\n";
}

}  // namespace

Json eval_report_json(const EvalReport& r) {
  Json j;
  // Files by name: a report is published beside the run's outputs, and a path may say more about
  // the data (a user's folders) than it should.
  const auto name = [](const std::string& file) { return std::filesystem::path(file).filename().string(); };
  j["synthetic"] = {{"file", name(r.synthetic_name)}, {"records", r.synthetic_records}};
  j["real"] = {{"file", name(r.real_name)}, {"records", r.real_records}, {"bad_records_skipped", r.real_bad_records_skipped}};
  j["seed"] = r.seed;
  j["embedder"] = r.embedder;
  Json labels = Json::object();
  for (const auto& l : r.labels) {
    Json c = {{"classes", l.classes},
              {"classes_absent_from_real", l.classes_absent_from_real},
              {"real_values_unseen", l.real_values_unseen},
              {"real_records_unseen", l.real_records_unseen},
              {"majority", {{"class", l.majority_class}, {"accuracy", l.majority.accuracy}, {"macro_f1", l.majority.macro_f1}}}};
    for (const auto& k : l.classifiers) {
      Json s = scores_json(k.scores, l.classes);
      s["features"] = k.num_features;
      s["iterations"] = k.iterations;
      s["converged"] = k.converged;
      c[features_name(k.features)] = s;
    }
    labels[l.column] = c;
  }
  j["classification"] = labels;
  j["fid"] = optional_json(r.fid);
  j["knn"] = {{"k", r.knn}, {"synthetic", r.knn_synthetic}, {"real", r.knn_real},
              {"precision", optional_json(r.precision)}, {"recall", optional_json(r.recall)}};
  j["mauve"] = r.mauve ? Json{{"score", r.mauve->mauve}, {"clusters", r.mauve->clusters},
                              {"how", "k-means of both samples' embeddings, scaling 5 (eval/mauve.hpp)"}}
                       : Json(nullptr);
  j["length_words"] = {{"synthetic", lengths_json(r.synthetic_lengths)}, {"real", lengths_json(r.real_lengths)},
                       {"wasserstein1", r.length_wasserstein1}};
  j["diversity"] = {{"synthetic", diversity_json(r.synthetic_diversity)}, {"real_sample", diversity_json(r.real_diversity)}};
  if (r.next_word) {
    const NextWordScores& n = *r.next_word;
    j["next_word"] = {{"model", "interpolated Kneser-Ney trigram trained on the synthetic texts (eval/next_word.hpp)"},
                      {"real_texts", n.texts}, {"real_words", n.words}, {"vocabulary", n.vocabulary},
                      {"out_of_vocabulary", n.out_of_vocabulary}, {"accuracy", n.accuracy}, {"loss_nats", n.loss},
                      {"perplexity", n.perplexity}};
  } else {
    j["next_word"] = nullptr;
  }
  const auto& s = r.seconds;
  j["run"] = {{"ranks", r.ranks},
              {"seconds", {{"real_set", s.real_set}, {"classifiers", s.classifiers}, {"scoring", s.scoring},
                           {"fid", s.fid}, {"precision_recall", s.precision_recall}, {"mauve", s.mauve}, {"diversity", s.diversity},
                           {"next_word", s.next_word}, {"total", s.total}}}};
  return j;
}

void print_eval_summary(const EvalReport& r, std::ostream& out) {
  out << "synthetic " << r.synthetic_records << " records (" << r.synthetic_name << "), real " << r.real_records
      << " records (" << r.real_name << ")\n";
  out << (r.labels.empty() ? "downstream: none (no label column to classify: an unlabelled corpus)\n"
                            : "downstream (trained on synthetic, tested on real), accuracy / macro-F1:\n");
  for (const auto& l : r.labels) {
    out << "  " << l.column << ":";
    for (const auto& k : l.classifiers) {
      out << "  " << features_name(k.features) << " " << percent(k.scores.accuracy) << " / " << percent(k.scores.macro_f1)
          << (k.converged ? "" : " (stopped at the iteration cap)");
    }
    out << "   majority '" << l.majority_class << "' " << percent(l.majority.accuracy) << " / "
        << percent(l.majority.macro_f1) << "\n";
    if (!l.classifiers.empty()) print_recall(l.column, l.classifiers.front(), l.classes, out);
    if (l.real_records_unseen > 0) {
      out << "  " << l.column << ": " << l.real_records_unseen << " real records hold one of " << l.real_values_unseen.size()
          << " values the synthetic set lacks (counted as errors)\n";
    }
  }
  out << "FID " << number(r.fid, "%.4f") << "   k-NN (k = " << r.knn << ", " << r.knn_synthetic << " vs " << r.knn_real
      << "): precision " << number(r.precision, "%.3f") << ", recall " << number(r.recall, "%.3f")
      << "   MAUVE " << (r.mauve ? number(r.mauve->mauve, "%.3f") + " (" + std::to_string(r.mauve->clusters) + " clusters)" : std::string("n/a")) << "\n";
  char buf[200];
  std::snprintf(buf, sizeof buf, "length (words): synthetic %.1f +- %.1f, real %.1f +- %.1f, Wasserstein-1 %.2f\n",
                r.synthetic_lengths.mean, r.synthetic_lengths.std, r.real_lengths.mean, r.real_lengths.std,
                r.length_wasserstein1);
  out << buf;
  const auto& s = r.synthetic_diversity;
  const auto& q = r.real_diversity;
  std::snprintf(buf, sizeof buf, "diversity: distinct-1 %.3f, distinct-2 %.3f, near-duplicates %s", s.distinct_1,
                s.distinct_2, percent(s.near_duplicate_rate).c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "   (real, %zu texts: %.3f, %.3f, %s)\n", q.texts, q.distinct_1, q.distinct_2,
                percent(q.near_duplicate_rate).c_str());
  out << buf;
  if (const auto& n = r.next_word) {
    std::snprintf(buf, sizeof buf, "next word (a trigram model of the synthetic texts, on %llu real words): accuracy %s, loss %.3f, perplexity %.1f "
                  "(vocabulary %zu, %s of the real words outside it)\n", static_cast<unsigned long long>(n->words), percent(n->accuracy).c_str(),
                  n->loss, n->perplexity, n->vocabulary, percent(n->words ? double(n->out_of_vocabulary) / double(n->words) : 0.0).c_str());
    out << buf;
  }
}

}  // namespace secpe
