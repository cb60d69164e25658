// Reads a secpe HDF5 dataset. Opening reads only the small metadata (labels, secret count,
// provenance) and checks the types and shapes of every array; every per-record accessor reads
// just the hyperslab it is asked for, so each MPI rank touches only its own records, and checks
// what it returns (io/dataset.hpp, "Damage"): HDF5 verifies the chunk checksums as it reads.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"

namespace secpe {

struct DatasetReader::Impl {
  std::string file;
  h5::Id file_id;
  h5::Id text_bytes, text_offsets, label_ids, indptr, indices, embeddings;  // texts/embeddings optional
  std::uint64_t num_indices = 0, num_text_bytes = 0;
  DatasetInfo info;

  void check_range(std::uint64_t begin, std::uint64_t end) const {
    if (begin > end || end > info.num_records) {
      throw std::out_of_range(file + ": record range [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") outside the " + std::to_string(info.num_records) + " records");
    }
  }
  [[noreturn]] void damaged(const std::string& what) const { h5::fail(file, "damaged secpe dataset: " + what); }
  // Opens /NAME and checks its rank, its stored type (`type`, or any string type when
  // H5I_INVALID_HID) and its checksums; returns its dimensions in `dims`.
  h5::Id open_array(const std::string& name, hid_t type, std::size_t rank, std::vector<hsize_t>& dims) const;
  template <class T>
  T element(hid_t dataset, hid_t mem_type, std::uint64_t at) const {
    return h5::read_range<T>(dataset, mem_type, at, 1, file)[0];
  }
  void open();
  void read_labels();
  void read_secret_count(std::uint64_t names);
};

namespace {

herr_t collect_attribute(hid_t loc, const char* name, const H5A_info_t*, void* data) {
  auto* out = static_cast<std::pair<std::map<std::string, std::string>*, const std::string*>*>(data);
  try {
    auto attribute = h5::checked(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, *out->second, "cannot read attributes");
    (*out->first)[name] = h5::read_string_attribute(attribute.get(), *out->second);
  } catch (const InputError&) {
    // Attributes that are not single strings are not provenance; leave them out.
  }
  return 0;
}

// A count written as plain decimal digits.
bool parse_count(const std::string& text, std::uint64_t& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// Only HDF5 superblocks of version 2 and later come with a checksum on every metadata block. In
// an older layout HDF5 decodes damaged object headers unchecked, and libhdf5 1.10 can crash on
// them (the fuzz target met segfaults and terabyte allocations in attribute messages), so such a
// file is refused before HDF5 decodes any of it: the version is the byte after the signature,
// which secpe writes at the file's start.
void refuse_unchecksummed_layout(const std::string& file) {
  static const char kSignature[] = "\x89HDF\r\n\x1a\n";
  char head[9] = {};
  std::ifstream(file, std::ios::binary).read(head, sizeof head);
  if (std::memcmp(head, kSignature, 8) != 0) h5::fail(file, "not a secpe dataset: HDF5's signature is not at its start (a user block)");
  const int version = static_cast<unsigned char>(head[8]);
  if (version < 2) {
    h5::fail(file, "not a secpe dataset: its HDF5 superblock (version " + std::to_string(version) +
                       ") has no metadata checksums; if an older secpe wrote it, import it again (secpe import, or "
                       "secpe synth-embeddings) so that damage to it can be detected");
  }
}

}  // namespace

h5::Id DatasetReader::Impl::open_array(const std::string& name, hid_t type, std::size_t rank,
                                       std::vector<hsize_t>& dims) const {
  if (!h5::exists(file_id.get(), name)) damaged("missing /" + name);
  auto dataset = h5::open_dataset(file_id.get(), name, file);
  dims = h5::dims_of(dataset.get(), file);
  if (dims.size() != rank) damaged("/" + name + " has " + std::to_string(dims.size()) + " dimensions, not " + std::to_string(rank));
  if (type != H5I_INVALID_HID && !h5::has_type(dataset.get(), type, file)) damaged("/" + name + " has the wrong element type");
  if (!h5::has_checksums(dataset.get(), file)) damaged("/" + name + " has no checksums");
  return dataset;
}

void DatasetReader::Impl::open() {
  h5::init_library();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) h5::fail(file, "cannot open file (no such file)");
  if (H5Fis_hdf5(file.c_str()) <= 0) h5::fail(file, "not a secpe dataset");
  auto access = h5::checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, file, "cannot open file");
#if H5_VERSION_GE(1, 10, 7)
  // Read-only and shared by many ranks: file locks would only fail on file systems without them.
  H5Pset_file_locking(access.get(), false, true);
#endif
  refuse_unchecksummed_layout(file);
  file_id = h5::checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose, file, "cannot open file");

  std::pair<std::map<std::string, std::string>*, const std::string*> sink{&info.provenance, &file};
  hsize_t index = 0;
  h5::check(H5Aiterate2(file_id.get(), H5_INDEX_NAME, H5_ITER_NATIVE, &index, collect_attribute, &sink), file,
            "cannot read attributes");
  const auto format = info.provenance.find("format");
  if (format == info.provenance.end() || format->second != "secpe-dataset") h5::fail(file, "not a secpe dataset");
  const auto version = info.provenance.find("format_version");
  if (version != info.provenance.end() && version->second == "1") {
    h5::fail(file, "written by an older secpe without checksums (format version 1); import it again (secpe import, "
                   "or secpe synth-embeddings) so that damage to it can be detected");
  }
  if (version == info.provenance.end() || (version->second != kDatasetFormatVersion && version->second != "2")) {
    h5::fail(file, std::string("unsupported secpe dataset format version (this secpe reads versions 2 to ") + kDatasetFormatVersion + ")");
  }

  std::vector<hsize_t> dims;
  label_ids = open_array("labels/ids", H5T_STD_I32LE, 1, dims);
  info.num_records = dims[0];
  const std::uint64_t n = info.num_records;
  read_labels();

  indptr = open_array("secrets/indptr", H5T_STD_I64LE, 1, dims);
  if (dims[0] != n + 1) damaged("/secrets/indptr needs n + 1 entries");
  indices = open_array("secrets/indices", H5T_STD_I32LE, 1, dims);
  num_indices = dims[0];
  // Every rank checks the ends, and that indptr does not decrease in the range it reads: together
  // the whole array is checked, and no record's secrets can slip to a neighbour or vanish.
  if (element<std::int64_t>(indptr.get(), H5T_NATIVE_INT64, 0) != 0 ||
      element<std::int64_t>(indptr.get(), H5T_NATIVE_INT64, n) != static_cast<std::int64_t>(num_indices)) {
    damaged("/secrets/indptr must run from 0 to the number of /secrets/indices");
  }
  open_array("secrets/names", H5I_INVALID_HID, 1, dims);
  read_secret_count(dims[0]);
  if (h5::exists(file_id.get(), "secrets/categories")) {
    open_array("secrets/categories", H5I_INVALID_HID, 1, dims);
    if (dims[0] != static_cast<hsize_t>(info.num_secrets)) damaged("/secrets/categories needs one entry per secret");
  }

  const bool bytes = h5::exists(file_id.get(), "text/bytes"), offsets = h5::exists(file_id.get(), "text/offsets");
  if (bytes != offsets) damaged("/text/bytes and /text/offsets come together");
  info.has_text = bytes;
  if (info.has_text) {
    text_bytes = open_array("text/bytes", H5T_STD_U8LE, 1, dims);
    num_text_bytes = dims[0];
    text_offsets = open_array("text/offsets", H5T_STD_U64LE, 1, dims);
    if (dims[0] != n + 1) damaged("/text/offsets needs n + 1 entries");
    if (element<std::uint64_t>(text_offsets.get(), H5T_NATIVE_UINT64, 0) != 0 ||
        element<std::uint64_t>(text_offsets.get(), H5T_NATIVE_UINT64, n) != num_text_bytes) {
      damaged("/text/offsets must run from 0 to the size of /text/bytes");
    }
  }
  if (h5::exists(file_id.get(), "embeddings")) {
    embeddings = open_array("embeddings", H5T_IEEE_F32LE, 2, dims);
    if (dims[0] != n) damaged("/embeddings needs one row per record");
    if (dims[1] < 1 || dims[1] > static_cast<hsize_t>(std::numeric_limits<int>::max())) damaged("/embeddings has a bad width");
    info.embedding_dim = static_cast<int>(dims[1]);
  }
}

void DatasetReader::Impl::read_labels() {
  std::vector<hsize_t> columns_dims, prefixes_dims, values_dims;
  auto& labels = info.labels;
  labels.columns = h5::read_strings(open_array("labels/columns", H5I_INVALID_HID, 1, columns_dims).get(), file);
  labels.prefixes = h5::read_strings(open_array("labels/prefixes", H5I_INVALID_HID, 1, prefixes_dims).get(), file);
  const auto values = h5::read_strings(open_array("labels/values", H5I_INVALID_HID, 2, values_dims).get(), file);
  const std::size_t width = labels.columns.size();
  if (values_dims[1] != width || labels.prefixes.size() != width) {
    damaged("/labels/values, /labels/columns and /labels/prefixes disagree");
  }
  if (values_dims[0] > static_cast<hsize_t>(std::numeric_limits<std::int32_t>::max())) damaged("/labels/values has too many rows");
  labels.values.resize(values_dims[0]);
  for (std::size_t i = 0; i < labels.values.size(); ++i) {
    labels.values[i].assign(values.begin() + i * width, values.begin() + (i + 1) * width);
  }
}

// The number of secrets: /secrets/names, or the /secrets attribute num_secrets when the names
// were left out (embedding-only datasets); both must agree when both are there.
void DatasetReader::Impl::read_secret_count(std::uint64_t names) {
  std::uint64_t count = names;
  auto group = h5::checked(H5Gopen2(file_id.get(), "secrets", H5P_DEFAULT), H5Gclose, file, "cannot open /secrets");
  if (H5Aexists(group.get(), "num_secrets") > 0) {
    auto attribute = h5::checked(H5Aopen(group.get(), "num_secrets", H5P_DEFAULT), H5Aclose, file, "cannot read /secrets");
    if (!parse_count(h5::read_string_attribute(attribute.get(), file), count)) damaged("/secrets attribute num_secrets is not a count");
    if (names != 0 && names != count) damaged("/secrets/names and the /secrets attribute num_secrets disagree");
  }
  if (count > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) damaged("too many secrets");
  info.num_secrets = static_cast<std::int32_t>(count);
}

DatasetReader::DatasetReader(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  impl_->file = path.string();
  impl_->open();
}

DatasetReader::~DatasetReader() = default;

const DatasetInfo& DatasetReader::info() const { return impl_->info; }

std::vector<std::int32_t> DatasetReader::label_ids(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  auto ids = h5::read_range<std::int32_t>(impl_->label_ids.get(), H5T_NATIVE_INT32, begin, end - begin, impl_->file);
  const auto rows = static_cast<std::int64_t>(impl_->info.labels.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= rows) {
      impl_->damaged("/labels/ids: record " + std::to_string(begin + i) + " has label id " + std::to_string(ids[i]) +
                     ", outside the " + std::to_string(rows) + " rows of /labels/values");
    }
  }
  return ids;
}

EmbedderModel DatasetReader::embedder_model() const {
  const auto& impl = *impl_;
  EmbedderModel model;
  const bool terms = h5::exists(impl.file_id.get(), "embedder/terms"), idf = h5::exists(impl.file_id.get(), "embedder/idf"),
             projection = h5::exists(impl.file_id.get(), "embedder/projection");
  if (!terms && !idf && !projection) return model;
  if (!terms || !idf || !projection) impl.damaged("/embedder/terms, /embedder/idf and /embedder/projection come together");
  std::vector<hsize_t> terms_dims, idf_dims, projection_dims;
  const auto terms_array = impl.open_array("embedder/terms", H5T_STD_U64LE, 1, terms_dims);
  const auto idf_array = impl.open_array("embedder/idf", H5T_IEEE_F64LE, 1, idf_dims);
  const auto projection_array = impl.open_array("embedder/projection", H5T_IEEE_F32LE, 2, projection_dims);
  const hsize_t v = terms_dims[0];
  if (v == 0 || idf_dims[0] != v || projection_dims[0] != v) impl.damaged("/embedder/terms, /embedder/idf and /embedder/projection differ in length");
  if (projection_dims[1] != static_cast<hsize_t>(impl.info.embedding_dim)) impl.damaged("/embedder/projection and /embeddings differ in width");
  model.terms = h5::read_range<std::uint64_t>(terms_array.get(), H5T_NATIVE_UINT64, 0, v, impl.file);
  model.idf = h5::read_range<double>(idf_array.get(), H5T_NATIVE_DOUBLE, 0, v, impl.file);
  for (const double w : model.idf) {
    if (!std::isfinite(w)) impl.damaged("/embedder/idf has a non-finite value");
  }
  model.projection.resize(static_cast<Eigen::Index>(v), impl.info.embedding_dim);
  h5::read_rows(projection_array.get(), H5T_NATIVE_FLOAT, 0, v, projection_dims[1], model.projection.data(), impl.file);
  if (!model.projection.allFinite()) impl.damaged("/embedder/projection has a non-finite value");
  return model;
}

std::vector<std::string> DatasetReader::secret_names() const {
  auto names = h5::open_dataset(impl_->file_id.get(), "secrets/names", impl_->file);
  return h5::read_strings(names.get(), impl_->file);
}

std::vector<std::string> DatasetReader::secret_categories() const {
  const auto m = static_cast<std::size_t>(impl_->info.num_secrets);
  if (h5::exists(impl_->file_id.get(), "secrets/categories")) {
    auto categories = h5::open_dataset(impl_->file_id.get(), "secrets/categories", impl_->file);
    return h5::read_strings(categories.get(), impl_->file);
  }
  const auto mode = impl_->info.provenance.find("secret_mode");
  const std::string category = mode == impl_->info.provenance.end() ? "UNKNOWN"
                               : mode->second == "random-word"      ? kRandomWordCategory
                               : mode->second.starts_with("list:")  ? kListCategory
                                                                    : "UNKNOWN";
  return std::vector<std::string>(m, category);
}

SecretMatrix DatasetReader::secrets(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  SecretMatrix m;
  m.num_secrets = impl_->info.num_secrets;
  m.indptr = h5::read_range<std::int64_t>(impl_->indptr.get(), H5T_NATIVE_INT64, begin, end - begin + 1, impl_->file);
  const auto nnz = static_cast<std::int64_t>(impl_->num_indices);
  if (m.indptr.front() < 0 || m.indptr.back() > nnz) impl_->damaged("/secrets/indptr points outside /secrets/indices");
  for (std::size_t i = 0; i + 1 < m.indptr.size(); ++i) {
    if (m.indptr[i + 1] < m.indptr[i]) impl_->damaged("/secrets/indptr decreases at record " + std::to_string(begin + i));
  }
  m.indices = h5::read_range<std::int32_t>(impl_->indices.get(), H5T_NATIVE_INT32, m.indptr.front(),
                                           m.indptr.back() - m.indptr.front(), impl_->file);
  for (std::size_t i = 0; i < m.rows(); ++i) {
    const auto held = m.secrets_of(i);
    for (std::size_t k = 0; k < held.size(); ++k) {
      if (held[k] < 0 || held[k] >= m.num_secrets || (k > 0 && held[k] <= held[k - 1])) {
        impl_->damaged("/secrets/indices: record " + std::to_string(begin + i) + " holds a secret index outside [0, " +
                       std::to_string(m.num_secrets) + ") or out of order");
      }
    }
  }
  return m;
}

MatrixF DatasetReader::embeddings(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  const auto rows = static_cast<Eigen::Index>(end - begin);
  if (!impl_->embeddings.valid()) return MatrixF(rows, 0);
  MatrixF out(rows, impl_->info.embedding_dim);
  h5::read_rows(impl_->embeddings.get(), H5T_NATIVE_FLOAT, begin, end - begin, impl_->info.embedding_dim, out.data(),
                impl_->file);
  for (Eigen::Index i = 0; i < rows; ++i) {
    if (!out.row(i).allFinite()) {
      impl_->damaged("/embeddings: record " + std::to_string(begin + static_cast<std::uint64_t>(i)) + " has a non-finite value");
    }
  }
  return out;
}

std::vector<std::string> DatasetReader::texts(std::uint64_t begin, std::uint64_t end) const {
  if (!impl_->info.has_text) h5::fail(impl_->file, "this dataset holds no texts (embedding-only)");
  impl_->check_range(begin, end);
  const auto offsets =
      h5::read_range<std::uint64_t>(impl_->text_offsets.get(), H5T_NATIVE_UINT64, begin, end - begin + 1, impl_->file);
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    if (offsets[i + 1] < offsets[i]) impl_->damaged("/text/offsets decreases at record " + std::to_string(begin + i));
  }
  if (offsets.back() > impl_->num_text_bytes) impl_->damaged("/text/offsets points outside /text/bytes");
  std::string bytes(offsets.back() - offsets.front(), '\0');
  h5::read_1d(impl_->text_bytes.get(), H5T_NATIVE_UINT8, offsets.front(), bytes.size(), bytes.data(), impl_->file);
  std::vector<std::string> out(end - begin);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = bytes.substr(offsets[i] - offsets.front(), offsets[i + 1] - offsets[i]);
  return out;
}

std::vector<std::string> DatasetReader::texts(const std::vector<std::uint64_t>& record_ids) const {
  if (!impl_->info.has_text) h5::fail(impl_->file, "this dataset holds no texts (embedding-only)");
  // Visit ids in ascending order (callers usually pass them sorted already) and read each run of
  // consecutive ids with one offsets read and one bytes read.
  std::vector<std::size_t> order(record_ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return record_ids[a] < record_ids[b]; });
  std::vector<std::string> out(record_ids.size());
  for (std::size_t k = 0; k < order.size();) {
    std::size_t last = k;  // the run is order[k .. last]
    while (last + 1 < order.size() && record_ids[order[last + 1]] <= record_ids[order[last]] + 1) ++last;
    const std::uint64_t first_id = record_ids[order[k]], last_id = record_ids[order[last]];
    auto run = texts(first_id, last_id + 1);
    for (std::size_t j = k; j <= last; ++j) out[order[j]] = run[record_ids[order[j]] - first_id];
    k = last + 1;
  }
  return out;
}

}  // namespace secpe
