#include <gtest/gtest.h>

#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "io/h5_util.hpp"
#include "io/imported_embeddings.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

// A .npy file as NumPy writes it (version 1.0, header padded to 64 bytes) around raw `data`.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

template <class T>
std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// Row i of the expected matrix: `values` rows, each divided by its L2 norm.
void expect_normalised(const MatrixF& got, const std::vector<double>& values, int rows, int cols) {
  ASSERT_EQ(got.rows(), rows);
  ASSERT_EQ(got.cols(), cols);
  for (int i = 0; i < rows; ++i) {
    double norm = 0;
    for (int j = 0; j < cols; ++j) norm += values[i * cols + j] * values[i * cols + j];
    norm = std::sqrt(norm);
    for (int j = 0; j < cols; ++j) EXPECT_NEAR(got(i, j), values[i * cols + j] / norm, 1e-6) << i << "," << j;
  }
}

void expect_error(const std::filesystem::path& path, const ImportedEmbeddingsOptions& options, const std::string& part) {
  try {
    read_imported_embeddings(path, options);
    ADD_FAILURE() << "no error for " << part;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;  // names the file
    EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

const std::vector<double> kValues = {3, 4, 0, 1, 2, 2, -1, 0, 0};  // 3 x 3

TEST(ImportedEmbeddings, NpyFloat32AndFloat64RoundTripNormalised) {
  const std::vector<float> f32(kValues.begin(), kValues.end());
  TempFile a("a.npy", npy("<f4", "(3, 3)", bytes_of(f32)));
  expect_normalised(read_imported_embeddings(a.path(), {.rows = 3}), kValues, 3, 3);
  TempFile b("b.npy", npy("<f8", "(3, 3)", bytes_of(kValues)));
  expect_normalised(read_imported_embeddings(b.path(), {.rows = 3}), kValues, 3, 3);
}

TEST(ImportedEmbeddings, NpyErrorsNameTheFile) {
  const std::vector<float> f32(kValues.begin(), kValues.end());
  const auto good = bytes_of(f32);
  expect_error(TempFile("rows.npy", npy("<f4", "(3, 3)", good)).path(), {.rows = 4}, "3 embedding rows for 4 records");
  expect_error(TempFile("int.npy", npy("<i4", "(3, 3)", good)).path(), {.rows = 3}, "element type '<i4'");
  expect_error(TempFile("big.npy", npy(">f4", "(3, 3)", good)).path(), {.rows = 3}, "little-endian float32");
  expect_error(TempFile("fortran.npy", npy("<f4", "(3, 3)", good, true)).path(), {.rows = 3}, "Fortran order");
  expect_error(TempFile("flat.npy", npy("<f4", "(9,)", good)).path(), {.rows = 9}, "two dimensions");
  expect_error(TempFile("short.npy", npy("<f4", "(3, 3)", good.substr(0, 20))).path(), {.rows = 3}, "truncated");
  expect_error(TempFile("long.npy", npy("<f4", "(3, 3)", good + "xxxx")).path(), {.rows = 3}, "more bytes");
  expect_error(TempFile("magic.npy", "not numpy at all").path(), {.rows = 3}, "not a .npy file");
  auto nan = f32;
  nan[4] = std::numeric_limits<float>::quiet_NaN();
  expect_error(TempFile("nan.npy", npy("<f4", "(3, 3)", bytes_of(nan))).path(), {.rows = 3}, "row 1 has a NaN or infinite value");
  auto zero = f32;
  zero[6] = 0;
  expect_error(TempFile("zero.npy", npy("<f4", "(3, 3)", bytes_of(zero))).path(), {.rows = 3}, "row 2 is all zeros");
  expect_error(TempFile("e.csv", "1,2\n").path(), {.rows = 1}, "must be a .npy or an HDF5");
  expect_error(TempFile("missing.npy").path(), {.rows = 1}, "no such file");
}

// An HDF5 file with one 2-D dataset `name` of `type` holding `values` (doubles, converted by HDF5).
void write_h5(const std::filesystem::path& path, const std::string& name, hid_t type, const std::vector<double>& values,
              hsize_t rows, hsize_t cols) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[2] = {rows, cols};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t d = H5Dcreate2(f, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

TEST(ImportedEmbeddings, Hdf5RoundTripAndErrors) {
  h5::init_library();
  TempFile f("e.h5");
  write_h5(f.path(), "vectors", H5T_IEEE_F64LE, kValues, 3, 3);
  expect_normalised(read_imported_embeddings(f.path(), {.h5_dataset = "vectors", .rows = 3}), kValues, 3, 3);
  expect_error(f.path(), {.rows = 3}, "no dataset 'embeddings'");
  expect_error(f.path(), {.h5_dataset = "vectors", .rows = 2}, "3 embedding rows for 2 records");
  write_h5(f.path(), "embeddings", H5T_STD_I32LE, kValues, 3, 3);
  expect_error(f.path(), {.rows = 3}, "does not hold floating-point values");
  write_h5(f.path(), "embeddings", H5T_IEEE_F32LE, std::vector<double>(9, 2.0), 9, 1);
  EXPECT_EQ(read_imported_embeddings(f.path(), {.rows = 9}).cols(), 1);
  expect_error(TempFile("text.h5", "not hdf5").path(), {.rows = 3}, "not an HDF5 file");
}

}  // namespace
}  // namespace secpe
