// Damaged datasets: every structure is checked on read, and bit flips anywhere in the file are
// caught by the checksums, so a damaged file fails with an InputError naming the file and the
// structure and never reads back different data (in particular never a private record public).
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include "core/error.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::make_contents;
using testing_io::TempFile;

// Everything a reader returns, for comparing a damaged file with the original.
struct Everything {
  DatasetInfo info;
  std::vector<std::int32_t> labels;
  SecretMatrix secrets;
  MatrixF embeddings;
  std::vector<std::string> texts, names;
  bool operator==(const Everything& o) const {
    return info.num_records == o.info.num_records && info.labels.values == o.info.labels.values &&
           info.labels.columns == o.info.labels.columns && info.labels.prefixes == o.info.labels.prefixes &&
           info.num_secrets == o.info.num_secrets && info.embedding_dim == o.info.embedding_dim &&
           info.provenance == o.info.provenance && labels == o.labels && secrets.indptr == o.secrets.indptr &&
           secrets.indices == o.secrets.indices && embeddings == o.embeddings && texts == o.texts && names == o.names;
  }
};

Everything read_everything(const std::filesystem::path& path) {
  DatasetReader reader(path);
  const auto n = reader.info().num_records;
  return {reader.info(), reader.label_ids(0, n), reader.secrets(0, n), reader.embeddings(0, n), reader.texts(0, n),
          reader.secret_names()};
}

// Rewrites part of a dataset through HDF5 (so its checksums stay valid): damage a buggy writer
// could make, which only the structural checks can catch.
class Editor {
 public:
  explicit Editor(const std::filesystem::path& path) : file_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {}
  ~Editor() { H5Fclose(file_); }
  template <class T>
  void set(const char* name, hid_t mem_type, hsize_t at, T value) {
    const hid_t dataset = H5Dopen2(file_, name, H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    const int rank = H5Sget_simple_extent_ndims(space);
    const hsize_t start[2] = {at, 0}, count[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t memory = H5Screate_simple(rank, count, nullptr);
    EXPECT_GE(H5Dwrite(dataset, mem_type, memory, space, H5P_DEFAULT, &value), 0);
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(dataset);
  }
  void set_rows(const char* name, hsize_t rows, hsize_t cols) {
    const hid_t dataset = H5Dopen2(file_, name, H5P_DEFAULT);
    const hsize_t dims[2] = {rows, cols};
    EXPECT_GE(H5Dset_extent(dataset, dims), 0);
    H5Dclose(dataset);
  }
  void set_attribute(const char* object, const char* name, const std::string& value) {
    const hid_t loc = H5Oopen(file_, object, H5P_DEFAULT);
    H5Adelete(loc, name);
    h5::write_string_attribute(loc, name, value, "test");
    H5Oclose(loc);
  }
  // Replaces /NAME by a one-dimensional array of `n` zeros of `type`, with or without checksums.
  void replace(const char* name, hid_t type, hsize_t n, bool checksums) {
    EXPECT_GE(H5Ldelete(file_, name, H5P_DEFAULT), 0);
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t props = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(props, 1, &n);
    if (checksums) H5Pset_fletcher32(props);
    const hid_t dataset = H5Dcreate2(file_, name, type, space, H5P_DEFAULT, props, H5P_DEFAULT);
    const std::vector<std::int64_t> zeros(n, 0);
    H5Dwrite(dataset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
    H5Dclose(dataset);
    H5Pclose(props);
    H5Sclose(space);
  }

 private:
  hid_t file_;
};

void expect_damaged(const std::filesystem::path& path, const std::string& needle) {
  try {
    read_everything(path);
    FAIL() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string() + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    for (const std::string secret : {"alpha", "beta", "gamma", "delta"}) EXPECT_EQ(msg.find(secret), std::string::npos) << msg;
  }
}

// One damage per case: each was read without complaint (or crashed the reader's users) before.
TEST(DatasetDamage, EveryStructureIsCheckedOnRead) {
  struct Case {
    const char* name;
    std::function<void(Editor&)> damage;
    const char* needle;
  };
  const auto contents = make_contents(60);
  const hsize_t nnz = contents.secrets.indices.size();
  const std::vector<Case> cases = {
      {"label_too_big", [](Editor& e) { e.set<std::int32_t>("labels/ids", H5T_NATIVE_INT32, 7, 999999); },
       "/labels/ids: record 7 has label id 999999, outside the 3 rows"},
      {"label_negative", [](Editor& e) { e.set<std::int32_t>("labels/ids", H5T_NATIVE_INT32, 3, -1); }, "record 3 has label id -1"},
      {"fewer_label_rows", [](Editor& e) { e.set_rows("labels/values", 2, 2); }, "has label id 2, outside the 2 rows"},
      {"secret_index_too_big", [](Editor& e) { e.set<std::int32_t>("secrets/indices", H5T_NATIVE_INT32, 4, 4); },
       "/secrets/indices: record"},
      {"secret_index_negative", [](Editor& e) { e.set<std::int32_t>("secrets/indices", H5T_NATIVE_INT32, 0, -2); },
       "secret index outside [0, 4)"},
      {"indptr_decreases", [](Editor& e) { e.set<std::int64_t>("secrets/indptr", H5T_NATIVE_INT64, 3, 1); },
       "/secrets/indptr decreases at record 2"},
      {"indptr_start", [](Editor& e) { e.set<std::int64_t>("secrets/indptr", H5T_NATIVE_INT64, 0, 1); },
       "/secrets/indptr must run from 0"},
      {"indptr_end", [](Editor& e) { e.set<std::int64_t>("secrets/indptr", H5T_NATIVE_INT64, 60, 3); },
       "/secrets/indptr must run from 0 to the number of /secrets/indices"},
      {"embedding_nan", [](Editor& e) { e.set<float>("embeddings", H5T_NATIVE_FLOAT, 11, std::nanf("")); },
       "/embeddings: record 11 has a non-finite value"},
      {"embedding_inf", [](Editor& e) { e.set<float>("embeddings", H5T_NATIVE_FLOAT, 0, std::numeric_limits<float>::infinity()); },
       "/embeddings: record 0"},
      {"text_offsets", [](Editor& e) { e.set<std::uint64_t>("text/offsets", H5T_NATIVE_UINT64, 5, 0); },
       "/text/offsets decreases at record 4"},
      {"num_secrets", [](Editor& e) { e.set_attribute("secrets", "num_secrets", "5"); }, "num_secrets disagree"},
      {"num_secrets_text", [](Editor& e) { e.set_attribute("secrets", "num_secrets", "4x"); }, "num_secrets is not a count"},
      {"ids_type", [](Editor& e) { e.replace("labels/ids", H5T_IEEE_F64LE, 60, true); }, "/labels/ids has the wrong element type"},
      {"ids_shape", [](Editor& e) { e.replace("secrets/indptr", H5T_STD_I64LE, 60, true); }, "/secrets/indptr needs n + 1 entries"},
      {"no_checksums", [&](Editor& e) { e.replace("secrets/indices", H5T_STD_I32LE, nnz, false); }, "/secrets/indices has no checksums"},
      {"old_version", [](Editor& e) { e.set_attribute("/", "format_version", "1"); }, "import it again"},
      {"untouched", [](Editor&) {}, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempFile file(std::string(c.name) + ".h5");
    write_dataset(file.path(), contents);
    {
      Editor editor(file.path());
      c.damage(editor);
    }
    if (std::string(c.needle).empty()) {
      EXPECT_NO_THROW(read_everything(file.path()));  // the editor alone damages nothing
    } else {
      expect_damaged(file.path(), c.needle);
    }
  }
}

// The same dataset copied into a file of HDF5's oldest layout (superblock version 0, object headers
// without checksums) reads back whole without the check, and is refused with it: damage there would
// reach libhdf5's decoders unchecked (the fuzz target's old seed crashed them).
TEST(DatasetDamage, FilesWithoutMetadataChecksumsAreRefused) {
  TempFile written("layout_new.h5"), old("layout_old.h5");
  write_dataset(written.path(), make_contents(60));
  const hid_t from = H5Fopen(written.path().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t to = H5Fcreate(old.path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(from, 0);
  ASSERT_GE(to, 0);
  const auto copy_link = [](hid_t group, const char* name, const H5L_info_t*, void* target) -> herr_t {
    return H5Ocopy(group, name, *static_cast<hid_t*>(target), name, H5P_DEFAULT, H5P_DEFAULT);
  };
  hid_t target = to;
  ASSERT_GE(H5Literate(from, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, copy_link, &target), 0);
  const auto copy_attribute = [](hid_t loc, const char* name, const H5A_info_t*, void* target) -> herr_t {
    const hid_t attribute = H5Aopen(loc, name, H5P_DEFAULT);
    h5::write_string_attribute(*static_cast<hid_t*>(target), name, h5::read_string_attribute(attribute, "test"), "test");
    return H5Aclose(attribute);
  };
  ASSERT_GE(H5Aiterate2(from, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, copy_attribute, &target), 0);
  H5F_info2_t layout;
  ASSERT_GE(H5Fget_info2(to, &layout), 0);
  EXPECT_EQ(layout.super.version, 0u);
  H5Fclose(from);
  H5Fclose(to);
  expect_damaged(old.path(), "not a secpe dataset: its HDF5 superblock (version 0) has no metadata checksums");
}

// The dataset fuzz target mutates this seed: it must be a file today's reader takes whole, or the
// fuzzer spends its time on a layout the reader refuses (its old seed, superblock version 0, was
// one). Write it again (write_dataset of corpus/dataset/recipe-clean) when the format changes.
TEST(DatasetDamage, TheFuzzSeedIsTodaysFormat) {
  const auto seed = std::filesystem::path(SECPE_TEST_DATA) / ".." / "fuzz" / "corpus" / "dataset" / "raw-clean.h5";
  EXPECT_NO_THROW(read_everything(seed));
  EXPECT_EQ(DatasetReader(seed).info().provenance.at("format_version"), kDatasetFormatVersion);
}

// A secret index that moves to the neighbouring record keeps /secrets/indptr non-decreasing and
// would make record 1 public (its secret given to record 2): only the checksum can tell, and it
// does, for every bit of the array.
TEST(DatasetDamage, BitFlipsInTheStoredIndptrAreCaught) {
  TempFile file("indptr_flip.h5");
  const auto contents = make_contents(60);
  write_dataset(file.path(), contents);
  std::string bytes;
  {
    std::ifstream in(file.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // indptr[1] == 1 and indptr[2] == 2 (records 1 and 2 hold secret 1 and 2): find the stored
  // little-endian array [0, 1, 2, 3] and make indptr[1] 0.
  std::string needle(32, '\0');
  for (int i = 0; i < 4; ++i) needle[static_cast<std::size_t>(8 * i)] = static_cast<char>(contents.secrets.indptr[static_cast<std::size_t>(i)]);
  const auto at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(contents.secrets.indptr[1], 1);
  bytes[at + 8] = '\0';
  std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << bytes;
  expect_damaged(file.path(), "/secrets/indptr does not match its checksums");
}

// Every bit flip in a sample of positions over the whole file either fails with an InputError or
// changes nothing that is read (free space, padding).
TEST(DatasetDamage, BitFlipsAnywhereNeverReadBackSilently) {
  TempFile file("flips.h5");
  write_dataset(file.path(), make_contents(300));
  const Everything original = read_everything(file.path());
  std::string bytes;
  {
    std::ifstream in(file.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  TempFile damaged("flipped.h5", bytes);
  std::fstream out(damaged.path(), std::ios::binary | std::ios::in | std::ios::out);
  auto put = [&](std::size_t pos, char value) {
    out.seekp(static_cast<std::streamoff>(pos));
    out.put(value);
    out.flush();
  };
  std::size_t caught = 0, harmless = 0;
  for (std::size_t pos = 0; pos < bytes.size(); pos += 7) {
    put(pos, static_cast<char>(bytes[pos] ^ (1 << (pos % 8))));
    try {
      const bool same = read_everything(damaged.path()) == original;
      EXPECT_TRUE(same) << "a flip at byte " << pos << " of " << bytes.size() << " read back different data";
      ++harmless;
    } catch (const InputError&) {
      ++caught;
    }
    put(pos, bytes[pos]);
  }
  EXPECT_GT(caught, harmless);
  std::cout << "bit flips: " << caught << " caught, " << harmless << " in bytes nothing reads\n";
}

}  // namespace
}  // namespace secpe
