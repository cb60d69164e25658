// --embedder tfidf-svd and ppmi-sif: embedders learned from the public records
// (text/learned_embedder.hpp), their model (terms, weights, projection) stored in the dataset's
// /embedder and rebuilt from there, checked against the identity the provenance records.
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "embedders/embedder_kind.hpp"
#include "text/learned_embedder.hpp"
#include "text/ppmi_sif_embedder.hpp"

namespace secpe {
namespace {

class LearnedKind final : public EmbedderKind {
 public:
  explicit LearnedKind(LearnedEmbedderKind kind) : kind_(kind) {}
  std::string name() const override { return learned_embedder_kind_name(kind_); }
  std::string description() const override {
    return kind_ == LearnedEmbedderKind::kPpmiSif
               ? "word vectors of the factorised PPMI matrix of the public records' word co-occurrences, SIF-weighted"
               : "TF-IDF + truncated SVD learned from the public records only";
  }
  bool learned() const override { return true; }

  // The model sees the public records only: nothing in it (vocabulary, weights, projection)
  // depends on a record that holds a secret.
  std::unique_ptr<Embedder> make(const EmbedderSettings& settings, const std::vector<std::string>& texts,
                                 DatasetContents& contents) const override {
    std::vector<std::string_view> public_texts;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (!contents.secrets.is_private(i)) public_texts.push_back(texts[i]);
    }
    log_info("fitting the " + name() + " embedder on " + std::to_string(public_texts.size()) + " public records");
    const Timer timer;
    const TfidfSvdOptions& o = settings.fit;
    auto fitted = std::make_unique<LearnedEmbedder>(
        kind_ == LearnedEmbedderKind::kPpmiSif
            ? fit_ppmi_sif(public_texts, {.dim = o.dim, .min_df = o.min_df, .vocabulary = o.vocabulary, .threads = o.threads})
            : fit_tfidf_svd(public_texts, o));
    log_info(fitted->name() + " fitted in " + std::to_string(timer.seconds()) + " s");
    contents.embedder_model = {.terms = fitted->vectorizer().terms(), .idf = fitted->vectorizer().idf(), .projection = fitted->projection()};
    contents.provenance["embedder_public_records"] = std::to_string(public_texts.size());
    contents.provenance["embedder_min_df"] = std::to_string(o.min_df);
    contents.provenance["embedder_max_vocabulary"] = std::to_string(o.vocabulary);
    return fitted;
  }

  std::unique_ptr<Embedder> rebuild(const DatasetReader& reader, const std::filesystem::path& path, const std::string& recorded,
                                    const HttpEmbedderOptions*) const override {
    EmbedderModel model = reader.embedder_model();
    const std::string damaged = path.string() + ": damaged secpe dataset: the stored embedder model (/embedder) ";
    if (model.empty()) throw InputError(damaged + "is missing, but the embeddings come from '" + recorded + "'; import the corpus again");
    std::unique_ptr<LearnedEmbedder> embedder;
    try {
      embedder = std::make_unique<LearnedEmbedder>(kind_, TfidfVectorizer(learned_embedder_ngrams(kind_), std::move(model.terms), std::move(model.idf)),
                                                   std::move(model.projection));
    } catch (const InputError& e) {
      throw InputError(damaged + "is inconsistent: " + e.what());
    }
    if (embedder->name() != recorded) {
      throw InputError(damaged + "is " + embedder->name() + ", not the '" + recorded + "' that made the embeddings (provenance 'embedder')");
    }
    return embedder;
  }

 private:
  LearnedEmbedderKind kind_;
};

}  // namespace

const EmbedderKind& tfidf_svd_embedder_kind() {
  static const LearnedKind kind(LearnedEmbedderKind::kTfidfSvd);
  return kind;
}

const EmbedderKind& ppmi_sif_embedder_kind() {
  static const LearnedKind kind(LearnedEmbedderKind::kPpmiSif);
  return kind;
}

}  // namespace secpe
