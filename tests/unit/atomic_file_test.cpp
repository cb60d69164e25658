// Output paths: only a new path or a regular file can take an output (an atomic rename would
// replace a device node, a FIFO or a link itself), and a set of outputs is committed so that a
// half-written set never looks complete.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("secpe_atomic_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  std::filesystem::path dir_;
};

TEST_F(AtomicFile, OnlyNewPathsAndRegularFilesTakeOutputs) {
  std::ofstream(dir_ / "file") << "x";
  std::filesystem::create_directory(dir_ / "folder");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  std::filesystem::create_symlink(dir_ / "file", dir_ / "link");
  EXPECT_EQ(output_file_problem(dir_ / "new.csv"), "");
  EXPECT_EQ(output_file_problem(dir_ / "file"), "");
  EXPECT_EQ(output_file_problem(dir_ / "new" / "deeper" / "x.csv"), "");  // folders are made on writing
  EXPECT_EQ(output_file_problem("/dev/full"), "is not a regular file (a device, FIFO or socket)");
  EXPECT_EQ(output_file_problem(dir_ / "fifo"), "is not a regular file (a device, FIFO or socket)");
  EXPECT_EQ(output_file_problem(dir_ / "folder"), "is a folder, not a file");
  EXPECT_EQ(output_file_problem(dir_ / "link"), "is a symbolic link, not a regular file");
  EXPECT_EQ(output_file_problem(dir_ / "file" / "x.csv"), "is inside '" + (dir_ / "file").string() + "', which is not a folder");
  EXPECT_EQ(output_folder_problem(dir_ / "folder"), "");
  EXPECT_EQ(output_folder_problem(dir_ / "new"), "");
  EXPECT_EQ(output_folder_problem(dir_ / "file"), "exists and is not a folder");

  // The writers refuse too, whatever the caller checked before.
  EXPECT_THROW(write_file_atomically(dir_ / "fifo", [](std::ostream& o) { o << "x"; }), InputError);
  EXPECT_THROW(write_file_atomically(dir_ / "link", [](std::ostream& o) { o << "x"; }), InputError);
  EXPECT_TRUE(std::filesystem::is_fifo(dir_ / "fifo"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "link"));
}

TEST_F(AtomicFile, AFileSetIsCompleteOnlyWithItsMarker) {
  auto text = [](const std::string& s) { return [s](std::ostream& o) { o << s; }; };
  write_file_set(dir_, {{"report", text("r1")}, {"data", text("d1")}, {"marker", text("m1")}});
  EXPECT_EQ(read("report") + read("data") + read("marker"), "r1d1m1");

  // A second set fails half-way: the old marker is gone, so the folder no longer looks complete,
  // and the report was written before the data.
  const auto failing = [](std::ostream&) { throw InputError("disk full"); };
  EXPECT_THROW(write_file_set(dir_, {{"report", text("r2")}, {"data", failing}, {"marker", text("m2")}}), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "marker"));
  EXPECT_EQ(read("report"), "r2");
  EXPECT_EQ(read("data"), "d1");
}

}  // namespace
}  // namespace secpe
