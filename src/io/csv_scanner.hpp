#pragma once
// RFC 4180 record scanner over an in-memory buffer. It never throws: a malformed record is
// returned with `error` set so the caller can report it (file:line) or skip it.
#include <cstddef>
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
  explicit CsvScanner(std::string_view data);
  // Reads the next record into `record` and `fields` (reused between calls to avoid allocation).
  // Blank lines are skipped. Returns false at the end of the data.
  bool next(CsvRecord& record, std::vector<std::string>& fields);

 private:
  void read_quoted(std::string& field, CsvRecord& record);
  void count_line_breaks(std::size_t begin, std::size_t end);
  bool at_line_break() const;
  void consume_line_break();

  std::string_view data_;
  std::size_t pos_ = 0;
  long long line_ = 1;
};

}  // namespace secpe
