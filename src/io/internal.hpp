#pragma once
// Helpers shared by the corpus readers and writers; not part of the public io interface.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/corpus.hpp"

namespace secpe {

bool is_valid_utf8(std::string_view s);

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// The file opened for binary reading. InputError naming it when it is a directory or cannot be opened.
FilePtr open_input_file(const std::filesystem::path& path);

// The whole file in memory: one read, so parsing can be a single pass over a buffer.
// InputError naming the file when it is missing or unreadable.
std::string read_whole_file(const std::filesystem::path& path);

// One prefix per label column: missing trailing prefixes mean "none"; more prefixes than columns
// is a user error (InputError).
std::vector<std::string> prefixes_for_columns(const std::vector<std::string>& columns,
                                              const std::vector<std::string>& prefixes);

// Removes `prefix` from the front of `value` when it is there; true when it was.
bool strip_prefix(std::string& value, const std::string& prefix);

// The prefix each column is written back with: the given one where some value carried it, ""
// where none did (a column of plain values stays plain in synthetic.csv).
std::vector<std::string> prefixes_written(const std::vector<std::string>& prefixes, const std::vector<bool>& seen);

// True when `s` holds a NUL byte: HDF5's fixed-length strings and C APIs would cut the value
// there, so a record with one is refused at import rather than silently changed.
inline bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

// True when the text has no non-whitespace character (such a record has nothing to learn from).
bool is_blank(std::string_view text);

}  // namespace secpe
