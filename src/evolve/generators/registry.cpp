// The generators secpe run knows; --generator takes each one's name(). A new generator: its file
// beside these, defining its kind, and one line in kGeneratorKinds (docs/architecture.md).
#include "core/kind_registry.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe {

const GeneratorKind& builtin_generator_kind();
const GeneratorKind& http_generator_kind();

namespace {

constexpr KindRegistry<GeneratorKind>::Ref kGeneratorKinds[] = {&builtin_generator_kind, &http_generator_kind};
constexpr KindRegistry<GeneratorKind> kGeneratorRegistry{kGeneratorKinds};

}  // namespace

std::vector<std::string> generator_kind_names(std::optional<bool> learning) {
  return kGeneratorRegistry.names([&](const GeneratorKind& kind) { return !learning || kind.learns_from_texts() == *learning; });
}

std::string generator_kinds_help() { return kGeneratorRegistry.help(); }

const GeneratorKind& generator_kind(const std::string& name) {
  if (const GeneratorKind* kind = kGeneratorRegistry.find(name)) return *kind;
  throw_unknown_name("--generator", name, or_list(generator_kind_names()));
}

}  // namespace secpe
