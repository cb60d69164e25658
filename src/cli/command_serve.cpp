// secpe serve: the built-in generator and an embedder behind an OpenAI-compatible HTTP API
// (http/openai_service.hpp), so that the HTTP path of import and run can be tried and tested
// without a GPU, with switches that inject faults. It learns only from public texts. Every
// resource a client can make it spend has a limit with an option (http/server.hpp).
#include <cstdlib>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "embedders/dataset_embedder.hpp"
#include "evolve/training_texts.hpp"
#include "http/openai_service.hpp"
#include "io/corpus.hpp"
#include "text/generator_training.hpp"
#include "text/prompts.hpp"

namespace secpe::cli {
namespace {

// The labels of a public corpus file and its texts per label (sorted label values, as import).
LabelSet corpus_labels(const std::filesystem::path& path, std::vector<std::vector<std::string>>& texts) {
  const Corpus corpus = read_augpe_csv(path, CsvReadOptions{});
  std::vector<std::int32_t> ids;
  LabelSet labels = build_labels(corpus, ids);
  texts.assign(labels.size(), {});
  for (std::size_t i = 0; i < corpus.texts.size(); ++i) texts[static_cast<std::size_t>(ids[i])].push_back(corpus.texts[i]);
  return labels;
}

void add_limit_options(po::options_description& desc) {
  const HttpServerLimits server;
  const ServiceLimits service;
  desc.add_options()
    ("workers", po::value<int>()->default_value(server.workers), "limits: threads answering requests (one more thread does all socket work)")
    ("max-connections", po::value<int>()->default_value(server.max_connections), "limits: open connections at most; one more closes the longest-idle keep-alive connection, or is answered 503 when all are busy")
    ("max-body-bytes", po::value<std::size_t>()->default_value(server.request.max_body_bytes), "limits: bytes of one request body (over: 413)")
    ("max-response-bytes", po::value<std::size_t>()->default_value(server.max_response_bytes), "limits: bytes of one answer (over: 413)")
    ("max-inputs", po::value<std::size_t>()->default_value(service.max_inputs), "limits: embedding inputs, or completion choices (prompts x n), per request (over: 413)")
    ("max-request-tokens", po::value<std::size_t>()->default_value(service.max_request_tokens), "limits: tokens per request: inputs, or prompt + choices x max_tokens (over: 413)")
    ("request-timeout", po::value<double>()->default_value(server.request_timeout_s, "30"), "limits: seconds from a request's first byte to its last, and for the client to take the answer (over: 408, closed)")
    ("idle-timeout", po::value<double>()->default_value(server.idle_timeout_s, "15"), "limits: seconds a keep-alive connection may wait for its next request");
}

HttpServerLimits server_limits(const po::variables_map& vm) {
  HttpServerLimits l;
  l.workers = option_in(vm, "workers", 1, 1024);
  l.max_connections = option_in(vm, "max-connections", 1, 100000);
  l.request.max_body_bytes = option_in<std::size_t>(vm, "max-body-bytes", 1, std::size_t{1} << 32);
  l.max_response_bytes = option_in<std::size_t>(vm, "max-response-bytes", 1024, std::size_t{1} << 34);
  l.request_timeout_s = option_in(vm, "request-timeout", 0.01, 86400.0);
  l.idle_timeout_s = option_in(vm, "idle-timeout", 0.01, 86400.0);
  return l;
}

}  // namespace

int command_serve(const std::vector<std::string>& args) {
  po::options_description desc("secpe serve options");
  add_common_options(desc);
  desc.add_options()
    ("host", po::value<std::string>()->default_value("127.0.0.1"), "IPv4 address to listen on (loopback by default; no TLS, no access control beyond --api-key-env)")
    ("port", po::value<int>(), "port to listen on (0: any free port, see --port-file)")
    ("port-file", po::value<std::string>(), "write the port listened on to this file once listening")
    ("corpus", po::value<std::string>(), "public Aug-PE CSV (text,label1,label2) the built-in generator learns from")
    ("data", po::value<std::string>(), "or a secpe dataset: the generator learns from its public records only")
    ("generator-texts", po::value<std::size_t>()->default_value(5000), "--data: public training texts per label at most")
    ("max-words", po::value<int>()->default_value(64), "words per generated text at most")
    ("generator-labels", po::value<std::string>()->default_value("per-label"), "how the labels reach the generator: per-label (a model per label), pooled (one model of every text, without labels) or prompt (the pooled model steered by the label values and keyword lists of --prompts)")
    ("generator-topics", po::value<int>()->default_value(0), "--generator-labels pooled: latent topics of the texts, a model each (as secpe run's; 0: the one pooled model)")
    ("prompts", po::value<std::string>(), "--generator-labels prompt: prompt file (JSON, e.g. jobs/prompts/yelp.json) whose keyword lists steer each label; default: the label values alone")
    ("embedder", po::value<std::string>()->default_value("hashing"), "hashing (with --dim) or dataset (the --data dataset's embedder)")
    ("dim", po::value<int>()->default_value(256), "hashing embedder's dimension")
    ("model", po::value<std::string>()->default_value("secpe-builtin"), "the model name served (requests naming another get 404)")
    ("api-key-env", po::value<std::string>(), "require the key held by this environment variable as a Bearer token")
    ("fail-every", po::value<int>()->default_value(0), "fault injection: answer every N-th API request with --fail-status (0: never)")
    ("fail-status", po::value<int>()->default_value(500), "fault injection: the status of injected failures (e.g. 429, 500, 503)")
    ("drop-every", po::value<int>()->default_value(0), "fault injection: close the connection of every N-th API request without answering")
    ("delay-ms", po::value<int>()->default_value(0), "fault injection: wait this long before answering each API request")
    ("truncate", po::bool_switch(), "fault injection: cut every answer in half (invalid JSON)");
  add_limit_options(desc);
  po::variables_map vm;
  if (!parse_options("serve", "secpe serve --port P [--host 127.0.0.1] (--corpus PUBLIC.csv | --data DATA.h5)", desc, {}, args, vm)) return 0;
  if (!vm.count("port")) throw InputError("--port is required (0: any free port)");
  const int port = option_in(vm, "port", 0, 65535);
  if (vm.count("corpus") == vm.count("data")) throw InputError("give the generator's public texts: --corpus CSV or --data DATASET (one of them)");
  const std::string embedder_kind = vm["embedder"].as<std::string>();
  if (embedder_kind != "hashing" && embedder_kind != "dataset") throw InputError("--embedder must be hashing or dataset, not '" + embedder_kind + "'");
  if (embedder_kind == "dataset" && !vm.count("data")) throw InputError("--embedder dataset needs --data");
  OpenAiServiceOptions service;
  service.model = vm["model"].as<std::string>();
  if (vm.count("api-key-env")) {
    const std::string name = vm["api-key-env"].as<std::string>();
    const char* key = std::getenv(name.c_str());
    if (!key || !*key) throw InputError("--api-key-env: the environment variable " + name + " is not set or empty");
    service.api_key = key;
  }
  service.faults = {.fail_every = option_in(vm, "fail-every", 0, 1000000),
                    .fail_status = option_in(vm, "fail-status", 400, 599),
                    .drop_every = option_in(vm, "drop-every", 0, 1000000),
                    .delay_ms = option_in(vm, "delay-ms", 0, 3600000),
                    .truncate = vm["truncate"].as<bool>()};
  service.limits = {.max_inputs = option_in<std::size_t>(vm, "max-inputs", 1, 1000000),
                    .max_request_tokens = option_in<std::size_t>(vm, "max-request-tokens", 1, std::size_t{1} << 40)};
  const HttpServerLimits limits = server_limits(vm);
  const NgramGeneratorOptions generator_options{.max_words = option_in(vm, "max-words", 1, 100000)};
  GeneratorLabels generator_labels{};
  try {
    generator_labels = parse_generator_labels(vm["generator-labels"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--generator-labels: ") + e.what());
  }
  if (vm.count("prompts") && generator_labels != GeneratorLabels::kPrompt) throw InputError("--prompts applies to --generator-labels prompt only");

  std::vector<std::vector<std::string>> texts;
  LabelSet labels;
  std::shared_ptr<const Embedder> embedder;
  std::string source;
  if (vm.count("data")) {
    const std::filesystem::path data = vm["data"].as<std::string>();
    const DatasetReader reader(data);
    if (!reader.info().has_text) throw InputError("--data: " + data.string() + " holds no texts");
    labels = reader.info().labels;
    texts = public_training_texts(reader, option_in<std::size_t>(vm, "generator-texts", 1, 1000000000));
    source = "the public records of " + data.filename().string();
    if (embedder_kind == "dataset") embedder = dataset_embedder(reader, data);
  } else {
    source = vm["corpus"].as<std::string>();
    labels = corpus_labels(source, texts);
  }
  if (!embedder) embedder = std::make_shared<HashingEmbedder>(option_in(vm, "dim", 1, 65536));
  const PromptTemplates prompts = vm.count("prompts") ? PromptTemplates::load(vm["prompts"].as<std::string>(), labels) : PromptTemplates::builtin(labels);
  GeneratorTraining training = generator_training(generator_labels, texts, source, prompts, option_in(vm, "generator-topics", 0, 100000));
  training.label_texts.emplace_back();  // the all-label model, for prompts that name no label
  auto generator = std::make_shared<NgramGenerator>(training, generator_options);

  HttpServer server(vm["host"].as<std::string>(), port, openai_service(generator, embedder, labels, service), limits);
  if (vm.count("port-file")) {
    write_file_atomically(vm["port-file"].as<std::string>(), [&](std::ostream& o) { o << server.port() << "\n"; });
  }
  log_info("serving model '" + service.model + "' (" + generator->describe() + "; embedder " + embedder->name() + ") on http://" +
           vm["host"].as<std::string>() + ":" + std::to_string(server.port()) + "/v1 with " + std::to_string(limits.workers) + " workers, at most " +
           std::to_string(limits.max_connections) + " connections");
  server.serve();
  return 0;
}

}  // namespace secpe::cli
