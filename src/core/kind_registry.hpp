#pragma once
// A registry of kinds (embedders, generators): a fixed list of functions, each returning one kind
// (an object with name() and description()). The names, the help text and the lookup by name are
// written once here; each registry keeps its own list, filters and refusal.
#include <span>
#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace secpe {

template <typename Kind>
class KindRegistry {
 public:
  using Ref = const Kind& (*)();
  constexpr explicit KindRegistry(std::span<const Ref> kinds) : kinds_(kinds) {}

  // The names of the kinds `keep` accepts, in the order of the list.
  template <typename Keep>
  std::vector<std::string> names(Keep keep) const {
    std::vector<std::string> out;
    for (const Ref kind : kinds_)
      if (keep(kind())) out.push_back(kind().name());
    return out;
  }
  std::vector<std::string> names() const {
    return names([](const Kind&) { return true; });
  }
  // "a (what a is), b (...) or c (...)", for an option's help.
  std::string help() const {
    std::vector<std::string> kinds;
    for (const Ref kind : kinds_) kinds.push_back(kind().name() + " (" + kind().description() + ")");
    return or_list(kinds);
  }
  // The kind named `name`; null when none is.
  const Kind* find(const std::string& name) const {
    for (const Ref kind : kinds_)
      if (kind().name() == name) return &kind();
    return nullptr;
  }
  std::span<const Ref> kinds() const { return kinds_; }

 private:
  std::span<const Ref> kinds_;
};

}  // namespace secpe
