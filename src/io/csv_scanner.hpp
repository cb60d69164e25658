#pragma once
// RFC 4180 record scanner over an in-memory buffer. It never throws: a malformed record is
// returned with `error` set so the caller can report it (file:line) or skip it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace secpe {

struct CsvRecord {
  long long line = 0;           // 1-based physical line where the record starts
  std::string_view raw;         // the record's bytes, for UTF-8 validation
  std::size_t num_fields = 0;   // fields[0 .. num_fields) are this record's
  const char* error = nullptr;  // set when the record is malformed
};

class CsvScanner {
 public:
  // Skips a UTF-8 byte order mark at the start of `data`.
  explicit CsvScanner(std::string_view data);
  // Resumes at byte `pos` of `data`, which is physical line `line` (no byte order mark check).
  CsvScanner(std::string_view data, std::size_t pos, long long line) : data_(data), pos_(pos), line_(line) {}
  // Reads the next record into `record` and `fields` (reused between calls to avoid allocation).
  // Blank lines are skipped. Returns false at the end of the data.
  bool next(CsvRecord& record, std::vector<std::string>& fields);
  std::size_t position() const { return pos_; }  // the first byte not yet scanned
  long long line() const { return line_; }

 private:
  void read_quoted(std::string& field, CsvRecord& record);
  void count_line_breaks(std::size_t begin, std::size_t end);
  bool at_line_break() const;
  void consume_line_break();

  std::string_view data_;
  std::size_t pos_ = 0;
  long long line_ = 1;
};

// CsvScanner over a file read block by block, for files too big to hold at once: it gives exactly
// the records (fields, lines, errors) CsvScanner gives on the whole file. A record that reaches the
// end of the buffer may continue in the next block, so it is scanned again once more is read.
// InputError naming the file when it is missing, a directory or unreadable.
class CsvFileScanner {
 public:
  static constexpr std::size_t kDefaultBlockBytes = std::size_t{16} << 20;
  explicit CsvFileScanner(const std::filesystem::path& path, std::size_t block_bytes = kDefaultBlockBytes);
  bool next(CsvRecord& record, std::vector<std::string>& fields);  // as CsvScanner::next
  std::uint64_t bytes_consumed() const { return buffer_offset_ + scanner_.position(); }
  std::uint64_t file_size() const { return file_size_; }

 private:
  void read_more(std::size_t keep_from);  // drops buffer_[0, keep_from) and appends a block

  std::string name_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::size_t block_bytes_;
  std::uint64_t file_size_ = 0;
  std::string buffer_;
  std::uint64_t buffer_offset_ = 0;  // file offset of buffer_[0]
  bool eof_ = false;
  CsvScanner scanner_{std::string_view()};
};

}  // namespace secpe
