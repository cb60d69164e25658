// The registries of embedders, generators and devices (embedders/embedder_kind.hpp,
// evolve/generators/generator_kind.hpp, devices/device_kind.hpp): every kind is found by its name,
// a dataset's recorded embedder by its kind's name, and an unknown name is refused naming the known
// ones. --device auto and cuda follow the GPUs: without one (or in a build without CUDA) auto falls
// back to the CPU with a note and cuda is a clear error; with one both give the CUDA kernel.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "compute/cuda/cuda_backend.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "devices/device_kind.hpp"
#include "embedders/embedder_kind.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe {
namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EmbedderKinds, EachIsFoundByItsNameAndTellsWhatItTakes) {
  EXPECT_EQ(embedder_kind_names(), (std::vector<std::string>{"hashing", "tfidf-svd", "ppmi-sif", "http"}));
  EXPECT_EQ(embedder_kind_names(true), (std::vector<std::string>{"tfidf-svd", "ppmi-sif"}));
  for (const std::string& name : embedder_kind_names()) EXPECT_EQ(embedder_kind(name).name(), name);
  EXPECT_TRUE(embedder_kind("http").remote());
  EXPECT_FALSE(embedder_kind("hashing").remote() || embedder_kind("hashing").learned());
  EXPECT_EQ(refusal([] { embedder_kind("bert", "auto"); }), "--embedder must be auto, hashing, tfidf-svd, ppmi-sif or http, not 'bert'");
  EXPECT_NE(embedder_kinds_help().find("ppmi-sif (word vectors"), std::string::npos);
}

TEST(EmbedderKinds, ARecordedEmbedderIsRebuiltByTheKindThatNamedIt) {
  EXPECT_EQ(embedder_kind_of(HashingEmbedder(32).name()), &embedder_kind("hashing"));
  EXPECT_EQ(embedder_kind_of("tfidf-svd(d=64, V=100, digest=0123456789abcdef)"), &embedder_kind("tfidf-svd"));
  EXPECT_EQ(embedder_kind_of("ppmi-sif(d=64, V=100, digest=0123456789abcdef)"), &embedder_kind("ppmi-sif"));
  EXPECT_EQ(embedder_kind_of("http(model=e5, d=8)"), &embedder_kind("http"));  // HttpEmbedder::name()
  EXPECT_EQ(embedder_kind_of("bert-base"), nullptr);
  EXPECT_EQ(embedder_kind_of(""), nullptr);
}

TEST(GeneratorKinds, EachIsFoundByItsNameAndOnlyTheHttpOneKeysSettingsOfItsOwn) {
  EXPECT_EQ(generator_kind_names(), (std::vector<std::string>{"builtin", "http"}));
  EXPECT_EQ(generator_kind_names(true), std::vector<std::string>{"builtin"});
  EXPECT_EQ(generator_kind_names(false), std::vector<std::string>{"http"});
  EXPECT_EQ(refusal([] { generator_kind("llama"); }), "--generator must be builtin or http, not 'llama'");
  RunOptions options;
  EXPECT_TRUE(generator_kind("builtin").release_settings(options).is_null());  // the release digest of every earlier built-in run holds
  options.http_generation.model = "m";
  const nlohmann::ordered_json http = generator_kind("http").release_settings(options);
  EXPECT_EQ(http["model"], "m");
  EXPECT_EQ(http["api"], "chat");
  EXPECT_EQ(generator_kinds_help(), "builtin (the offline trigram model) or http (a model behind an OpenAI-compatible API; only public text goes there)");
}

TEST(DeviceKinds, TheRegistryNamesEveryDeviceWithTheCpuFirst) {
  EXPECT_EQ(device_kind_names(), (std::vector<std::string>{"cpu", "cuda"}));
  for (const std::string& name : device_kind_names()) {
    EXPECT_NO_THROW(check_device_name(name));
    EXPECT_NE(device_option_help().find(name + " ("), std::string::npos) << device_option_help();
  }
  EXPECT_NO_THROW(check_device_name("auto"));
  const std::string error = refusal([] { check_device_name("gpu"); });
  EXPECT_NE(error.find("--device"), std::string::npos) << error;
  EXPECT_NE(error.find("cpu, cuda or auto"), std::string::npos) << error;
}

TEST(DeviceKinds, CpuIsAlwaysTheCpu) {
  const DeviceKind& cpu = resolve_device("cpu");
  EXPECT_EQ(cpu.name(), "cpu");
  EXPECT_FALSE(cpu.unusable());
  EXPECT_EQ(cpu.sum_communicator(LocalCommunicator()), nullptr);  // the ranks' own
  EXPECT_EQ(cpu.make_kernel({.kernel = "blas", .threads = 1})->name(), "blas");
  EXPECT_EQ(cpu.make_kernel({.kernel = "reference"})->name(), "reference");
  EXPECT_EQ(cpu.make_kernel({.kernel = "blas", .threads = 1, .screen = "int8-emulated"})->name(), "blas");
  EXPECT_NE(refusal([&] { cpu.make_kernel({.kernel = "blas", .screen = "half"}); }).find("--screen"), std::string::npos);
  EXPECT_NE(refusal([&] { cpu.make_kernel({.kernel = "reference", .screen = "fp32"}); }).find("--kernel blas"), std::string::npos);
}

TEST(DeviceKinds, EveryDeviceChecksKernelAndScreenFirst) {
  for (const std::string& name : device_kind_names()) {
    const DeviceKind& kind = device_kind(name);  // usable here or not
    EXPECT_NE(refusal([&] { kind.make_kernel({.kernel = "magic"}); }).find("unknown compute kernel 'magic'"), std::string::npos) << name;
    // With a screen too: the unknown kernel is what is wrong, not where the screen goes.
    EXPECT_NE(refusal([&] { kind.make_kernel({.kernel = "magic", .screen = "bf16"}); }).find("unknown compute kernel 'magic'"), std::string::npos) << name;
    EXPECT_NE(refusal([&] { kind.make_kernel({.kernel = "blas", .screen = "half"}); }).find("--screen"), std::string::npos) << name;
  }
}

TEST(DeviceKinds, AutoAndCudaFollowTheGpus) {
  std::string note;
  if (cuda_device_count() == 0) {
    EXPECT_EQ(resolve_device("auto", &note).name(), "cpu");
    EXPECT_NE(note.find("cuda: " + cuda_unusable_reason()), std::string::npos) << note;
    EXPECT_NE(note.find("the CPU kernels run instead"), std::string::npos) << note;
    const std::string error = refusal([] { resolve_device("cuda"); });
    EXPECT_NE(error.find("--device cuda: " + cuda_unusable_reason()), std::string::npos) << error;
    EXPECT_NE(refusal([] { device_kind("cuda").make_kernel({}); }).find("--device cuda: "), std::string::npos);
    EXPECT_THROW(make_cuda_kernel({}), InputError);
  } else {
    const DeviceKind& cuda = resolve_device("auto", &note);
    EXPECT_EQ(cuda.name(), "cuda");
    EXPECT_TRUE(note.empty());
    EXPECT_EQ(cuda.make_kernel({.kernel = "reference", .threads = 1})->name(), "cuda");
    EXPECT_THROW(cuda.make_kernel({.kernel = "magic"}), InputError);
    EXPECT_THROW(cuda.make_kernel({.kernel = "blas", .screen = "bf16"}), InputError);
  }
}

}  // namespace
}  // namespace secpe
