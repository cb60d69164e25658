#pragma once
// The recipe half of the dataset fuzz target: bytes, read in order (0 once they run out), describe
// a small valid dataset, written with the project's writer (so whatever it adds, checksums
// included, is there), and then up to 8 damages applied with HDF5 calls.
//
//   records n (% 9), label rows (1 + % 4), label columns (1 + % 2), secrets m (% 5),
//   embedding dim (% 4), texts (% 2); per record: label id, secret count (% 3) and, when m > 0,
//   that many secret ids, then one byte per embedding value (an entry of kValues).
//   damage: op (% 5), dataset (an entry of kDatasets; op 4 ignores it), then per op
//     0 set element:  flat index, 4 bytes (an integer, or a float's bits; strings stay)
//     1 resize:       axis, change (% 5 - 2) of its extent (every dataset is chunked, unlimited)
//     2 delete
//     3 retype:       type (% 4), rank (% 2 + 1); same extent, zero-filled
//     4 attribute:    which (% 3), value (length % 9, then its bytes)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"

namespace secpe::fuzz {

class RecipeBytes {
 public:
  RecipeBytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(u8()) << (8 * k);
    return v;
  }
  std::string text(std::size_t max) {
    std::string s(u8() % (max + 1), '\0');
    for (auto& c : s) c = static_cast<char>(u8());
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

inline DatasetContents recipe_contents(RecipeBytes& in) {
  static const float kValues[] = {0.0f, 1.0f, -1.0f, 0.5f, 0.25f, -0.5f, 1e-3f, 2.0f};  // NaNs come from damage
  const std::size_t n = in.u8() % 9, rows = 1 + in.u8() % 4, columns = 1 + in.u8() % 2, m = in.u8() % 5;
  const std::size_t dim = in.u8() % 4;
  const bool texts = in.u8() % 2;
  DatasetContents c;
  for (std::size_t k = 0; k < columns; ++k) c.labels.columns.push_back("label" + std::to_string(k + 1));
  for (std::size_t l = 0; l < rows; ++l) {
    c.labels.values.emplace_back();
    for (std::size_t k = 0; k < columns; ++k) c.labels.values.back().push_back("v" + std::to_string(l) + std::to_string(k));
  }
  c.secrets.indptr = {0};
  c.embeddings = MatrixF(n, dim);
  for (std::size_t i = 0; i < n; ++i) {
    c.label_ids.push_back(static_cast<std::int32_t>(in.u8() % rows));
    std::set<std::int32_t> ids;
    for (int k = in.u8() % 3; k > 0 && m > 0; --k) ids.insert(static_cast<std::int32_t>(in.u8() % m));
    c.secrets.indices.insert(c.secrets.indices.end(), ids.begin(), ids.end());
    c.secrets.indptr.push_back(static_cast<std::int64_t>(c.secrets.indices.size()));
    for (std::size_t k = 0; k < dim; ++k) c.embeddings(i, k) = kValues[in.u8() % 8];
    if (texts) c.texts.push_back("record " + std::to_string(i));
  }
  for (std::size_t j = 0; j < m; ++j) c.secret_names.push_back("secret" + std::to_string(j));
  c.secrets.num_secrets = static_cast<std::int32_t>(m);
  return c;
}

// One damage; an HDF5 call that refuses it (e.g. a negative extent) just leaves the file as it was.
inline void damage(hid_t file, RecipeBytes& in) {
  static const char* const kDatasets[] = {"labels/ids",    "labels/values",   "labels/columns", "labels/prefixes",
                                          "secrets/indptr", "secrets/indices", "secrets/names",  "text/offsets",
                                          "text/bytes",     "embeddings"};
  const int op = in.u8() % 5;
  const char* name = kDatasets[in.u8() % std::size(kDatasets)];
  if (op == 4) {
    static const char* const kOwners[][2] = {{".", "format_version"}, {"secrets", "num_secrets"}, {".", "format"}};
    const auto& [owner, attribute] = kOwners[in.u8() % 3];
    const std::string value = in.text(8);
    const hid_t object = H5Oopen(file, owner, H5P_DEFAULT);
    if (object < 0) return;
    h5::Id guard(object, H5Oclose);
    if (H5Aexists(object, attribute) > 0) H5Adelete(object, attribute);
    try {
      h5::write_string_attribute(object, attribute, value, "recipe");
    } catch (const InputError&) {
    }
    return;
  }
  if (!h5::exists(file, name)) return;
  if (op == 2) {
    H5Ldelete(file, name, H5P_DEFAULT);
    return;
  }
  h5::Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) return;
  h5::Id space(H5Dget_space(dataset.get()), H5Sclose);
  std::vector<hsize_t> dims(std::max(H5Sget_simple_extent_ndims(space.get()), 0));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (op == 0) {
    const hsize_t total = std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<>());
    const hsize_t flat = in.u8();
    const std::uint32_t bits = in.u32();
    if (total == 0 || dims.empty()) return;
    std::vector<hsize_t> coord(dims.size());
    for (std::size_t k = dims.size(), rest = flat % total; k-- > 0; rest /= dims[k]) coord[k] = rest % dims[k];
    H5Sselect_elements(space.get(), H5S_SELECT_SET, 1, coord.data());
    const hsize_t one = 1;
    h5::Id memory(H5Screate_simple(1, &one, nullptr), H5Sclose);
    h5::Id type(H5Dget_type(dataset.get()), H5Tclose);
    const H5T_class_t type_class = H5Tget_class(type.get());
    if (type_class == H5T_FLOAT) {
      float value;
      std::memcpy(&value, &bits, sizeof value);
      H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, &value);
    } else if (type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_NONE) {
      const std::uint64_t value = bits;
      H5Dwrite(dataset.get(), H5T_NATIVE_UINT64, memory.get(), space.get(), H5P_DEFAULT, &value);
    } else if (type_class == H5T_INTEGER) {
      const std::int64_t value = static_cast<std::int32_t>(bits);
      H5Dwrite(dataset.get(), H5T_NATIVE_INT64, memory.get(), space.get(), H5P_DEFAULT, &value);
    }
  } else if (op == 1) {
    const std::size_t axis = in.u8() % std::max<std::size_t>(dims.size(), 1);
    const int change = in.u8() % 5 - 2;
    if (dims.empty() || (change < 0 && dims[axis] < static_cast<hsize_t>(-change))) return;
    dims[axis] += change;
    H5Dset_extent(dataset.get(), dims.data());
  } else {
    const hid_t types[] = {H5T_IEEE_F64LE, H5T_STD_I8LE, H5T_STD_U64LE, H5T_C_S1};  // ids exist once HDF5 is open
    const hid_t type = types[in.u8() % 4];
    const int rank = in.u8() % 2 + 1;
    std::vector<hsize_t> shape(rank, 1);
    for (int k = 0; k < rank && k < static_cast<int>(dims.size()); ++k) shape[k] = dims[k];
    dataset.reset();
    H5Ldelete(file, name, H5P_DEFAULT);
    try {
      h5::create_dataset(file, name, type, type, shape, std::vector<hsize_t>(rank, 64), nullptr, "recipe");
    } catch (const InputError&) {
    }
  }
}

inline void write_recipe(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size) {
  RecipeBytes in(data, size);
  write_dataset(path, recipe_contents(in));
  h5::init_library();
  h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  for (int k = 0; k < 8 && !in.empty(); ++k) damage(file.get(), in);
}

}  // namespace secpe::fuzz
