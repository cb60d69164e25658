#pragma once
// The generators `secpe run --generator NAME` can use, as strategies. A kind builds the run's
// Generator (text/generator.hpp) on every rank and says which of the run's options decide its
// texts, for the release digest. A generator either learns from public texts (the dataset's public
// records or --generator-corpus: it takes --generator-labels and --generator-topics) or is
// prompted (--prompts). A new generator: a file beside these defining its kind's factory, and one
// line in kGeneratorKinds (registry.cpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "evolve/run_options.hpp"
#include "evolve/shard.hpp"
#include "text/generator.hpp"
#include "text/prompts.hpp"

namespace secpe {

// What a kind builds its generator from.
struct GeneratorSetup {
  const Communicator& comm;
  const RunOptions& options;
  const Shard& shard;
  PromptTemplates prompts;   // --prompts, or the built-in ones for the dataset's labels
  std::string cache_writer;  // this rank's name in the HTTP caches of the state folder
};

struct RunGenerator {
  std::unique_ptr<Generator> generator;
  int topics = 0;  // the latent topics it uses (--generator-topics auto resolved), 0 for none
};

class GeneratorKind {
 public:
  virtual ~GeneratorKind() = default;
  virtual std::string name() const = 0;         // --generator NAME
  virtual std::string description() const = 0;  // what it is, in a phrase, for --generator's help
  // Learns from public texts (the dataset needs them, or --generator-corpus); else prompted.
  virtual bool learns_from_texts() const = 0;
  virtual RunGenerator make(const GeneratorSetup& setup) const = 0;
  // The options of its own that decide its texts, keyed into the release digest
  // (evolve/release_keys.hpp); null where the run's shared options say all.
  virtual nlohmann::ordered_json release_settings(const RunOptions&) const { return nullptr; }
};

// The registered kinds' names, in registration order; with `learning`, only those that learn from
// texts (true) or are prompted (false).
std::vector<std::string> generator_kind_names(std::optional<bool> learning = std::nullopt);
// "name (description), ..." of every kind, for --generator's help.
std::string generator_kinds_help();
// The kind named `name`; InputError "--generator must be a or b, not 'x'".
const GeneratorKind& generator_kind(const std::string& name);

}  // namespace secpe
