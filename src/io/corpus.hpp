#pragma once
// A text corpus as read from a user's file: texts and their label values, before it becomes an
// HDF5 dataset. Label values are stored as they appear in the file, minus any stripped prefix
// (Aug-PE writes "Business Category: Restaurants"; we store "Restaurants").
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace secpe {

struct Corpus {
  std::vector<std::string> label_columns;    // column (or JSON field) names, e.g. {"label1","label2"}
  std::vector<std::string> label_prefixes;   // the prefix stripped from each column ("" for none)
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> labels;  // per record, one value per label column
  std::size_t bad_records_skipped = 0;           // with on_bad_record = skip
};

enum class OnBadRecord { kError, kSkip };

struct CsvReadOptions {
  std::string text_column = "text";
  std::vector<std::string> label_columns = {"label1", "label2"};
  // Stripped from the start of each label column's values when present (one per label column).
  std::vector<std::string> label_prefixes = {"Business Category: ", "Review Stars: "};
  OnBadRecord on_bad_record = OnBadRecord::kError;
};

struct JsonlReadOptions {
  std::string text_field = "text";
  std::vector<std::string> label_fields = {"label1", "label2"};
  std::vector<std::string> label_prefixes = {"", ""};
  OnBadRecord on_bad_record = OnBadRecord::kError;
};

// RFC 4180 CSV with a header row (quoted fields, doubled quotes, embedded newlines and commas).
// A bad record (unterminated quote, invalid UTF-8, missing column, empty text) throws an
// InputError naming the file and the line where the record starts, or is counted and skipped.
Corpus read_augpe_csv(const std::filesystem::path& path, const CsvReadOptions& options);

// The same file read in chunks of records, for corpora too big to hold at once (the real side of
// `secpe eval` may hold 1.9M reviews): the records, errors and skips are exactly read_augpe_csv's.
// The constructor reads the header (InputError for a missing file, an empty file or a missing column).
class AugpeCsvStream {
 public:
  AugpeCsvStream(const std::filesystem::path& path, const CsvReadOptions& options,
                 std::size_t block_bytes = std::size_t{16} << 20);
  ~AugpeCsvStream();
  // Replaces chunk's records with the next (at most max_records) good ones; chunk.bad_records_skipped
  // counts the records skipped on the way. False when the file held nothing more.
  bool next(std::size_t max_records, Corpus& chunk);
  std::uint64_t bytes_read() const;  // for progress
  std::uint64_t file_size() const;
  std::size_t bad_records_skipped() const;  // so far, over every chunk

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The header row's column names (InputError for a missing or empty file, or a malformed header).
std::vector<std::string> read_csv_header(const std::filesystem::path& path);

// One JSON object per line; label values may be strings or numbers.
Corpus read_jsonl(const std::filesystem::path& path, const JsonlReadOptions& options);

// Writes "text,<col1>,<col2>..." and one row per record, quoting as RFC 4180 requires and
// putting each column's prefix back in front of its value (Aug-PE's format).
void write_augpe_csv(std::ostream& out, const std::vector<std::string>& label_columns,
                     const std::vector<std::string>& label_prefixes,
                     const std::vector<std::string>& texts,
                     const std::vector<std::vector<std::string>>& labels);

// True when `s` is well-formed UTF-8.
bool is_valid_utf8(const std::string& s);

}  // namespace secpe
