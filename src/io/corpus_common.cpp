// Small pieces the corpus readers need: opening and whole-file reading, prefix handling, blank checks.
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
  if (given == "augpe-csv" || given == "csv") return CorpusFormat::kAugpeCsv;
  if (given == "jsonl") return CorpusFormat::kJsonl;
  throw InputError("must be augpe-csv or jsonl, not '" + given + "'");
}

Corpus read_corpus(const std::filesystem::path& path, CorpusFormat format, const CsvReadOptions& options) {
  if (format == CorpusFormat::kAugpeCsv) return read_augpe_csv(path, options);
  return read_jsonl(path, {.text_field = options.text_column,
                           .label_fields = options.label_columns,
                           .label_prefixes = options.label_prefixes,
                           .on_bad_record = options.on_bad_record});
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
