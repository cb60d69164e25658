// Reads a JSON-lines corpus: one object per line with a text field and label fields. The parser's
// own error messages quote the input, so they are never passed on: errors say file:line and what
// was wrong, nothing more.
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io/internal.hpp"

namespace secpe {
namespace {

// A label value as text: strings as they are, numbers in their shortest exact form (5 -> "5",
// 4.5 -> "4.5"). Anything else is not a label.
std::optional<std::string> label_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer() && value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number_float()) {
    std::array<char, 64> buf{};
    const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), value.get<double>());
    return std::string(buf.data(), result.ptr);
  }
  return std::nullopt;
}

}  // namespace

Corpus read_jsonl(const std::filesystem::path& path, const JsonlReadOptions& options) {
  const std::string file = path.string();
  Corpus corpus;
  corpus.label_columns = options.label_fields;
  corpus.label_prefixes = prefixes_for_columns(options.label_fields, options.label_prefixes);

  const std::string data = read_whole_file(path);
  std::string_view rest(data);
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);

  long long line_number = 0;
  auto bad = [&](const std::string& what) {
    if (options.on_bad_record == OnBadRecord::kError) throw input_error_at(file, line_number, what);
    ++corpus.bad_records_skipped;
  };
  while (!rest.empty()) {
    ++line_number;
    const std::size_t newline = rest.find('\n');
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (is_blank(line)) continue;

    if (!is_valid_utf8(line)) {
      bad("invalid UTF-8");
      continue;
    }
    const auto object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded()) {
      bad("invalid JSON");
      continue;
    }
    if (!object.is_object()) {
      bad("not a JSON object");
      continue;
    }
    const auto text = object.find(options.text_field);
    if (text == object.end()) {
      bad("missing field '" + options.text_field + "'");
      continue;
    }
    if (!text->is_string()) {
      bad("field '" + options.text_field + "' is not a string");
      continue;
    }
    if (is_blank(text->get_ref<const std::string&>())) {
      bad("empty text in field '" + options.text_field + "'");
      continue;
    }
    std::vector<std::string> values;
    std::string problem;
    for (std::size_t c = 0; c < options.label_fields.size() && problem.empty(); ++c) {
      const auto& name = options.label_fields[c];
      const auto field = object.find(name);
      if (field == object.end()) {
        problem = "missing field '" + name + "'";
      } else if (auto value = label_text(*field)) {
        strip_prefix(*value, corpus.label_prefixes[c]);
        values.push_back(std::move(*value));
      } else {
        problem = "field '" + name + "' is not a string or a number";
      }
    }
    if (problem.empty() && has_nul(text->get_ref<const std::string&>())) problem = "NUL character in field '" + options.text_field + "'";
    for (std::size_t c = 0; c < values.size() && problem.empty(); ++c) {
      if (has_nul(values[c])) problem = "NUL character in field '" + options.label_fields[c] + "'";
    }
    if (!problem.empty()) {
      bad(problem);
      continue;
    }
    corpus.texts.push_back(text->get<std::string>());
    corpus.labels.push_back(std::move(values));
  }
  return corpus;
}

}  // namespace secpe
