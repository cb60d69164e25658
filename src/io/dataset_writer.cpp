// Writes the HDF5 dataset (layout in io/dataset.hpp) under a temporary name and renames it into
// place, so readers never see a half-written file. Texts are streamed in batches so a large corpus
// is never duplicated in memory.
#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "core/atomic_file.hpp"
#include "core/log.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"

namespace secpe {
namespace {

constexpr hsize_t kChunk1d = 1 << 16;           // elements per chunk of the per-record arrays
constexpr hsize_t kChunkBytes = 1 << 20;        // bytes per chunk of the concatenated texts
constexpr hsize_t kChunkRows = 1024;            // embedding rows per chunk
constexpr std::size_t kTextBatch = 64u << 20;   // bytes of text gathered per write
constexpr hsize_t kEmbeddingBlock = 64 * kChunkRows;  // embedding rows per write

// A Yelp-scale dataset takes a minute or more to write (synth-embeddings' 6 GB: 90 s on 2 shared
// vCPUs), so the texts and embeddings go out in blocks, their bytes counted on one progress line
// (stderr, rank 0, as every long stage shows it; sizes only: the import's log is private anyway).
struct WriteProgress {
  Progress progress;
  std::uint64_t written = 0;
  void add(std::uint64_t bytes) { progress.step(written += bytes); }
};

std::uint64_t bulk_bytes(const DatasetContents& c) {
  std::uint64_t bytes = sizeof(float) * static_cast<std::uint64_t>(c.embeddings.size());
  for (const auto& text : c.texts) bytes += text.size();
  return bytes;
}

void check_contents(const DatasetContents& c) {
  const std::size_t n = c.label_ids.size();
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("write_dataset: ") + what);
  };
  require(c.texts.empty() || c.texts.size() == n, "texts and label_ids differ in size");
  require(c.secrets.indptr.empty() || c.secrets.indptr.size() == n + 1, "secrets.indptr must have n + 1 entries");
  require(c.secrets.indptr.empty() ||
              static_cast<std::size_t>(c.secrets.indptr.back() - c.secrets.indptr.front()) == c.secrets.indices.size(),
          "secrets.indptr does not match secrets.indices");
  require(c.embeddings.size() == 0 || static_cast<std::size_t>(c.embeddings.rows()) == n,
          "embeddings and label_ids differ in rows");
  const EmbedderModel& m = c.embedder_model;
  require(m.idf.size() == m.terms.size() && static_cast<std::size_t>(m.projection.rows()) == m.terms.size(),
          "embedder_model: terms, idf and projection rows differ in size");
  require(m.empty() || m.projection.cols() == c.embeddings.cols(), "embedder_model: projection and embeddings differ in width");
  require(c.secret_categories.empty() || c.secret_categories.size() == c.secret_names.size(),
          "secret_categories and secret_names differ in size");
  for (const auto& row : c.labels.values) require(row.size() == c.labels.columns.size(), "label value count != column count");
  require(c.labels.prefixes.size() <= c.labels.columns.size(), "more label prefixes than columns");
  for (const auto id : c.label_ids) require(id >= 0 && static_cast<std::size_t>(id) < c.labels.size(), "label id out of range");
}

void write_texts(hid_t file_id, const std::vector<std::string>& texts, const std::string& file, WriteProgress& progress) {
  std::vector<std::uint64_t> offsets(texts.size() + 1, 0);
  for (std::size_t i = 0; i < texts.size(); ++i) offsets[i + 1] = offsets[i] + texts[i].size();
  h5::create_dataset(file_id, "text/offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, {offsets.size()}, {kChunk1d},
                     offsets.data(), file);
  auto bytes = h5::create_dataset(file_id, "text/bytes", H5T_STD_U8LE, H5T_NATIVE_UINT8, {offsets.back()},
                                  {kChunkBytes}, nullptr, file);
  std::string batch;
  std::uint64_t written = 0;
  auto flush = [&] {
    h5::write_1d(bytes.get(), H5T_NATIVE_UINT8, written, batch.size(), batch.data(), file);
    written += batch.size();
    progress.add(batch.size());
    batch.clear();
  };
  for (const auto& text : texts) {
    batch += text;
    if (batch.size() >= kTextBatch) flush();
  }
  flush();
}

// The embeddings, block by block (a block's rows are whole chunks, so the chunks are those of one write).
void write_embeddings(hid_t file_id, const MatrixF& embeddings, const std::string& file, WriteProgress& progress) {
  const auto rows = static_cast<hsize_t>(embeddings.rows()), cols = static_cast<hsize_t>(embeddings.cols());
  auto dataset = h5::create_dataset(file_id, "embeddings", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {rows, cols}, {kChunkRows, cols}, nullptr, file);
  for (hsize_t begin = 0; begin < rows; begin += kEmbeddingBlock) {
    const hsize_t count = std::min(kEmbeddingBlock, rows - begin);
    h5::write_rows(dataset.get(), H5T_NATIVE_FLOAT, begin, count, cols, embeddings.row(static_cast<Eigen::Index>(begin)).data(), file);
    progress.add(sizeof(float) * count * cols);
  }
}

void write_contents(const std::string& tmp, const std::string& file, const DatasetContents& c) {
  const std::size_t n = c.label_ids.size();
  auto file_id = h5::create_file(tmp, file);
  WriteProgress progress{Progress("write dataset (bytes)", bulk_bytes(c), 5.0)};

  // Provenance first, then the format markers, which always win over a provenance entry.
  for (const auto& [key, value] : c.provenance) {
    if (key != "format" && key != "format_version") h5::write_string_attribute(file_id.get(), key, value, file);
  }
  h5::write_string_attribute(file_id.get(), "format", "secpe-dataset", file);
  h5::write_string_attribute(file_id.get(), "format_version", kDatasetFormatVersion, file);

  if (!c.texts.empty()) write_texts(file_id.get(), c.texts, file, progress);

  h5::create_dataset(file_id.get(), "labels/ids", H5T_STD_I32LE, H5T_NATIVE_INT32, {n}, {kChunk1d},
                     c.label_ids.data(), file);
  const std::size_t columns = c.labels.columns.size();
  std::vector<std::string> flat;
  flat.reserve(c.labels.size() * columns);
  for (const auto& row : c.labels.values) flat.insert(flat.end(), row.begin(), row.end());
  h5::write_strings(file_id.get(), "labels/values", flat, {c.labels.size(), columns}, file);
  h5::write_strings(file_id.get(), "labels/columns", c.labels.columns, {columns}, file);
  auto prefixes = c.labels.prefixes;
  prefixes.resize(columns);
  h5::write_strings(file_id.get(), "labels/prefixes", prefixes, {columns}, file);

  // indptr is stored from 0 whatever range the in-memory matrix came from.
  std::vector<std::int64_t> indptr(n + 1, 0);
  if (!c.secrets.indptr.empty()) {
    for (std::size_t i = 0; i <= n; ++i) indptr[i] = c.secrets.indptr[i] - c.secrets.indptr[0];
  }
  h5::create_dataset(file_id.get(), "secrets/indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, {indptr.size()}, {kChunk1d},
                     indptr.data(), file);
  h5::create_dataset(file_id.get(), "secrets/indices", H5T_STD_I32LE, H5T_NATIVE_INT32, {c.secrets.indices.size()},
                     {kChunk1d}, c.secrets.indices.data(), file);
  h5::write_strings(file_id.get(), "secrets/names", c.secret_names, {c.secret_names.size()}, file);
  if (!c.secret_categories.empty()) {
    h5::write_strings(file_id.get(), "secrets/categories", c.secret_categories, {c.secret_categories.size()}, file);
  }
  {
    auto group = h5::checked(H5Gopen2(file_id.get(), "secrets", H5P_DEFAULT), H5Gclose, file, "cannot open /secrets");
    const auto num_secrets = std::max<std::size_t>(c.secret_names.size(), static_cast<std::size_t>(std::max(0, c.secrets.num_secrets)));
    h5::write_string_attribute(group.get(), "num_secrets", std::to_string(num_secrets), file);
  }

  if (c.embeddings.rows() > 0 && c.embeddings.cols() > 0) write_embeddings(file_id.get(), c.embeddings, file, progress);
  if (const EmbedderModel& m = c.embedder_model; !m.empty()) {
    const hsize_t v = m.terms.size(), d = static_cast<hsize_t>(m.projection.cols());
    h5::create_dataset(file_id.get(), "embedder/terms", H5T_STD_U64LE, H5T_NATIVE_UINT64, {v}, {kChunk1d}, m.terms.data(), file);
    h5::create_dataset(file_id.get(), "embedder/idf", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {v}, {kChunk1d}, m.idf.data(), file);
    h5::create_dataset(file_id.get(), "embedder/projection", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {v, d}, {kChunkRows, d},
                       m.projection.data(), file);
  }
  h5::check(H5Fflush(file_id.get(), H5F_SCOPE_GLOBAL), file, "cannot write the file (disk full?)");
  progress.progress.finish();
}

}  // namespace

void write_dataset(const std::filesystem::path& path, const DatasetContents& contents) {
  check_contents(contents);
  h5::init_library();
  // Every handle is closed when write_contents returns, before the rename.
  // Private texts and embeddings: 0600 from the moment the file exists.
  write_path_atomically(path, [&](const std::filesystem::path& tmp) { write_contents(tmp.string(), path.string(), contents); },
                        FileAccess::kPrivate);
}

}  // namespace secpe
