// libFuzzer target: the HDF5 dataset reader (io/dataset_reader.cpp, h5_util.cpp). Two kinds of input:
// - a file that starts with HDF5's signature is opened as it is (damaged bytes; libhdf5 itself is
//   not instrumented, so its crashes show but not its out-of-bounds reads);
// - anything else is a recipe (dataset_recipe.hpp): a small valid dataset written by write_dataset,
//   then damaged through HDF5 calls, so that mutations reach the reader's own checks rather than
//   HDF5's parser. (corpus/dataset/raw-clean.h5 is the file write_dataset makes of recipe-clean;
//   DatasetDamage.TheFuzzSeedIsTodaysFormat fails when a format change leaves it behind.)
// Every accessor is called on the whole file and on two halves (as two ranks would), and what comes
// back must be a valid dataset (issue 15 item 2): label ids in range, monotone secret offsets that
// match the secret ids read, secret ids in range, finite embeddings, an embedder model whose parts agree.
#include <cstring>

#include "dataset_recipe.hpp"
#include "fuzz_util.hpp"
#include "io/dataset.hpp"

using namespace secpe;

namespace {

void check_range(const DatasetReader& reader, std::uint64_t begin, std::uint64_t end) {
  const auto& info = reader.info();
  for (const auto id : reader.label_ids(begin, end)) {
    if (id < 0 || static_cast<std::size_t>(id) >= info.labels.size()) fuzz::finding("label id out of range");
  }
  const SecretMatrix secrets = reader.secrets(begin, end);
  if (secrets.rows() != end - begin) fuzz::finding("wrong number of secret rows");
  for (std::size_t i = 0; i < secrets.rows(); ++i) {
    if (secrets.indptr[i + 1] < secrets.indptr[i]) fuzz::finding("/secrets/indptr decreases");
  }
  if (secrets.rows() > 0 &&
      static_cast<std::uint64_t>(secrets.indptr.back() - secrets.indptr.front()) != secrets.indices.size()) {
    fuzz::finding("/secrets/indptr does not match the secret ids read");
  }
  for (const auto j : secrets.indices) {
    if (j < 0 || j >= secrets.num_secrets) fuzz::finding("secret id out of range");
  }
  const MatrixF embeddings = reader.embeddings(begin, end);
  if (static_cast<std::uint64_t>(embeddings.rows()) != end - begin) fuzz::finding("wrong number of embedding rows");
  if (!embeddings.allFinite()) fuzz::finding("non-finite embedding");
  if (info.has_text && end > begin) {
    if (reader.texts(begin, end).size() != end - begin) fuzz::finding("wrong number of texts");
    if (reader.texts(std::vector<std::uint64_t>{end - 1, begin}).size() != 2) fuzz::finding("wrong number of texts");
  }
}

void exercise(const std::filesystem::path& path) {
  const DatasetReader reader(path);
  const auto& info = reader.info();
  if (info.num_secrets < 0) fuzz::finding("negative secret count");
  for (const auto& row : info.labels.values) {
    if (row.size() != info.labels.columns.size()) fuzz::finding("label row of the wrong width");
  }
  reader.secret_names();
  if (reader.secret_categories().size() != static_cast<std::size_t>(info.num_secrets)) fuzz::finding("secret categories not one per secret");
  const EmbedderModel model = reader.embedder_model();
  if (model.idf.size() != model.terms.size() || static_cast<std::size_t>(model.projection.rows()) != model.terms.size()) {
    fuzz::finding("embedder model parts differ in length");
  }
  if (!model.projection.allFinite()) fuzz::finding("non-finite embedder projection");
  // A damaged file may claim any number of records: read only the ends of a large one.
  const std::uint64_t n = info.num_records;
  if (n <= 1024) {
    check_range(reader, 0, n);
    check_range(reader, 0, n / 2);
    check_range(reader, n / 2, n);
  } else {
    check_range(reader, 0, 16);
    check_range(reader, n - 16, n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char kSignature[] = "\x89HDF\r\n\x1a\n";
  std::filesystem::path path;
  if (size >= 8 && std::memcmp(data, kSignature, 8) == 0) {
    path = fuzz::input_file("raw.h5", data, size);
  } else {
    path = fuzz::input_file("recipe.h5", nullptr, 0);
    fuzz::write_recipe(path, data, size);
  }
  fuzz::unless_input_error([&] {
    exercise(path);
    return 0;
  });
  return 0;
}
