// --embedder hashing: feature hashing of words and word pairs (text/embedder.hpp); nothing is
// learned, so nothing is stored: the dimension rebuilds it.
#include "embedders/embedder_kind.hpp"

namespace secpe {
namespace {

class HashingKind final : public EmbedderKind {
 public:
  std::string name() const override { return "hashing"; }
  std::string description() const override { return "feature hashing, nothing learned"; }
  std::unique_ptr<Embedder> make(const EmbedderSettings& settings, const std::vector<std::string>&, DatasetContents&) const override {
    return std::make_unique<HashingEmbedder>(settings.fit.dim);
  }
  std::unique_ptr<Embedder> rebuild(const DatasetReader& reader, const std::filesystem::path&, const std::string&,
                                    const HttpEmbedderOptions*) const override {
    return std::make_unique<HashingEmbedder>(reader.info().embedding_dim);
  }
};

}  // namespace

const EmbedderKind& hashing_embedder_kind() {
  static const HashingKind kind;
  return kind;
}

}  // namespace secpe
