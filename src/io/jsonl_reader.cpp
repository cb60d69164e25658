// Reads a JSON-lines corpus: one object per line with a text field and label fields. The parser's
// own error messages quote the input, so they are never passed on: errors say file:line and what
// was wrong, nothing more. Label values keep the form they are written in (io/corpus.hpp).
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io/internal.hpp"

namespace secpe {
namespace {

// The top-level fields of one JSON object as written: strings as their value, numbers as their
// text in the file ("5.0" stays "5.0", 1e3 stays 1e3; integers in their canonical form), and
// anything else (null, true, objects, arrays) as kOther. A SAX pass, so no number is parsed
// into a double and printed back.
class TopLevelFields : public nlohmann::json_sax<nlohmann::json> {
 public:
  enum class Kind { kString, kNumber, kOther };
  struct Field {
    Kind kind = Kind::kOther;
    std::string text;
  };

  bool is_object() const { return object_; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, field] : fields_) out.push_back(name);
    return out;
  }
  const Field* find(const std::string& name) const {
    const auto it = fields_.find(name);
    return it == fields_.end() ? nullptr : &it->second;
  }

  bool null() override { return value(Kind::kOther, {}); }
  bool boolean(bool) override { return value(Kind::kOther, {}); }
  bool number_integer(number_integer_t v) override { return value(Kind::kNumber, std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(Kind::kNumber, std::to_string(v)); }
  bool number_float(number_float_t, const string_t& text) override { return value(Kind::kNumber, text); }
  bool string(string_t& v) override { return value(Kind::kString, v); }
  bool binary(binary_t&) override { return value(Kind::kOther, {}); }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool value(Kind kind, std::string text) {
    if (depth_ == 1) fields_[key_] = {kind, std::move(text)};
    return true;  // a scalar at depth 0 leaves object_ false: not an object
  }
  bool open(bool object) {
    if (depth_ == 0) object_ = object;
    if (depth_ == 1) fields_[key_] = {Kind::kOther, {}};
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  std::map<std::string, Field> fields_;
  std::string key_;
  int depth_ = 0;
  bool object_ = false;
};

}  // namespace

Corpus read_jsonl(const std::filesystem::path& path, const JsonlReadOptions& options) {
  const std::string file = path.string();
  Corpus corpus;
  corpus.label_columns = options.label_fields;
  const std::vector<std::string> prefixes = prefixes_for_columns(options.label_fields, options.label_prefixes);
  std::vector<bool> prefix_seen(prefixes.size(), false);

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
    TopLevelFields object;
    if (!nlohmann::json::sax_parse(line, &object)) {
      bad("invalid JSON");
      continue;
    }
    if (!object.is_object()) {
      bad("not a JSON object");
      continue;
    }
    const auto* text = object.find(options.text_field);
    if (!text) {
      bad("missing field '" + options.text_field + "'");
      continue;
    }
    if (text->kind != TopLevelFields::Kind::kString) {
      bad("field '" + options.text_field + "' is not a string");
      continue;
    }
    if (is_blank(text->text)) {
      bad("empty text in field '" + options.text_field + "'");
      continue;
    }
    std::vector<std::string> values;
    std::string problem;
    for (std::size_t c = 0; c < options.label_fields.size() && problem.empty(); ++c) {
      const auto& name = options.label_fields[c];
      const auto* field = object.find(name);
      if (!field) {
        problem = "missing field '" + name + "'";
      } else if (field->kind != TopLevelFields::Kind::kOther) {
        values.push_back(field->text);
        if (strip_prefix(values.back(), prefixes[c])) prefix_seen[c] = true;
      } else {
        problem = "field '" + name + "' is not a string or a number";
      }
    }
    if (problem.empty() && has_nul(text->text)) problem = "NUL character in field '" + options.text_field + "'";
    for (std::size_t c = 0; c < values.size() && problem.empty(); ++c) {
      if (has_nul(values[c])) problem = "NUL character in field '" + options.label_fields[c] + "'";
    }
    if (!problem.empty()) {
      bad(problem);
      continue;
    }
    corpus.texts.push_back(text->text);
    corpus.labels.push_back(std::move(values));
  }
  corpus.label_prefixes = prefixes_written(prefixes, prefix_seen);
  return corpus;
}

std::vector<std::string> read_jsonl_field_names(const std::filesystem::path& path) {
  const std::string data = read_whole_file(path);
  std::string_view rest(data);
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);
  for (long long number = 1; !rest.empty(); ++number) {
    const std::size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    if (is_blank(line)) continue;
    TopLevelFields object;
    if (!nlohmann::json::sax_parse(line, &object) || !object.is_object()) throw input_error_at(path.string(), number, "not a JSON object");
    return object.names();
  }
  throw InputError(path.string() + ": no records");
}

}  // namespace secpe
