#pragma once
// Enum <-> name: one table per enum, beside the enum, so that the name an output records and the
// name an option accepts cannot drift apart, and every refusal reads the same way. A value may
// have several names (an alias accepted on input, e.g. "kmeans++"); its first is the one written.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace secpe {

// The refusal parse_name throws: an InputError "WHAT must be NAMES, not 'NAME'".
[[noreturn]] void throw_unknown_name(std::string_view what, std::string_view name, const std::string& names);

// "a, b or c", for the names of a registry (methods, embedders, generators).
std::string or_list(const std::vector<std::string>& names);

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// The name `value` is written with ("?" for a value the table lacks: a table misses none).
template <typename E, std::size_t N>
constexpr std::string_view name_of(const EnumNames<E, N>& table, E value) {
  for (const EnumName<E>& e : table)
    if (e.value == value) return e.name;
  return "?";
}

// "a, b or c": the values' own names, aliases left out, for messages and help texts.
template <typename E, std::size_t N>
std::string names_of(const EnumNames<E, N>& table) {
  std::string out;
  std::size_t listed = 0, own = 0;
  for (std::size_t i = 0; i < N; ++i) own += name_of(table, table[i].value) == table[i].name;
  for (std::size_t i = 0; i < N; ++i) {
    if (name_of(table, table[i].value) != table[i].name) continue;
    out += listed == 0 ? "" : listed + 1 == own ? " or " : ", ";
    out += table[i].name;
    ++listed;
  }
  return out;
}

// The value named `name` (an alias too); otherwise an InputError "WHAT must be a, b or c, not
// 'NAME'" (WHAT empty: "must be ..."), which callers prefix with the option or field.
template <typename E, std::size_t N>
E parse_name(const EnumNames<E, N>& table, std::string_view name, std::string_view what) {
  for (const EnumName<E>& e : table)
    if (e.name == name) return e.value;
  throw_unknown_name(what, name, names_of(table));
}

}  // namespace secpe
