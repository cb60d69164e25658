// --embedder http: a model behind an OpenAI-compatible /embeddings API (http/http_embedder.hpp).
// Every text goes there, private ones included. The dataset records the model and URL; a run
// embeds its candidates with the same model (another one is refused: its vectors would live in
// another space), at the recorded URL unless it gives one.
#include "core/error.hpp"
#include "core/log.hpp"
#include "embedders/embedder_kind.hpp"

namespace secpe {
namespace {

class HttpKind final : public EmbedderKind {
 public:
  std::string name() const override { return "http"; }
  std::string description() const override { return "a model behind an OpenAI-compatible /embeddings API, e.g. Text Embeddings Inference: EVERY text, private ones included, is sent there"; }
  bool remote() const override { return true; }

  std::unique_ptr<Embedder> make(const EmbedderSettings& settings, const std::vector<std::string>&, DatasetContents& contents) const override {
    auto embedder = std::make_unique<HttpEmbedder>(settings.http);
    contents.provenance["embedder_url"] = settings.http.client.base_url;
    contents.provenance["embedder_model"] = settings.http.model;
    log_info("embedding with " + embedder->name() + " at " + settings.http.client.base_url + "; response cache (private) in " +
             settings.state_dir.string());
    return embedder;
  }

  std::unique_ptr<Embedder> rebuild(const DatasetReader& reader, const std::filesystem::path& path, const std::string& recorded,
                                    const HttpEmbedderOptions* http) const override {
    const DatasetInfo& info = reader.info();
    if (!http) throw InputError(path.string() + ": embeddings come from '" + recorded + "', which needs its HTTP connection settings");
    HttpEmbedderOptions options = *http;
    const std::string model = info.recorded("embedder_model");
    if (!options.model.empty() && options.model != model) {
      throw InputError(path.string() + ": the embeddings come from model '" + model + "', not '" + options.model +
                       "'; candidates must be embedded by the same model");
    }
    options.model = model;
    if (options.client.base_url.empty()) options.client.base_url = info.recorded("embedder_url");
    options.dim = info.embedding_dim;
    auto embedder = std::make_unique<HttpEmbedder>(options);
    if (embedder->name() != recorded) {
      throw InputError(path.string() + ": damaged secpe dataset: the provenance names embedder '" + recorded + "', but its model and dimension give '" +
                       embedder->name() + "'");
    }
    return embedder;
  }
};

}  // namespace

const EmbedderKind& http_embedder_kind() {
  static const HttpKind kind;
  return kind;
}

}  // namespace secpe
