// Reads an Aug-PE CSV corpus. The whole file is read at once and scanned in one pass; columns are
// found by header name so column order and extra columns do not matter. Error messages name the
// file and line only, never the record's text.
#include <optional>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io/csv_scanner.hpp"
#include "io/internal.hpp"

namespace secpe {
namespace {

std::size_t find_column(const std::vector<std::string>& header, std::size_t header_size,
                        const std::string& name, const std::string& file) {
  for (std::size_t i = 0; i < header_size; ++i) {
    if (header[i] == name) return i;
  }
  throw input_error_at(file, 1, "the header has no column '" + name + "'");
}

}  // namespace

Corpus read_augpe_csv(const std::filesystem::path& path, const CsvReadOptions& options) {
  const std::string file = path.string();
  Corpus corpus;
  corpus.label_columns = options.label_columns;
  corpus.label_prefixes = prefixes_for_columns(options.label_columns, options.label_prefixes);

  const std::string data = read_whole_file(path);
  CsvScanner scanner(data);
  std::vector<std::string> fields;
  CsvRecord record;

  // The header is never skipped: without it no record can be read.
  if (!scanner.next(record, fields)) throw InputError(file + ": empty file (no header row)");
  if (record.error) throw input_error_at(file, record.line, std::string(record.error) + " in the header");
  if (!is_valid_utf8(record.raw)) throw input_error_at(file, record.line, "invalid UTF-8 in the header");
  if (has_nul(record.raw)) throw input_error_at(file, record.line, "NUL byte in the header");
  const std::size_t num_columns = record.num_fields;
  const std::size_t text_index = find_column(fields, num_columns, options.text_column, file);
  std::vector<std::size_t> label_index;
  for (const auto& name : options.label_columns) {
    label_index.push_back(find_column(fields, num_columns, name, file));
  }

  // Rough capacity guess (Aug-PE records are ~600 bytes) to avoid repeated regrowth on big files.
  corpus.texts.reserve(data.size() / 512);
  corpus.labels.reserve(data.size() / 512);

  auto bad = [&](const std::string& what) {
    if (options.on_bad_record == OnBadRecord::kError) throw input_error_at(file, record.line, what);
    ++corpus.bad_records_skipped;
  };
  while (scanner.next(record, fields)) {
    if (record.error) {
      bad(record.error);
      continue;
    }
    if (record.num_fields != num_columns) {
      bad((record.num_fields < num_columns ? "missing column: " : "too many fields: ") +
          std::to_string(record.num_fields) + " fields where the header has " +
          std::to_string(num_columns));
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
    if (is_blank(fields[text_index])) {
      bad("empty text in column '" + options.text_column + "'");
      continue;
    }
    std::vector<std::string> values;
    values.reserve(label_index.size());
    for (std::size_t c = 0; c < label_index.size(); ++c) {
      values.push_back(fields[label_index[c]]);
      strip_prefix(values.back(), corpus.label_prefixes[c]);
    }
    // Copied, not moved: the copy is allocated at its exact size and the scanner keeps its
    // grown buffer for the next record (moving made every record regrow from nothing).
    corpus.texts.push_back(fields[text_index]);
    corpus.labels.push_back(std::move(values));
  }
  corpus.texts.shrink_to_fit();
  corpus.labels.shrink_to_fit();
  return corpus;
}

}  // namespace secpe
