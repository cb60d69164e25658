// The learned embedder in the dataset: `secpe import` fits it on public records only (a test that
// fails if a private record reached the model), stores it, and `secpe run` rebuilds exactly that
// model or refuses the dataset, naming the file.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <string_view>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "embedders/dataset_embedder.hpp"
#include "io/corpus.hpp"
#include "io/dataset.hpp"
#include "io/h5_util.hpp"
#include "io_test_util.hpp"
#include "text/demo_corpus.hpp"
#include "text/ngrams.hpp"
#include "text/ppmi_sif_embedder.hpp"
#include "text/tfidf_svd_embedder.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

// A corpus file: the demo's reviews, whose planted secrets are not on the secrets list used here
// (so all are public), with `private_texts` (each holding the listed secret) inserted every
// `stride` records.
void write_corpus(const std::filesystem::path& path, const std::vector<std::string>& private_texts, std::size_t stride) {
  const DemoCorpus demo = make_demo_corpus({.records = 300});
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> labels;
  std::size_t next_private = 0;
  for (std::size_t i = 0; i < demo.corpus.texts.size(); ++i) {
    if (i % stride == 0 && next_private < private_texts.size()) {
      texts.push_back(private_texts[next_private++]);
      labels.push_back(demo.corpus.labels[i]);
    }
    texts.push_back(demo.corpus.texts[i]);
    labels.push_back(demo.corpus.labels[i]);
  }
  std::ofstream out(path, std::ios::binary);
  write_augpe_csv(out, demo.corpus.label_columns, demo.corpus.label_prefixes, texts, labels);
}

EmbedderModel import_model(const std::filesystem::path& corpus, const std::filesystem::path& secrets, const TempFile& out,
                           const std::string& kind, std::string* name = nullptr) {
  // --force: the callers import each embedder kind into the same file.
  EXPECT_EQ(cli::command_import({"--input", corpus.string(), "--out", out.str(), "--secrets", "list", "--secrets-file", secrets.string(),
                                 "--embedder", kind, "--embedding-dim", "64", "--force"}),
            0);
  const DatasetReader reader(out.path());
  if (name) *name = reader.info().provenance.at("embedder");
  return reader.embedder_model();
}

bool contains(const std::vector<std::uint64_t>& terms, std::string_view words) {
  return std::find(terms.begin(), terms.end(), ngram_key(word_keys(words))) != terms.end();
}

// Both learned embedders: the model is byte-identical whatever the private records hold.
TEST(EmbedderPrivacy, PrivateRecordsDoNotChangeTheModel) {
  const TempFile secrets("secrets.txt", "zorblax\n"), corpus_a("a.csv"), corpus_b("b.csv"), out_a("a.h5"), out_b("b.h5");
  std::vector<std::string> private_a, private_b;
  for (int i = 0; i < 40; ++i) private_a.push_back("zorblax privateonlyword the food was great " + std::to_string(i));
  for (int i = 0; i < 70; ++i) private_b.push_back("Zorblax said: the service, the staff and the parking were " + std::to_string(i % 3));
  write_corpus(corpus_a.path(), private_a, 7);
  write_corpus(corpus_b.path(), private_b, 4);
  for (const std::string kind : {"tfidf-svd", "ppmi-sif"}) {
    SCOPED_TRACE(kind);
    std::string name_a, name_b;
    const EmbedderModel a = import_model(corpus_a.path(), secrets.path(), out_a, kind, &name_a);
    const EmbedderModel b = import_model(corpus_b.path(), secrets.path(), out_b, kind, &name_b);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(name_a.starts_with(kind + "(d=64")) << name_a;
    EXPECT_EQ(a.terms, b.terms);
    EXPECT_EQ(a.idf, b.idf);
    EXPECT_EQ(a.projection, b.projection);
    EXPECT_EQ(name_a, name_b);
    // A word of 40 private records only has no entry, and neither has the secret.
    EXPECT_FALSE(contains(a.terms, "privateonlyword"));
    EXPECT_FALSE(contains(a.terms, "zorblax"));
  }
  // Fitted on every record instead, the models would hold both (so this test can fail).
  std::vector<std::string> everything = make_demo_corpus({.records = 300}).corpus.texts;
  everything.insert(everything.end(), private_a.begin(), private_a.end());
  const std::vector<std::string_view> views(everything.begin(), everything.end());
  const auto leaky = fit_tfidf_svd(views, {.dim = 64});
  EXPECT_TRUE(contains(leaky.vectorizer().terms(), "privateonlyword"));
  EXPECT_TRUE(contains(leaky.vectorizer().terms(), "zorblax"));
  const auto leaky_words = fit_ppmi_sif(views, {.dim = 64});
  EXPECT_TRUE(contains(leaky_words.vectorizer().terms(), "privateonlyword"));
}

// A dataset holding a fitted model, and the model.
struct Stored {
  TempFile file{"stored.h5"};
  std::unique_ptr<LearnedEmbedder> embedder;
};

void store(Stored& s, const std::function<void(DatasetContents&)>& change = {}, LearnedEmbedderKind kind = LearnedEmbedderKind::kTfidfSvd) {
  const DemoCorpus demo = make_demo_corpus({.records = 200});
  const auto& texts = demo.corpus.texts;
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  s.embedder = std::make_unique<LearnedEmbedder>(kind == LearnedEmbedderKind::kPpmiSif ? fit_ppmi_sif(views, {.dim = 64})
                                                                                      : fit_tfidf_svd(views, {.dim = 64}));
  DatasetContents c;
  c.labels = {.columns = {"label1"}, .prefixes = {""}, .values = {{"all"}}};
  c.label_ids.assign(texts.size(), 0);
  c.texts = texts;
  c.secrets.indptr.assign(texts.size() + 1, 0);
  s.embedder->embed(texts, c.embeddings);
  c.embedder_model = {.terms = s.embedder->vectorizer().terms(), .idf = s.embedder->vectorizer().idf(), .projection = s.embedder->projection()};
  c.provenance = {{"embedder", s.embedder->name()}};
  if (change) change(c);
  write_dataset(s.file.path(), c);
}

std::string run_embedder_error(const std::filesystem::path& path) {
  try {
    const DatasetReader reader(path);
    dataset_embedder(reader, path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(EmbedderDataset, RunRebuildsTheStoredModel) {
  Stored words;
  store(words, {}, LearnedEmbedderKind::kPpmiSif);
  {
    const DatasetReader reader(words.file.path());
    EXPECT_EQ(dataset_embedder(reader, words.file.path())->name(), words.embedder->name());
    EXPECT_TRUE(words.embedder->name().starts_with("ppmi-sif(d=64"));
  }
  Stored s;
  store(s);
  const DatasetReader reader(s.file.path());
  const auto rebuilt = dataset_embedder(reader, s.file.path());
  EXPECT_EQ(rebuilt->name(), s.embedder->name());
  const std::vector<std::string> texts = {"Great tacos and friendly staff.", "The parking was awful."};
  MatrixF want, got;
  s.embedder->embed(texts, want);
  rebuilt->embed(texts, got);
  EXPECT_EQ(want, got);
  EXPECT_EQ(reader.embeddings(0, 3), [&] {
    MatrixF first;
    s.embedder->embed(reader.texts(0, 3), first);
    return first;
  }());
}

// Writes a whole 1-D or 2-D array back through HDF5, so that its checksums stay valid: damage only
// the structural and identity checks can catch.
template <class T>
void rewrite(const std::filesystem::path& path, const char* name, hid_t mem_type, const std::function<void(std::vector<T>&)>& edit) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(dataset);
  std::vector<T> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  edit(values);
  EXPECT_GE(H5Dwrite(dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Sclose(space);
  H5Dclose(dataset);
  H5Fclose(file);
}

TEST(EmbedderDataset, RunRefusesADamagedOrInconsistentModel) {
  struct Case {
    const char* name;
    std::function<void(const std::filesystem::path&)> damage;
    std::function<void(DatasetContents&)> change;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {"projection_edited", [](const auto& p) { rewrite<float>(p, "embedder/projection", H5T_NATIVE_FLOAT, [](auto& v) { v[17] += 0.25f; }); },
       {}, "not the 'tfidf-svd(d=64"},
      {"idf_edited", [](const auto& p) { rewrite<double>(p, "embedder/idf", H5T_NATIVE_DOUBLE, [](auto& v) { v[0] *= 2; }); }, {}, "not the"},
      {"idf_nan", [](const auto& p) { rewrite<double>(p, "embedder/idf", H5T_NATIVE_DOUBLE, [](auto& v) { v[3] = std::nan(""); }); }, {},
       "/embedder/idf has a non-finite value"},
      {"projection_inf", [](const auto& p) { rewrite<float>(p, "embedder/projection", H5T_NATIVE_FLOAT, [](auto& v) { v[9] = INFINITY; }); },
       {}, "/embedder/projection has a non-finite value"},
      {"term_repeated", [](const auto& p) { rewrite<std::uint64_t>(p, "embedder/terms", H5T_NATIVE_UINT64, [](auto& v) { v[2] = v[1]; }); },
       {}, "term 2 repeats an earlier term"},
      {"idf_missing", [](const auto& p) {
         const hid_t file = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
         H5Ldelete(file, "embedder/idf", H5P_DEFAULT);
         H5Fclose(file);
       }, {}, "come together"},
      {"model_missing", {}, [](DatasetContents& c) { c.embedder_model = {}; }, "(/embedder) is missing"},
      {"other_embedder", {}, [](DatasetContents& c) { c.provenance["embedder"] = "bert-base"; }, "only with the embedders hashing, tfidf-svd, ppmi-sif or http"},
      {"other_identity", {}, [](DatasetContents& c) { c.provenance["embedder"] = "tfidf-svd(d=64, V=1, digest=0)"; }, "not the"},
      {"other_kind", {}, [](DatasetContents& c) { c.provenance["embedder"] = "ppmi-sif" + c.provenance["embedder"].substr(9); }, "is ppmi-sif(d=64"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Stored s;
    store(s, c.change);
    if (c.damage) c.damage(s.file.path());
    const std::string message = run_embedder_error(s.file.path());
    EXPECT_NE(message.find(s.file.str() + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(c.needle), std::string::npos) << message;
  }
}

TEST(EmbedderDataset, ImportOptionErrorsNameTheOption) {
  const TempFile corpus("c.csv"), out("o.h5");
  write_corpus(corpus.path(), {}, 1);
  auto message = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--input", corpus.str(), "--out", out.str()});
    try {
      cli::command_import(args);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"--embedder", "bert"}).find("--embedder must be auto, hashing, tfidf-svd, ppmi-sif or http, not 'bert'"), std::string::npos);
  EXPECT_NE(message({"--embedder", "tfidf-svd", "--embedding-dim", "32"}).find("--embedding-dim"), std::string::npos);
  EXPECT_NE(message({"--embedder", "tfidf-svd", "--embedding-dim", "64", "--embedder-vocabulary", "10"}).find("--embedder-vocabulary"),
            std::string::npos);
  EXPECT_NE(message({"--embedder", "hashing", "--embedder-min-df", "3"}).find("--embedder-min-df applies to --embedder auto, tfidf-svd or ppmi-sif only"),
            std::string::npos);
  EXPECT_NE(message({"--embed-url", "http://h/v1"}).find("--embed-url applies to --embedder http only"), std::string::npos);
  EXPECT_NE(message({"--embedder", "http", "--embed-url", "http://h/v1"}).find("--embedder http needs --embed-model"), std::string::npos);
}

// The default, auto: ppmi-sif where the public records hold enough words, else hashing (a small
// corpus, or a dimension outside ppmi-sif's range), named in the provenance either way.
TEST(EmbedderDataset, AutoIsPpmiSifWhereThePublicRecordsAllowIt) {
  const TempFile corpus("c.csv"), tiny("t.csv", "text,label1,label2\nGood tacos.,A,1\nBad coffee.,B,2\n"), out("o.h5"),
      secrets("s.txt", "zorblax\n");
  write_corpus(corpus.path(), {}, 1);
  const auto embedder_of = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--out", out.str(), "--secrets", "list", "--secrets-file", secrets.str(), "--force"});  // one file, three imports
    EXPECT_EQ(cli::command_import(args), 0);
    return DatasetReader(out.path()).info().provenance.at("embedder");
  };
  EXPECT_TRUE(embedder_of({"--input", corpus.str(), "--embedding-dim", "64"}).starts_with("ppmi-sif(d=64"));
  EXPECT_EQ(embedder_of({"--input", tiny.str()}), "hashing-uni+bigram-d256");
  EXPECT_EQ(embedder_of({"--input", corpus.str(), "--embedding-dim", "16"}), "hashing-uni+bigram-d16");
}

}  // namespace
}  // namespace secpe
