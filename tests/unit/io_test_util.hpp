#pragma once
// Unique temporary files for the io tests, removed when the test ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/dataset.hpp"

namespace secpe::testing_io {

class TempFile {
 public:
  explicit TempFile(const std::string& name) {
    static std::atomic<int> counter{0};
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test_name = test ? test->name() : "x";
    for (char& ch : test_name) {
      if (ch == '/') ch = '_';  // parameterised test names hold slashes
    }
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("secpe_io_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + test_name + "_" + name);
  }
  TempFile(const std::string& name, const std::string& content) : TempFile(name) { write(content); }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  void write(const std::string& content) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << content;
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// n records: record i has text "record i" (some multi-byte), label i % 3, secrets {i % 4} when
// i % 4 != 0 (plus secret 0 when i % 5 == 0), and an embedding row (i, i + 0.5, -i).
inline DatasetContents make_contents(std::size_t n, bool with_text = true, bool with_embeddings = true) {
  DatasetContents c;
  c.labels.columns = {"label1", "label2"};
  c.labels.prefixes = {"Business Category: ", "Review Stars: "};
  c.labels.values = {{"Restaurants", "5.0"}, {"Bars", "1.0"}, {"Home, Garden", "3.0"}};
  c.secret_names = {"alpha", "beta", "gamma", "delta"};
  c.secrets.indptr.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    c.label_ids.push_back(static_cast<std::int32_t>(i % 3));
    if (with_text) c.texts.push_back("record " + std::to_string(i) + (i % 7 == 0 ? " ünïcödé\n" : ""));
    if (i % 5 == 0) c.secrets.indices.push_back(0);
    if (i % 4 != 0) c.secrets.indices.push_back(static_cast<std::int32_t>(i % 4));
    c.secrets.indptr.push_back(static_cast<std::int64_t>(c.secrets.indices.size()));
  }
  c.secrets.num_secrets = 4;
  if (with_embeddings) {
    c.embeddings.resize(static_cast<Eigen::Index>(n), 3);
    for (std::size_t i = 0; i < n; ++i) {
      c.embeddings.row(static_cast<Eigen::Index>(i)) << static_cast<float>(i), i + 0.5f, -static_cast<float>(i);
    }
  }
  c.provenance = {{"source", "dev.csv"}, {"embedder", "hashing"}, {"empty", ""}};
  return c;
}

}  // namespace secpe::testing_io
