// Reads an Aug-PE CSV corpus, whole or in chunks of records. The file is read block by block and
// scanned in one pass; columns are found by header name so column order and extra columns do not
// matter. Error messages name the file and line only, never the record's text.
#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io/csv_scanner.hpp"
#include "io/internal.hpp"

namespace secpe {
namespace {

std::size_t find_column(const std::vector<std::string>& header, const std::string& name, const std::string& file) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw input_error_at(file, 1, "the header has no column '" + name + "'");
  return static_cast<std::size_t>(it - header.begin());
}

// The header's fields. The header is never skipped: without it no record can be read.
std::vector<std::string> read_header(CsvFileScanner& scanner, const std::string& file) {
  std::vector<std::string> fields;
  CsvRecord record;
  if (!scanner.next(record, fields)) throw InputError(file + ": empty file (no header row)");
  if (record.error) throw input_error_at(file, record.line, std::string(record.error) + " in the header");
  if (!is_valid_utf8(record.raw)) throw input_error_at(file, record.line, "invalid UTF-8 in the header");
  if (has_nul(record.raw)) throw input_error_at(file, record.line, "NUL byte in the header");
  fields.resize(record.num_fields);
  // A repeated column name would make every lookup silently take the first of them.
  for (std::size_t i = 0; i < fields.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (fields[i] == fields[j]) throw input_error_at(file, record.line, "the header names column '" + fields[i] + "' twice");
  return fields;
}

}  // namespace

struct AugpeCsvStream::State {
  State(const std::filesystem::path& path, std::size_t block_bytes) : file(path.string()), scanner(path, block_bytes) {}
  std::string file;
  CsvFileScanner scanner;
  CsvReadOptions options;
  std::vector<std::string> prefixes;
  std::vector<bool> prefix_seen;  // per label column: some value so far carried its prefix
  std::size_t num_columns = 0;
  std::size_t text_index = 0;
  std::vector<std::size_t> label_index;
  std::vector<std::string> fields;  // reused for every record
  CsvRecord record;
  std::size_t skipped = 0;
};

AugpeCsvStream::AugpeCsvStream(const std::filesystem::path& path, const CsvReadOptions& options,
                               std::size_t block_bytes)
    : state_(std::make_unique<State>(path, block_bytes)) {
  State& s = *state_;
  s.options = options;
  s.prefixes = prefixes_for_columns(options.label_columns, options.label_prefixes);
  s.prefix_seen.assign(s.prefixes.size(), false);
  const std::vector<std::string> header = read_header(s.scanner, s.file);
  s.num_columns = header.size();
  s.text_index = find_column(header, options.text_column, s.file);
  for (const auto& name : options.label_columns) s.label_index.push_back(find_column(header, name, s.file));
}

AugpeCsvStream::~AugpeCsvStream() = default;

std::uint64_t AugpeCsvStream::bytes_read() const { return state_->scanner.bytes_consumed(); }
std::uint64_t AugpeCsvStream::file_size() const { return state_->scanner.file_size(); }

bool AugpeCsvStream::next(std::size_t max_records, Corpus& chunk) {
  State& s = *state_;
  chunk.label_columns = s.options.label_columns;
  chunk.texts.clear();
  chunk.labels.clear();
  chunk.bad_records_skipped = 0;
  // Rough capacity guess (Aug-PE records are ~600 bytes) to avoid repeated regrowth on big files.
  const std::size_t guess = static_cast<std::size_t>((file_size() - std::min(file_size(), bytes_read())) / 512);
  chunk.texts.reserve(std::min(max_records, guess));
  chunk.labels.reserve(std::min(max_records, guess));

  CsvRecord& record = s.record;
  auto bad = [&](const std::string& what) {
    if (s.options.on_bad_record == OnBadRecord::kError) throw input_error_at(s.file, record.line, what);
    ++chunk.bad_records_skipped;
  };
  bool any = false;
  while (chunk.texts.size() < max_records && s.scanner.next(record, s.fields)) {
    any = true;
    if (record.error) {
      bad(record.error);
      continue;
    }
    if (record.num_fields != s.num_columns) {
      bad((record.num_fields < s.num_columns ? "missing column: " : "too many fields: ") +
          std::to_string(record.num_fields) + " fields where the header has " + std::to_string(s.num_columns));
      continue;
    }
    if (!is_valid_utf8(record.raw)) {
      bad("invalid UTF-8");
      continue;
    }
    if (has_nul(record.raw)) {
      bad("NUL byte in the record");
      continue;
    }
    if (is_blank(s.fields[s.text_index])) {
      bad("empty text in column '" + s.options.text_column + "'");
      continue;
    }
    std::vector<std::string> values;
    values.reserve(s.label_index.size());
    for (std::size_t c = 0; c < s.label_index.size(); ++c) {
      values.push_back(s.fields[s.label_index[c]]);
      if (strip_prefix(values.back(), s.prefixes[c])) s.prefix_seen[c] = true;
    }
    // Copied, not moved: the copy is allocated at its exact size and the scanner keeps its
    // grown buffer for the next record (moving made every record regrow from nothing).
    chunk.texts.push_back(s.fields[s.text_index]);
    chunk.labels.push_back(std::move(values));
  }
  s.skipped += chunk.bad_records_skipped;
  chunk.label_prefixes = prefixes_written(s.prefixes, s.prefix_seen);
  return any;
}

std::size_t AugpeCsvStream::bad_records_skipped() const { return state_->skipped; }

Corpus read_augpe_csv(const std::filesystem::path& path, const CsvReadOptions& options) {
  AugpeCsvStream stream(path, options);
  Corpus corpus;
  stream.next(std::numeric_limits<std::size_t>::max(), corpus);
  corpus.texts.shrink_to_fit();
  corpus.labels.shrink_to_fit();
  return corpus;
}

std::vector<std::string> read_csv_header(const std::filesystem::path& path) {
  CsvFileScanner scanner(path, 1 << 16);
  return read_header(scanner, path.string());
}

}  // namespace secpe
