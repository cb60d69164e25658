#pragma once
// A text corpus as read from a user's file: texts and their label values, before it becomes an
// HDF5 dataset. Label values are stored as they are written in the file (a JSON number 5.0 as
// "5.0", never re-printed), minus a stripped prefix (Aug-PE writes "Business Category:
// Restaurants"; we store "Restaurants"). A column's prefix is recorded only when some value of it
// carried the prefix, so synthetic.csv writes the labels back as the input had them: with the
// prefix for Aug-PE-shaped input, plain for plain columns.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace secpe {

struct Corpus {
  std::vector<std::string> label_columns;    // column (or JSON field) names, e.g. {"label1","label2"}
  std::vector<std::string> label_prefixes;   // per column: the prefix stripped from its values ("" when none carried it)
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> labels;  // per record, one value per label column
  std::size_t bad_records_skipped = 0;           // with on_bad_record = skip
};

enum class OnBadRecord { kError, kSkip };
inline constexpr EnumNames<OnBadRecord, 2> kOnBadRecordNames{{{OnBadRecord::kError, "error"}, {OnBadRecord::kSkip, "skip"}}};

struct CsvReadOptions {
  std::string text_column = "text";
  std::vector<std::string> label_columns = {"label1", "label2"};
  // Stripped from the start of each label column's values when present (one per label column);
  // Corpus::label_prefixes records it for the columns where some value carried it.
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
  // counts the records skipped on the way, chunk.label_prefixes the prefixes carried by some value
  // so far. False when the file held nothing more.
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

// One JSON object per line; label values may be strings or numbers, kept as written.
Corpus read_jsonl(const std::filesystem::path& path, const JsonlReadOptions& options);
// The field names of the first record (sorted); InputError when there is none or it is no object.
std::vector<std::string> read_jsonl_field_names(const std::filesystem::path& path);

// The two corpus formats: Aug-PE's CSV and JSON lines. `given` is "augpe-csv" (or "csv"),
// "jsonl", or empty for the file's extension (".jsonl": jsonl, else augpe-csv); InputError
// ("must be augpe-csv or jsonl, not ...", for the caller to prefix with its option) otherwise.
enum class CorpusFormat { kAugpeCsv, kJsonl };
inline constexpr EnumNames<CorpusFormat, 3> kCorpusFormatNames{
    {{CorpusFormat::kAugpeCsv, "augpe-csv"}, {CorpusFormat::kJsonl, "jsonl"}, {CorpusFormat::kAugpeCsv, "csv"}}};
CorpusFormat corpus_format(const std::filesystem::path& path, const std::string& given);
// A whole corpus of either format, JSON lines reading the fields that CSV reads as columns.
Corpus read_corpus(const std::filesystem::path& path, CorpusFormat format, const CsvReadOptions& options);
// A file's column (CSV header) or field (first JSON record) names.
std::vector<std::string> read_column_names(const std::filesystem::path& path, CorpusFormat format);
// True when `names` (read_column_names) is the text column alone: an unlabelled corpus (PubMed).
bool is_text_alone(const std::vector<std::string>& names, const std::string& text_column);

// The order of an input's columns, kept so that synthetic.csv comes back in it (OpenReview's
// header is text,label2,label1): per output column, 0 for the text and 1 + c for label column c,
// from the header (a JSONL file's first record) `names`. Empty when it is the text first, then the
// label columns as given. As a dataset keeps it: provenance "column_order", e.g. "0,2,1".
std::vector<int> input_column_order(const std::vector<std::string>& names, const std::string& text_column,
                                    const std::vector<std::string>& label_columns);
std::string column_order_text(const std::vector<int>& order);
// Parses column_order_text for `label_columns` columns; a malformed one is an InputError naming `what`.
std::vector<int> parse_column_order(const std::string& text, std::size_t label_columns, const std::string& what);

// Writes "text,<col1>,<col2>..." (or the columns in `column_order`: input_column_order) and one row
// per record, quoting as RFC 4180 requires and putting each column's prefix back in front of its
// value (Aug-PE's format).
void write_augpe_csv(std::ostream& out, const std::vector<std::string>& label_columns,
                     const std::vector<std::string>& label_prefixes,
                     const std::vector<std::string>& texts,
                     const std::vector<std::vector<std::string>>& labels,
                     const std::vector<int>& column_order = {});

// True when `s` is well-formed UTF-8.
bool is_valid_utf8(const std::string& s);

}  // namespace secpe
