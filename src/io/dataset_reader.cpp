// Reads a secpe HDF5 dataset. Opening reads only the small metadata (labels, secret count,
// provenance); every per-record accessor reads just the hyperslab it is asked for, so each MPI
// rank touches only its own records.
#include <algorithm>
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
  DatasetInfo info;

  void check_range(std::uint64_t begin, std::uint64_t end) const {
    if (begin > end || end > info.num_records) {
      throw std::out_of_range(file + ": record range [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") outside the " + std::to_string(info.num_records) + " records");
    }
  }
  [[noreturn]] void damaged(const std::string& what) const { h5::fail(file, "damaged secpe dataset: " + what); }
  void open();
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

}  // namespace

void DatasetReader::Impl::open() {
  h5::silence_errors();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) h5::fail(file, "cannot open file (no such file)");
  if (H5Fis_hdf5(file.c_str()) <= 0) h5::fail(file, "not a secpe dataset");
  auto access = h5::checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, file, "cannot open file");
#if H5_VERSION_GE(1, 10, 7)
  // Read-only and shared by many ranks: file locks would only fail on file systems without them.
  H5Pset_file_locking(access.get(), false, true);
#endif
  file_id = h5::checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose, file, "cannot open file");
  const hid_t f = file_id.get();

  std::pair<std::map<std::string, std::string>*, const std::string*> sink{&info.provenance, &file};
  hsize_t index = 0;
  h5::check(H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_NATIVE, &index, collect_attribute, &sink), file,
            "cannot read attributes");
  const auto format = info.provenance.find("format");
  if (format == info.provenance.end() || format->second != "secpe-dataset") h5::fail(file, "not a secpe dataset");
  const auto version = info.provenance.find("format_version");
  if (version == info.provenance.end() || version->second != "1") {
    h5::fail(file, "unsupported secpe dataset format version (this secpe reads version 1)");
  }

  for (const char* required : {"labels/ids", "labels/values", "labels/columns", "labels/prefixes", "secrets/indptr",
                               "secrets/indices", "secrets/names"}) {
    if (!h5::exists(f, required)) damaged(std::string("missing /") + required);
  }
  label_ids = h5::open_dataset(f, "labels/ids", file);
  indptr = h5::open_dataset(f, "secrets/indptr", file);
  indices = h5::open_dataset(f, "secrets/indices", file);
  const auto n_dims = h5::dims_of(label_ids.get(), file);
  if (n_dims.size() != 1) damaged("/labels/ids is not 1-D");
  info.num_records = n_dims[0];
  const auto indptr_dims = h5::dims_of(indptr.get(), file);
  if (indptr_dims.size() != 1 || indptr_dims[0] != info.num_records + 1) damaged("/secrets/indptr needs n + 1 entries");

  auto& labels = info.labels;
  labels.columns = h5::read_strings(h5::open_dataset(f, "labels/columns", file).get(), file);
  labels.prefixes = h5::read_strings(h5::open_dataset(f, "labels/prefixes", file).get(), file);
  auto values_set = h5::open_dataset(f, "labels/values", file);
  const auto values_dims = h5::dims_of(values_set.get(), file);
  const auto values = h5::read_strings(values_set.get(), file);
  if (values_dims.size() != 2 || values_dims[1] != labels.columns.size() || labels.prefixes.size() != labels.columns.size()) {
    damaged("/labels/values, /labels/columns and /labels/prefixes disagree");
  }
  labels.values.resize(values_dims[0]);
  for (std::size_t i = 0; i < labels.values.size(); ++i) {
    labels.values[i].assign(values.begin() + i * values_dims[1], values.begin() + (i + 1) * values_dims[1]);
  }

  auto names = h5::open_dataset(f, "secrets/names", file);
  const auto names_dims = h5::dims_of(names.get(), file);
  if (names_dims.size() != 1) damaged("/secrets/names is not 1-D");
  info.num_secrets = static_cast<std::int32_t>(names_dims[0]);
  {
    auto group = h5::checked(H5Gopen2(f, "secrets", H5P_DEFAULT), H5Gclose, file, "cannot open /secrets");
    if (H5Aexists(group.get(), "num_secrets") > 0) {
      auto attribute = h5::checked(H5Aopen(group.get(), "num_secrets", H5P_DEFAULT), H5Aclose, file, "cannot read /secrets");
      try {
        info.num_secrets = static_cast<std::int32_t>(std::stol(h5::read_string_attribute(attribute.get(), file)));
      } catch (const std::logic_error&) {
        damaged("/secrets attribute num_secrets is not a number");
      }
    }
  }

  info.has_text = h5::exists(f, "text/bytes") && h5::exists(f, "text/offsets");
  if (info.has_text) {
    text_bytes = h5::open_dataset(f, "text/bytes", file);
    text_offsets = h5::open_dataset(f, "text/offsets", file);
    const auto dims = h5::dims_of(text_offsets.get(), file);
    if (dims.size() != 1 || dims[0] != info.num_records + 1) damaged("/text/offsets needs n + 1 entries");
  }
  if (h5::exists(f, "embeddings")) {
    embeddings = h5::open_dataset(f, "embeddings", file);
    const auto dims = h5::dims_of(embeddings.get(), file);
    if (dims.size() != 2 || dims[0] != info.num_records) damaged("/embeddings needs one row per record");
    info.embedding_dim = static_cast<int>(dims[1]);
  }
}

DatasetReader::DatasetReader(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  impl_->file = path.string();
  impl_->open();
}

DatasetReader::~DatasetReader() = default;

const DatasetInfo& DatasetReader::info() const { return impl_->info; }

std::vector<std::int32_t> DatasetReader::label_ids(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  return h5::read_range<std::int32_t>(impl_->label_ids.get(), H5T_NATIVE_INT32, begin, end - begin, impl_->file);
}

std::vector<std::string> DatasetReader::secret_names() const {
  auto names = h5::open_dataset(impl_->file_id.get(), "secrets/names", impl_->file);
  return h5::read_strings(names.get(), impl_->file);
}

SecretMatrix DatasetReader::secrets(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  SecretMatrix m;
  m.num_secrets = impl_->info.num_secrets;
  m.indptr = h5::read_range<std::int64_t>(impl_->indptr.get(), H5T_NATIVE_INT64, begin, end - begin + 1, impl_->file);
  if (m.indptr.back() < m.indptr.front()) impl_->damaged("/secrets/indptr is not increasing");
  m.indices = h5::read_range<std::int32_t>(impl_->indices.get(), H5T_NATIVE_INT32, m.indptr.front(),
                                           m.indptr.back() - m.indptr.front(), impl_->file);
  return m;
}

MatrixF DatasetReader::embeddings(std::uint64_t begin, std::uint64_t end) const {
  impl_->check_range(begin, end);
  const auto rows = static_cast<Eigen::Index>(end - begin);
  if (!impl_->embeddings.valid()) return MatrixF(rows, 0);
  MatrixF out(rows, impl_->info.embedding_dim);
  h5::read_rows(impl_->embeddings.get(), H5T_NATIVE_FLOAT, begin, end - begin, impl_->info.embedding_dim, out.data(),
                impl_->file);
  return out;
}

std::vector<std::string> DatasetReader::texts(std::uint64_t begin, std::uint64_t end) const {
  if (!impl_->info.has_text) h5::fail(impl_->file, "this dataset holds no texts (embedding-only)");
  impl_->check_range(begin, end);
  const auto offsets =
      h5::read_range<std::uint64_t>(impl_->text_offsets.get(), H5T_NATIVE_UINT64, begin, end - begin + 1, impl_->file);
  if (offsets.back() < offsets.front()) impl_->damaged("/text/offsets is not increasing");
  std::string bytes(offsets.back() - offsets.front(), '\0');
  h5::read_1d(impl_->text_bytes.get(), H5T_NATIVE_UINT8, offsets.front(), bytes.size(), bytes.data(), impl_->file);
  std::vector<std::string> out(end - begin);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (offsets[i + 1] < offsets[i]) impl_->damaged("/text/offsets is not increasing");
    out[i] = bytes.substr(offsets[i] - offsets.front(), offsets[i + 1] - offsets[i]);
  }
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
