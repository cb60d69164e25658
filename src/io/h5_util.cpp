// HDF5 helpers: every call is checked and turned into an InputError naming the file; reads of a
// range select a hyperslab so a rank never reads more than its share.
#include "io/h5_util.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "core/error.hpp"

namespace secpe::h5 {

void init_library() {
  static std::once_flag once;
  std::call_once(once, [] {
    H5dont_atexit();  // fails harmlessly when something else started HDF5 first
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

void fail(const std::string& file, const std::string& what) { throw InputError(file + ": " + what); }

Id checked(hid_t id, Id::Closer close, const std::string& file, const std::string& what) {
  if (id < 0) fail(file, what);
  return Id(id, close);
}

void check(herr_t status, const std::string& file, const std::string& what) {
  if (status < 0) fail(file, what);
}

namespace {

// UTF-8 fixed-length string type of `size` bytes, padded with NULs.
Id string_type(std::size_t size, const std::string& file) {
  auto type = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, "cannot create a string type");
  check(H5Tset_size(type.get(), std::max<std::size_t>(size, 1)), file, "cannot size a string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), file, "cannot pad a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), file, "cannot set a string type's character set");
  return type;
}

// Fixed-length strings: each element is `size` bytes, the string ends at the first NUL.
std::vector<std::string> split_fixed(const std::vector<char>& buffer, std::size_t size, std::size_t n) {
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* s = buffer.data() + i * size;
    out[i].assign(s, strnlen(s, size));
  }
  return out;
}

// The groups above a dataset's name, made here without object times (HDF5 would make them with
// its defaults, which record times).
void create_parent_groups(hid_t loc, const std::string& name, const std::string& file, const std::string& what) {
  auto props = checked(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, file, what);
  check(H5Pset_obj_track_times(props.get(), 0), file, what);
  for (std::size_t slash = name.find('/', 1); slash != std::string::npos; slash = name.find('/', slash + 1)) {
    const std::string group = name.substr(0, slash);
    const htri_t exists = H5Lexists(loc, group.c_str(), H5P_DEFAULT);
    if (exists < 0) fail(file, what);
    if (!exists) checked(H5Gcreate2(loc, group.c_str(), H5P_DEFAULT, props.get(), H5P_DEFAULT), H5Gclose, file, what);
  }
}

}  // namespace

Id create_file(const std::string& path, const std::string& file) {
  auto access = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, file, "cannot create the file");
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V110, H5F_LIBVER_V110), file, "cannot create the file");
  // No object times (here the root group's; create_dataset's for the rest): the same content
  // gives the same bytes, and a run's noise is keyed by the dataset's bytes.
  auto creation = checked(H5Pcreate(H5P_FILE_CREATE), H5Pclose, file, "cannot create the file");
  check(H5Pset_obj_track_times(creation.get(), 0), file, "cannot create the file");
  return checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()), H5Fclose, file, "cannot create the file");
}

Id create_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                  const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk_cap,
                  const void* data, const std::string& file) {
  const int rank = static_cast<int>(dims.size());
  const std::vector<hsize_t> max_dims(dims.size(), H5S_UNLIMITED);
  std::vector<hsize_t> chunk(dims.size());
  hsize_t total = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    chunk[i] = std::clamp<hsize_t>(dims[i], 1, chunk_cap[i]);  // small arrays: one small chunk
    total *= dims[i];
  }
  const std::string what = "cannot create dataset " + name;
  auto space = checked(H5Screate_simple(rank, dims.data(), max_dims.data()), H5Sclose, file, what);
  auto props = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, what);
  check(H5Pset_chunk(props.get(), rank, chunk.data()), file, what);
  check(H5Pset_fletcher32(props.get()), file, what);
  check(H5Pset_obj_track_times(props.get(), 0), file, what);
  create_parent_groups(loc, name, file, what);
  auto dataset = checked(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                    props.get(), H5P_DEFAULT),
                         H5Dclose, file, what);
  if (data && total > 0) {
    check(H5Dwrite(dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file,
          "cannot write dataset " + name + " (disk full?)");
  }
  return dataset;
}

namespace {

std::string name_of(hid_t object) {
  char name[256] = "";
  H5Iget_name(object, name, sizeof name);
  return name;
}

// H5Dread, with a failure explained: when the data reads without its checksums checked, the
// checksums are what failed (the buffer, garbage then, is never returned).
void read_checked(hid_t dataset, hid_t mem_type, hid_t mem_space, hid_t file_space, void* out, const std::string& file) {
  if (H5Dread(dataset, mem_type, mem_space, file_space, H5P_DEFAULT, out) >= 0) return;
  const std::string name = name_of(dataset);
  auto transfer = checked(H5Pcreate(H5P_DATASET_XFER), H5Pclose, file, "cannot read " + name);
  const bool mismatch = H5Pset_edc_check(transfer.get(), H5Z_DISABLE_EDC) >= 0 &&
                        H5Dread(dataset, mem_type, mem_space, file_space, transfer.get(), out) >= 0;
  fail(file, mismatch ? "damaged secpe dataset: " + name + " does not match its checksums"
                      : "cannot read " + name + " (damaged file?)");
}

// The file and memory dataspaces of the block [offset, offset + count) of `dataset`, in `rank`
// dimensions (1: a range of elements; 2: whole rows).
std::pair<Id, Id> select_block(hid_t dataset, int rank, const hsize_t* offset, const hsize_t* count, const std::string& file,
                               const std::string& what) {
  auto file_space = checked(H5Dget_space(dataset), H5Sclose, file, "cannot " + what + " data");
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr), file,
        "cannot select data to " + what);
  auto mem_space = checked(H5Screate_simple(rank, count, nullptr), H5Sclose, file, "cannot " + what + " data");
  return {std::move(file_space), std::move(mem_space)};
}

}  // namespace

void write_1d(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t count, const void* data,
              const std::string& file) {
  if (count == 0) return;
  const auto [file_space, mem_space] = select_block(dataset, 1, &offset, &count, file, "write");
  check(H5Dwrite(dataset, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), file,
        "cannot write data (disk full?)");
}

void write_rows(hid_t dataset, hid_t mem_type, hsize_t row, hsize_t rows, hsize_t cols, const void* data,
                const std::string& file) {
  if (rows == 0 || cols == 0) return;
  const hsize_t offset[2] = {row, 0}, count[2] = {rows, cols};
  const auto [file_space, mem_space] = select_block(dataset, 2, offset, count, file, "write");
  check(H5Dwrite(dataset, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), file,
        "cannot write data (disk full?)");
}

void write_strings(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                   const std::vector<hsize_t>& dims, const std::string& file) {
  std::size_t size = 1;
  for (const auto& v : values) size = std::max(size, v.size());
  std::vector<char> buffer(values.size() * size, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(buffer.data() + i * size, values[i].data(), values[i].size());
  auto type = string_type(size, file);
  const std::vector<hsize_t> cap(dims.size(), 1024);
  create_dataset(loc, name, type.get(), type.get(), dims, cap, buffer.data(), file);
}

void write_string_attribute(hid_t loc, const std::string& name, const std::string& value,
                            const std::string& file) {
  const std::string what = "cannot write attribute " + name;
  auto type = string_type(value.size(), file);
  auto space = checked(H5Screate(H5S_SCALAR), H5Sclose, file, what);
  auto attribute = checked(H5Acreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Aclose, file, what);
  std::vector<char> buffer(std::max<std::size_t>(value.size(), 1), '\0');
  std::memcpy(buffer.data(), value.data(), value.size());
  check(H5Awrite(attribute.get(), type.get(), buffer.data()), file, what);
}

bool exists(hid_t loc, const std::string& path) {
  // H5Lexists fails (rather than answering false) when an intermediate group is missing.
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    if (H5Lexists(loc, path.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
    pos = slash + 1;
  }
  return true;
}

Id open_dataset(hid_t loc, const std::string& path, const std::string& file) {
  return checked(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), H5Dclose, file, "cannot open dataset " + path);
}

std::vector<hsize_t> dims_of(hid_t dataset, const std::string& file) {
  auto space = checked(H5Dget_space(dataset), H5Sclose, file, "cannot read a dataset's shape");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(file, "cannot read a dataset's shape");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), file, "cannot read a dataset's shape");
  return dims;
}

bool has_checksums(hid_t dataset, const std::string& file) {
  auto props = checked(H5Dget_create_plist(dataset), H5Pclose, file, "cannot read a dataset's properties");
  unsigned flags = 0, info = 0;
  std::size_t n = 0;
  return H5Pget_filter_by_id2(props.get(), H5Z_FILTER_FLETCHER32, &flags, &n, nullptr, 0, nullptr, &info) >= 0;
}

bool has_type(hid_t dataset, hid_t type, const std::string& file) {
  auto stored = checked(H5Dget_type(dataset), H5Tclose, file, "cannot read a dataset's type");
  return H5Tequal(stored.get(), type) > 0;
}

void read_rows(hid_t dataset, hid_t mem_type, hsize_t row, hsize_t rows, hsize_t cols, void* out,
               const std::string& file) {
  if (rows == 0 || cols == 0) return;
  const hsize_t offset[2] = {row, 0}, count[2] = {rows, cols};
  const auto [file_space, mem_space] = select_block(dataset, 2, offset, count, file, "read");
  read_checked(dataset, mem_type, mem_space.get(), file_space.get(), out, file);
}

void read_1d(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t count, void* out,
             const std::string& file) {
  if (count == 0) return;
  const auto [file_space, mem_space] = select_block(dataset, 1, &offset, &count, file, "read");
  read_checked(dataset, mem_type, mem_space.get(), file_space.get(), out, file);
}

std::vector<std::string> read_strings(hid_t dataset, const std::string& file) {
  const std::string what = "cannot read a string array";
  hsize_t n = 1;
  for (const auto d : dims_of(dataset, file)) n *= d;
  auto file_type = checked(H5Dget_type(dataset), H5Tclose, file, what);
  if (H5Tget_class(file_type.get()) != H5T_STRING) fail(file, "expected a string array");
  if (n == 0) return {};
  if (H5Tis_variable_str(file_type.get()) > 0) {
    // Accept variable-length strings too (as h5py writes them by default).
    auto type = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, what);
    check(H5Tset_size(type.get(), H5T_VARIABLE), file, what);
    std::vector<char*> pointers(n, nullptr);
    read_checked(dataset, type.get(), H5S_ALL, H5S_ALL, pointers.data(), file);
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = pointers[i] ? pointers[i] : "";
    auto space = checked(H5Dget_space(dataset), H5Sclose, file, what);
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, pointers.data());
    return out;
  }
  const std::size_t size = H5Tget_size(file_type.get());
  auto type = string_type(size, file);
  std::vector<char> buffer(n * size);
  read_checked(dataset, type.get(), H5S_ALL, H5S_ALL, buffer.data(), file);
  return split_fixed(buffer, size, n);
}

std::string read_string_attribute(hid_t attribute, const std::string& file) {
  const std::string what = "cannot read an attribute";
  auto file_type = checked(H5Aget_type(attribute), H5Tclose, file, what);
  auto space = checked(H5Aget_space(attribute), H5Sclose, file, what);
  if (H5Tget_class(file_type.get()) != H5T_STRING || H5Sget_simple_extent_npoints(space.get()) != 1) {
    fail(file, "expected a single-string attribute");
  }
  if (H5Tis_variable_str(file_type.get()) > 0) {
    auto type = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, what);
    check(H5Tset_size(type.get(), H5T_VARIABLE), file, what);
    char* value = nullptr;
    check(H5Aread(attribute, type.get(), &value), file, what);
    std::string out = value ? value : "";
    H5free_memory(value);
    return out;
  }
  const std::size_t size = H5Tget_size(file_type.get());
  auto type = string_type(size, file);
  std::vector<char> buffer(size);
  check(H5Aread(attribute, type.get(), buffer.data()), file, what);
  return split_fixed(buffer, size, 1)[0];
}

}  // namespace secpe::h5
