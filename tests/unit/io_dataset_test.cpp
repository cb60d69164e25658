#include <gtest/gtest.h>

#include <hdf5.h>

#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

// True when a temporary file of an atomic write of `path` ("PATH.tmp.PID") is still there.
bool temporary_left_behind(const std::filesystem::path& path) {
  const std::string prefix = path.filename().string() + ".tmp.";
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path()))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}


using testing_io::TempFile;

using testing_io::make_contents;

TEST(Dataset, WriteReadRoundTripWithRanges) {
  TempFile file("rt.h5");
  const std::size_t n = 2500;  // more than one chunk of embeddings rows
  const auto c = make_contents(n);
  write_dataset(file.path(), c);
  EXPECT_FALSE(temporary_left_behind(file.path()));

  DatasetReader reader(file.path());
  const auto& info = reader.info();
  EXPECT_EQ(info.num_records, n);
  EXPECT_EQ(info.num_secrets, 4);
  EXPECT_EQ(info.embedding_dim, 3);
  EXPECT_TRUE(info.has_text);
  EXPECT_EQ(info.labels.columns, c.labels.columns);
  EXPECT_EQ(info.labels.prefixes, c.labels.prefixes);
  EXPECT_EQ(info.labels.values, c.labels.values);
  EXPECT_EQ(info.labels.display(0), "Restaurants | 5.0");
  EXPECT_EQ(info.provenance.at("format"), "secpe-dataset");
  EXPECT_EQ(info.provenance.at("format_version"), kDatasetFormatVersion);
  EXPECT_EQ(info.provenance.at("source"), "dev.csv");
  EXPECT_EQ(info.provenance.at("empty"), "");

  // Whole file, an inner range, an empty range and a range at the end.
  for (const auto& [begin, end] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, n}, {1000, 1037}, {17, 17}, {n, n}, {n - 3, n}}) {
    SCOPED_TRACE(std::to_string(begin) + ".." + std::to_string(end));
    const auto ids = reader.label_ids(begin, end);
    ASSERT_EQ(ids.size(), end - begin);
    const auto texts = reader.texts(begin, end);
    ASSERT_EQ(texts.size(), end - begin);
    const auto secrets = reader.secrets(begin, end);
    ASSERT_EQ(secrets.rows(), end - begin);
    EXPECT_EQ(secrets.indptr.front(), c.secrets.indptr[begin]);  // absolute offsets
    EXPECT_EQ(secrets.indices.size(), static_cast<std::size_t>(c.secrets.indptr[end] - c.secrets.indptr[begin]));
    EXPECT_EQ(secrets.num_secrets, 4);
    const auto emb = reader.embeddings(begin, end);
    ASSERT_EQ(emb.rows(), static_cast<Eigen::Index>(end - begin));
    ASSERT_EQ(emb.cols(), 3);
    for (std::uint64_t i = begin; i < end; ++i) {
      const auto r = i - begin;
      EXPECT_EQ(ids[r], c.label_ids[i]);
      EXPECT_EQ(texts[r], c.texts[i]);
      EXPECT_EQ(secrets.is_private(r), c.secrets.indptr[i + 1] > c.secrets.indptr[i]);
      const auto got = secrets.secrets_of(r);
      const std::vector<std::int32_t> want(c.secrets.indices.begin() + c.secrets.indptr[i],
                                           c.secrets.indices.begin() + c.secrets.indptr[i + 1]);
      EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.end()), want);
      EXPECT_EQ(emb.row(static_cast<Eigen::Index>(r)), c.embeddings.row(static_cast<Eigen::Index>(i)));
    }
  }
  EXPECT_THROW(reader.label_ids(5, n + 1), std::out_of_range);
}

TEST(Dataset, SecretCategoriesRoundTrip) {
  TempFile file("categories.h5");
  auto c = make_contents(10);
  c.secret_categories = {"EMAIL", "PERSON", kListCategory, "EMAIL"};
  write_dataset(file.path(), c);
  EXPECT_EQ(DatasetReader(file.path()).secret_categories(), c.secret_categories);
  c.secret_categories.pop_back();
  EXPECT_THROW(write_dataset(file.path(), c), std::invalid_argument);
}

// A version 2 file (before /secrets/categories) still reads; its categories follow from its secret mode.
TEST(Dataset, Version2FilesReadWithCategoriesFromTheSecretMode) {
  TempFile file("v2.h5");
  for (const auto& [mode, category] : std::vector<std::pair<std::string, std::string>>{
           {"random-word", kRandomWordCategory}, {"list:secrets.txt", kListCategory}, {"other", "UNKNOWN"}}) {
    auto c = make_contents(10);
    c.provenance["secret_mode"] = mode;
    write_dataset(file.path(), c);
    {
      const hid_t f = H5Fopen(file.str().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      H5Adelete(f, "format_version");
      h5::write_string_attribute(f, "format_version", "2", "test");
      H5Fclose(f);
    }
    DatasetReader reader(file.path());
    EXPECT_EQ(reader.info().provenance.at("format_version"), "2");
    EXPECT_EQ(reader.secret_categories(), std::vector<std::string>(4, category));
  }
}

TEST(Dataset, TextsByIdsCoalescesRunsAndKeepsCallerOrder) {
  TempFile file("ids.h5");
  const auto c = make_contents(300);
  write_dataset(file.path(), c);
  DatasetReader reader(file.path());
  const std::vector<std::uint64_t> sorted = {0, 1, 2, 7, 8, 8, 150, 299};
  const auto texts = reader.texts(sorted);
  ASSERT_EQ(texts.size(), sorted.size());
  for (std::size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(texts[k], c.texts[sorted[k]]);
  const std::vector<std::uint64_t> unsorted = {299, 3, 4, 0};
  const auto texts2 = reader.texts(unsorted);
  for (std::size_t k = 0; k < unsorted.size(); ++k) EXPECT_EQ(texts2[k], c.texts[unsorted[k]]);
  EXPECT_TRUE(reader.texts(std::vector<std::uint64_t>{}).empty());
}

TEST(Dataset, EmbeddingOnlyAndNoEmbeddings) {
  TempFile emb_only("emb_only.h5");
  write_dataset(emb_only.path(), make_contents(10, /*with_text=*/false, /*with_embeddings=*/true));
  DatasetReader a(emb_only.path());
  EXPECT_FALSE(a.info().has_text);
  EXPECT_EQ(a.info().embedding_dim, 3);
  EXPECT_THROW(a.texts(0, 1), InputError);
  EXPECT_THROW(a.texts(std::vector<std::uint64_t>{0}), InputError);

  TempFile text_only("text_only.h5");
  write_dataset(text_only.path(), make_contents(10, /*with_text=*/true, /*with_embeddings=*/false));
  DatasetReader b(text_only.path());
  EXPECT_EQ(b.info().embedding_dim, 0);
  const auto emb = b.embeddings(2, 5);
  EXPECT_EQ(emb.rows(), 3);
  EXPECT_EQ(emb.cols(), 0);
}

TEST(Dataset, EmptyDataset) {
  TempFile file("empty.h5");
  DatasetContents c;
  c.labels.columns = {"label1"};
  write_dataset(file.path(), c);
  DatasetReader reader(file.path());
  EXPECT_EQ(reader.info().num_records, 0u);
  EXPECT_EQ(reader.info().labels.prefixes, (std::vector<std::string>{""}));
  EXPECT_TRUE(reader.label_ids(0, 0).empty());
  EXPECT_EQ(reader.secrets(0, 0).rows(), 0u);
}

TEST(Dataset, NotADatasetErrors) {
  TempFile text("plain.h5", "this is not HDF5\n");
  try {
    DatasetReader reader(text.path());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), text.str() + ": not a secpe dataset");
  }
  try {
    DatasetReader reader("/nonexistent/secpe/data.h5");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/secpe/data.h5"), std::string::npos);
  }
}

TEST(Dataset, HdfFileWithoutFormatIsNotADataset) {
  TempFile file("other.h5");
  // An HDF5 file with metadata checksums (secpe's layout) but no secpe attributes.
  h5::create_file(file.str(), file.str());
  try {
    DatasetReader reader(file.path());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), file.str() + ": not a secpe dataset");
  }
  // Any other HDF5 file: HDF5's default layout, without metadata checksums.
  const hid_t f = H5Fcreate(file.str().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  H5Fclose(f);
  try {
    DatasetReader reader(file.path());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.str() + ": not a secpe dataset: its HDF5 superblock (version 0)", 0), 0u) << e.what();
  }
}

TEST(Dataset, FailedWriteLeavesNothingBehind) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "secpe_io_no_such_dir_for_dataset";
  std::filesystem::remove_all(dir);
  EXPECT_THROW(write_dataset(dir / "x.h5", make_contents(5)), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir));

  // A failure half-way through (an attribute HDF5 refuses) removes the temporary file.
  TempFile file("half.h5");
  auto contents = make_contents(5);
  contents.provenance[""] = "nameless";
  EXPECT_THROW(write_dataset(file.path(), contents), InputError);
  EXPECT_FALSE(temporary_left_behind(file.path()));
  EXPECT_FALSE(std::filesystem::exists(file.path()));
}

}  // namespace
}  // namespace secpe
