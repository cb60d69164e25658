#pragma once
// Thin RAII and error-checking layer over the HDF5 C API, used by the dataset reader and writer.
// Every failure becomes an InputError naming the file (HDF5's own error stack printing is off).
#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

namespace secpe::h5 {

// Owns one HDF5 identifier and closes it with the matching H5?close function.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Closer close) : id_(id), close_(close) {}
  Id(Id&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Id& operator=(Id&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  ~Id() { reset(); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// Call before any other HDF5 call (once per process is enough): turns off HDF5's printing of its
// error stack to stderr and its clean-up at exit. A file whose writes failed (disk full) cannot be
// closed, and HDF5 1.10's exit-time clean-up of such a file crashes (exit 139 after the right
// error message); without that clean-up the process exits with its own code and the operating
// system releases the file.
void init_library();

[[noreturn]] void fail(const std::string& file, const std::string& what);
// Wraps a freshly created identifier; throws when HDF5 returned an error.
Id checked(hid_t id, Id::Closer close, const std::string& file, const std::string& what);
void check(herr_t status, const std::string& file, const std::string& what);

// ---- writing ----
// A file in HDF5 1.10's format, in which every metadata block (object headers with their
// attributes, chunk indexes, the superblock) carries a checksum that HDF5 checks when it loads it.
Id create_file(const std::string& path, const std::string& file);
// A chunked dataset of `dims` (max dims unlimited, so empty arrays are fine) holding `data`
// (row-major, may be null when nothing is to be written yet). Every chunk carries a Fletcher-32
// checksum, which HDF5 checks whenever the chunk is read: each reader verifies exactly the
// chunks it reads, whatever its share of the file.
Id create_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                  const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk_cap,
                  const void* data, const std::string& file);
// Writes `count` elements at `offset` of a 1-D dataset.
void write_1d(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t count, const void* data,
              const std::string& file);
// Writes rows [row, row + rows) of a 2-D dataset with `cols` columns (`data` row-major).
void write_rows(hid_t dataset, hid_t mem_type, hsize_t row, hsize_t rows, hsize_t cols, const void* data,
                const std::string& file);
// Fixed-length UTF-8 strings in an array of `dims` (product must equal values.size()).
void write_strings(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                   const std::vector<hsize_t>& dims, const std::string& file);
void write_string_attribute(hid_t loc, const std::string& name, const std::string& value,
                            const std::string& file);

// ---- reading ----
// Reads fail with an InputError naming the dataset; when the data is there but disagrees with
// its chunk checksums, the message says so.
bool exists(hid_t loc, const std::string& path);  // path relative to loc, checked link by link
Id open_dataset(hid_t loc, const std::string& path, const std::string& file);
std::vector<hsize_t> dims_of(hid_t dataset, const std::string& file);
// True when every chunk of the dataset carries a checksum (see create_dataset).
bool has_checksums(hid_t dataset, const std::string& file);
// True when the dataset's stored type is exactly `type` (H5T_STD_I32LE, ...).
bool has_type(hid_t dataset, hid_t type, const std::string& file);
// Reads `count` elements from `offset` of a 1-D dataset into `out` (only that hyperslab).
void read_1d(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t count, void* out,
             const std::string& file);
// Reads rows [row, row + rows) of a 2-D dataset with `cols` columns.
void read_rows(hid_t dataset, hid_t mem_type, hsize_t row, hsize_t rows, hsize_t cols, void* out,
               const std::string& file);
std::vector<std::string> read_strings(hid_t dataset, const std::string& file);
std::string read_string_attribute(hid_t attribute, const std::string& file);

template <class T>
std::vector<T> read_range(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t count,
                          const std::string& file) {
  std::vector<T> out(count);
  read_1d(dataset, mem_type, offset, count, out.data(), file);
  return out;
}

}  // namespace secpe::h5
