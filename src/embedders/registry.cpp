// The embedders secpe import knows; --embedder takes each one's name(). A new embedder: its file
// beside these, defining its kind, and one line in kEmbedderKinds (docs/architecture.md).
#include "core/kind_registry.hpp"
#include "embedders/embedder_kind.hpp"

namespace secpe {

const EmbedderKind& hashing_embedder_kind();
const EmbedderKind& tfidf_svd_embedder_kind();
const EmbedderKind& ppmi_sif_embedder_kind();
const EmbedderKind& http_embedder_kind();

namespace {

constexpr KindRegistry<EmbedderKind>::Ref kEmbedderKinds[] = {&hashing_embedder_kind, &tfidf_svd_embedder_kind, &ppmi_sif_embedder_kind,
                                                             &http_embedder_kind};
constexpr KindRegistry<EmbedderKind> kEmbedderRegistry{kEmbedderKinds};

}  // namespace

std::vector<std::string> embedder_kind_names(bool learned_only) {
  return kEmbedderRegistry.names([&](const EmbedderKind& kind) { return !learned_only || kind.learned(); });
}

std::string embedder_kinds_help() { return kEmbedderRegistry.help(); }

const EmbedderKind& embedder_kind(const std::string& name, const std::string& extra) {
  if (const EmbedderKind* kind = kEmbedderRegistry.find(name)) return *kind;
  std::vector<std::string> names = embedder_kind_names();
  if (!extra.empty()) names.insert(names.begin(), extra);
  throw_unknown_name("--embedder", name, or_list(names));
}

const EmbedderKind* embedder_kind_of(const std::string& recorded) {
  const EmbedderKind* found = nullptr;
  for (const auto kind : kEmbedderRegistry.kinds()) {
    const std::string name = kind().name();
    if (recorded.starts_with(name) && (!found || name.size() > found->name().size())) found = &kind();
  }
  return found;
}

}  // namespace secpe
