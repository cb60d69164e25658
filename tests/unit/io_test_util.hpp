#pragma once
// Unique temporary files for the io tests, removed when the test ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace secpe::testing_io
