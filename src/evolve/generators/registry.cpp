// The generators secpe run knows; --generator takes each one's name(). A new generator: its file
// beside these, defining its kind, and one line in kGeneratorKinds (docs/architecture.md).
#include "core/enum_names.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe {

const GeneratorKind& builtin_generator_kind();
const GeneratorKind& http_generator_kind();

namespace {

using GeneratorKindRef = const GeneratorKind& (*)();
constexpr GeneratorKindRef kGeneratorKinds[] = {&builtin_generator_kind, &http_generator_kind};

}  // namespace

std::vector<std::string> generator_kind_names(std::optional<bool> learning) {
  std::vector<std::string> names;
  for (const GeneratorKindRef kind : kGeneratorKinds)
    if (!learning || kind().learns_from_texts() == *learning) names.push_back(kind().name());
  return names;
}

std::string generator_kinds_help() {
  std::vector<std::string> kinds;
  for (const GeneratorKindRef kind : kGeneratorKinds) kinds.push_back(kind().name() + " (" + kind().description() + ")");
  return or_list(kinds);
}

const GeneratorKind& generator_kind(const std::string& name) {
  for (const GeneratorKindRef kind : kGeneratorKinds)
    if (kind().name() == name) return kind();
  throw_unknown_name("--generator", name, or_list(generator_kind_names()));
}

}  // namespace secpe
