#pragma once
// Shared by the libFuzzer targets. The readers take a path, so each input is written to a file in
// one temporary folder per process (rewritten for every input, removed at exit). An InputError is
// the expected answer to bad input; `finding` turns a broken promise into a crash libFuzzer saves.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "io/corpus.hpp"

namespace secpe::fuzz {

inline std::filesystem::path input_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  struct TempDir {
    // In memory when the machine has /dev/shm: on disk, writing every input slowed fuzzing 30x.
    std::filesystem::path path = (access("/dev/shm", W_OK) == 0 ? std::filesystem::path("/dev/shm")
                                                                 : std::filesystem::temp_directory_path()) /
                                 ("secpe-fuzz-" + std::to_string(getpid()));
    TempDir() { std::filesystem::create_directories(path); }
    ~TempDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const TempDir dir;
  const auto path = dir.path / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  return path;
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "secpe fuzz finding: %s\n", what.c_str());
  std::abort();
}

// Calls `read`; an InputError gives nullopt, anything else escapes (libFuzzer reports it).
template <class Read>
auto unless_input_error(Read read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// What both corpus readers promise (io/corpus.hpp): the strict mode (stop at a bad record) and the
// lenient one (skip it) agree, and every record kept has a non-blank, valid UTF-8 text and one
// valid UTF-8 value per label column.
inline void check_corpus(const std::optional<Corpus>& strict, const std::optional<Corpus>& lenient, std::size_t columns) {
  if (strict && !lenient) finding("the strict read succeeded and the lenient one failed");
  if (!lenient) return;
  if (strict && (strict->texts != lenient->texts || strict->labels != lenient->labels || strict->bad_records_skipped != 0 ||
                 lenient->bad_records_skipped != 0)) {
    finding("strict and lenient reads disagree on a clean file");
  }
  if (!strict && lenient->bad_records_skipped == 0) finding("the strict read failed but the lenient one skipped nothing");
  if (lenient->texts.size() != lenient->labels.size()) finding("texts and labels differ in count");
  for (std::size_t i = 0; i < lenient->texts.size(); ++i) {
    const auto& text = lenient->texts[i];
    if (text.find_first_not_of(" \t\n\r\f\v") == std::string::npos) finding("blank text kept");
    if (!is_valid_utf8(text)) finding("invalid UTF-8 text kept");
    if (lenient->labels[i].size() != columns) finding("wrong number of label values");
    for (const auto& value : lenient->labels[i]) {
      if (!is_valid_utf8(value)) finding("invalid UTF-8 label value kept");
    }
  }
}

}  // namespace secpe::fuzz
