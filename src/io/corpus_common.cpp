// Small pieces the corpus readers need: opening and whole-file reading, prefix handling, blank checks.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io/internal.hpp"

namespace secpe {

FilePtr open_input_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(name + ": is a directory, not a file");
  FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError(name + ": cannot open file (" + std::strerror(errno) + ")");
  return file;
}

std::string read_whole_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  const FilePtr file = open_input_file(path);
  std::string data;
  // Size from the file itself so one read fills the buffer; grow on the rare file that changes.
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) data.resize(size);
  std::size_t have = 0;
  for (;;) {
    if (have == data.size()) data.resize(data.size() + (1 << 16));
    const std::size_t got = std::fread(data.data() + have, 1, data.size() - have, file.get());
    have += got;
    if (got == 0) break;
  }
  if (std::ferror(file.get())) throw InputError(name + ": read error");
  data.resize(have);
  return data;
}

std::vector<std::string> prefixes_for_columns(const std::vector<std::string>& columns,
                                              const std::vector<std::string>& prefixes) {
  if (prefixes.size() > columns.size()) {
    throw InputError(std::to_string(prefixes.size()) + " label prefixes given for " +
                     std::to_string(columns.size()) + " label columns");
  }
  auto out = prefixes;
  out.resize(columns.size());
  return out;
}

bool strip_prefix(std::string& value, const std::string& prefix) {
  if (prefix.empty() || !value.starts_with(prefix)) return false;
  value.erase(0, prefix.size());
  return true;
}

std::vector<std::string> prefixes_written(const std::vector<std::string>& prefixes, const std::vector<bool>& seen) {
  std::vector<std::string> out(prefixes.size());
  for (std::size_t c = 0; c < prefixes.size(); ++c) out[c] = seen[c] ? prefixes[c] : std::string();
  return out;
}

CorpusFormat corpus_format(const std::filesystem::path& path, const std::string& given) {
  if (given.empty()) return path.extension() == ".jsonl" ? CorpusFormat::kJsonl : CorpusFormat::kAugpeCsv;
  return parse_name(kCorpusFormatNames, given, "");
}

Corpus read_corpus(const std::filesystem::path& path, CorpusFormat format, const CsvReadOptions& options) {
  if (format == CorpusFormat::kAugpeCsv) return read_augpe_csv(path, options);
  return read_jsonl(path, {.text_field = options.text_column,
                           .label_fields = options.label_columns,
                           .label_prefixes = options.label_prefixes,
                           .on_bad_record = options.on_bad_record});
}

std::vector<int> input_column_order(const std::vector<std::string>& names, const std::string& text_column,
                                    const std::vector<std::string>& label_columns) {
  std::vector<int> order;
  for (const auto& name : names) {
    if (name == text_column) order.push_back(0);
    const auto it = std::find(label_columns.begin(), label_columns.end(), name);
    if (it != label_columns.end()) order.push_back(1 + static_cast<int>(it - label_columns.begin()));
  }
  const bool as_given = std::is_sorted(order.begin(), order.end());
  return as_given || order.size() != label_columns.size() + 1 ? std::vector<int>{} : order;
}

std::string column_order_text(const std::vector<int>& order) {
  std::string text;
  for (const int k : order) {
    if (!text.empty()) text += ',';
    text += std::to_string(k);
  }
  return text;
}

std::vector<int> parse_column_order(const std::string& text, std::size_t label_columns, const std::string& what) {
  std::vector<int> order;
  std::size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6) {
      throw InputError(what + ": column_order '" + text + "' is not a list of column numbers");
    }
    order.push_back(std::stoi(part));
    start = end + 1;
  }
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    if (sorted[k] != static_cast<int>(k)) throw InputError(what + ": column_order '" + text + "' is not an order of the columns");
  }
  if (!order.empty() && order.size() != label_columns + 1) throw InputError(what + ": column_order '" + text + "' does not fit the label columns");
  return order;
}

bool is_text_alone(const std::vector<std::string>& names, const std::string& text_column) {
  return names.size() == 1 && names.front() == text_column;
}

std::vector<std::string> read_column_names(const std::filesystem::path& path, CorpusFormat format) {
  return format == CorpusFormat::kAugpeCsv ? read_csv_header(path) : read_jsonl_field_names(path);
}

bool is_blank(std::string_view text) {
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

}  // namespace secpe
