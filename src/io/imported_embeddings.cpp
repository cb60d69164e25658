// Readers of io/imported_embeddings.hpp. The .npy reader follows NumPy's format description
// (magic, version, header length, a Python dict literal with descr, fortran_order and shape,
// then the raw array) and accepts only what a C-order float array of two dimensions can be.
#include "io/imported_embeddings.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>

#include "core/error.hpp"
#include "io/h5_util.hpp"

namespace secpe {
namespace {

struct RawArray {
  std::uint64_t rows = 0, cols = 0;
  bool float64 = false;
};

// The value after 'key': in the header dict, up to the next top-level ',' or '}' ("(3, 4)" whole).
std::string header_value(std::string_view header, std::string_view key, const std::string& file) {
  std::string quoted = "'";
  quoted.append(key).push_back('\'');
  const std::size_t at = header.find(quoted);
  if (at == std::string_view::npos) throw InputError(file + ": not a valid .npy file (no '" + std::string(key) + "' in its header)");
  std::size_t p = header.find(':', at);
  if (p == std::string_view::npos) throw InputError(file + ": not a valid .npy file (bad header)");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  std::size_t end = p;
  if (p < header.size() && header[p] == '(') end = header.find(')', p) + 1;
  else while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  if (end == 0 || end > header.size()) throw InputError(file + ": not a valid .npy file (bad header)");
  std::string value(header.substr(p, end - p));
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

// "(3, 4)" -> rows 3, cols 4; anything but two dimensions is refused.
void parse_shape(const std::string& shape, RawArray& out, const std::string& file) {
  std::vector<std::uint64_t> dims;
  std::size_t p = 1;
  while (p < shape.size()) {
    while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size() || shape[p] == ')') break;
    std::uint64_t v = 0;
    std::size_t digits = 0;
    for (; p < shape.size() && shape[p] >= '0' && shape[p] <= '9' && digits < 19; ++p, ++digits) v = v * 10 + static_cast<std::uint64_t>(shape[p] - '0');
    if (digits == 0) throw InputError(file + ": not a valid .npy file (bad shape " + shape + ")");
    dims.push_back(v);
  }
  if (dims.size() != 2) {
    throw InputError(file + ": the array has shape " + shape + "; embeddings need two dimensions (records x embedding dimension)");
  }
  out.rows = dims[0];
  out.cols = dims[1];
}

MatrixF read_npy(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot read the embeddings file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw InputError(file + ": not a .npy file (no NumPy magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  if (major == 1) {
    if (!in.read(reinterpret_cast<char*>(len_bytes), 2)) throw InputError(file + ": truncated .npy header");
    header_len = len_bytes[0] | (len_bytes[1] << 8);
  } else if (major == 2 || major == 3) {
    if (!in.read(reinterpret_cast<char*>(len_bytes), 4)) throw InputError(file + ": truncated .npy header");
    header_len = len_bytes[0] | (len_bytes[1] << 8) | (len_bytes[2] << 16) | (static_cast<std::uint32_t>(len_bytes[3]) << 24);
  } else {
    throw InputError(file + ": unsupported .npy format version " + std::to_string(major));
  }
  if (header_len > (1u << 20)) throw InputError(file + ": not a valid .npy file (header too long)");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) throw InputError(file + ": truncated .npy header");

  RawArray raw;
  const std::string descr = header_value(header, "descr", file);
  if (descr == "'<f4'") raw.float64 = false;
  else if (descr == "'<f8'") raw.float64 = true;
  else throw InputError(file + ": element type " + descr + "; embeddings must be little-endian float32 ('<f4') or float64 ('<f8')");
  if (header_value(header, "fortran_order", file) != "False") {
    throw InputError(file + ": the array is in Fortran order; save it in C order (numpy.ascontiguousarray)");
  }
  parse_shape(header_value(header, "shape", file), raw, file);
  if (raw.cols == 0 || raw.cols > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
      raw.rows > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw InputError(file + ": the array's shape is out of range");
  }
  const std::uint64_t count = raw.rows * raw.cols;
  MatrixF out(static_cast<Eigen::Index>(raw.rows), static_cast<Eigen::Index>(raw.cols));
  if (raw.float64) {
    std::vector<double> values(count);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(double)));
    if (!in) throw InputError(file + ": truncated .npy file (fewer values than its shape says)");
    for (std::uint64_t k = 0; k < count; ++k) out.data()[k] = static_cast<float>(values[k]);
  } else {
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(count * sizeof(float)));
    if (!in) throw InputError(file + ": truncated .npy file (fewer values than its shape says)");
  }
  if (in.peek() != std::char_traits<char>::eof()) throw InputError(file + ": more bytes than the .npy header's shape says");
  return out;
}

MatrixF read_h5(const std::string& file, const std::string& name) {
  h5::init_library();
  if (H5Fis_hdf5(file.c_str()) <= 0) throw InputError(file + ": not an HDF5 file");
  auto f = h5::checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, file, "cannot open file");
  if (!h5::exists(f.get(), name)) throw InputError(file + ": no dataset '" + name + "' (name it with the embeddings dataset option)");
  auto dataset = h5::open_dataset(f.get(), name, file);
  const auto dims = h5::dims_of(dataset.get(), file);
  if (dims.size() != 2) {
    throw InputError(file + ": '" + name + "' has " + std::to_string(dims.size()) + " dimensions; embeddings need two (records x dimension)");
  }
  auto type = h5::checked(H5Dget_type(dataset.get()), H5Tclose, file, "cannot read the type of '" + name + "'");
  if (H5Tget_class(type.get()) != H5T_FLOAT) throw InputError(file + ": '" + name + "' does not hold floating-point values");
  if (dims[1] == 0 || dims[1] > static_cast<hsize_t>(std::numeric_limits<int>::max()) ||
      dims[0] > static_cast<hsize_t>(std::numeric_limits<int>::max())) {
    throw InputError(file + ": '" + name + "' has a shape out of range");
  }
  MatrixF out(static_cast<Eigen::Index>(dims[0]), static_cast<Eigen::Index>(dims[1]));
  if (dims[0] > 0) h5::read_rows(dataset.get(), H5T_NATIVE_FLOAT, 0, dims[0], dims[1], out.data(), file);
  return out;
}

}  // namespace

MatrixF read_imported_embeddings(const std::filesystem::path& path, const ImportedEmbeddingsOptions& options) {
  const std::string file = path.string(), ext = path.extension().string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(file + ": cannot read the embeddings file (no such file)");
  MatrixF x;
  if (ext == ".npy") x = read_npy(file);
  else if (ext == ".h5" || ext == ".hdf5" || ext == ".hdf") x = read_h5(file, options.h5_dataset);
  else throw InputError(file + ": embeddings must be a .npy or an HDF5 (.h5) file");
  if (static_cast<std::uint64_t>(x.rows()) != options.rows) {
    throw InputError(file + ": " + std::to_string(x.rows()) + " embedding rows for " + std::to_string(options.rows) +
                     " records; one row per record is needed, in the corpus's order");
  }
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    if (!x.row(i).allFinite()) throw InputError(file + ": row " + std::to_string(i) + " has a NaN or infinite value");
    const float norm = x.row(i).norm();
    if (!(norm > 0) || !std::isfinite(norm)) throw InputError(file + ": row " + std::to_string(i) + " is all zeros (or its norm overflows), so it has no direction");
    x.row(i) /= norm;
  }
  return x;
}

}  // namespace secpe
