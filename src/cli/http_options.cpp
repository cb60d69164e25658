#include "cli/http_options.hpp"

#include "core/error.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe::cli {

void add_http_client_options(po::options_description& desc) {
  const HttpClientOptions d;
  desc.add_options()
    ("api-key-env", po::value<std::string>(), "replaced by --gen-api-key-env and --embed-api-key-env (refused: one key no longer goes to both endpoints)")
    ("concurrency", po::value<int>()->default_value(d.concurrency), "HTTP models: requests in flight at most (per rank); with --generator http a run evolves several labels side by side to keep them in flight (docs/http.md)")
    ("http-timeout", po::value<double>()->default_value(d.timeout_s, "300"), "HTTP models: seconds one attempt may take")
    ("http-retries", po::value<int>()->default_value(d.max_retries), "HTTP models: retries of a request on 429, 5xx, timeouts and dropped connections, with exponential backoff")
    ("http-backoff", po::value<double>()->default_value(d.backoff_initial_s, "0.5"), "HTTP models: seconds before the first retry (doubling each time, with jitter, at most 30; a longer Retry-After of the server is honoured up to 600)")
    ("http-max-response-mb", po::value<double>()->default_value(static_cast<double>(d.max_response_bytes >> 20), "64"), "HTTP models: MiB one answer may take after decompression (a larger one stops the job with an error naming the URL)");
}

void add_http_embedder_options(po::options_description& desc, bool run) {
  desc.add_options()
    ("embed-url", po::value<std::string>(), run ? "HTTP embedder: base URL of the /embeddings API (default: the one recorded at import)"
                                                : "--embedder http: base URL of the OpenAI-compatible API, e.g. http://node:8080/v1. Private texts go there")
    ("embed-model", po::value<std::string>(), run ? "HTTP embedder: must be the model recorded at import (checked)"
                                                  : "--embedder http: the model name the server knows")
    ("embed-batch", po::value<int>()->default_value(HttpEmbedderOptions{}.batch), "HTTP embedder: texts per /embeddings request (halved when the server refuses a batch as too large)")
    ("embed-api-key-env", po::value<std::string>(), "HTTP embedder: NAME of the environment variable holding the embedding endpoint's API key (sent as a Bearer token, never printed or written; none by default)");
}

void add_http_generator_options(po::options_description& desc) {
  const HttpGeneratorOptions d;
  desc.add_options()
    ("generator", po::value<std::string>()->default_value("builtin"), generator_kinds_help().c_str())
    ("gen-url", po::value<std::string>(), "--generator http: base URL, e.g. http://node:8000/v1")
    ("gen-model", po::value<std::string>(), "--generator http: the model name the server knows")
    ("gen-api-key-env", po::value<std::string>(), "--generator http: NAME of the environment variable holding the generation endpoint's API key (sent as a Bearer token to that endpoint only, never printed or written)")
    ("gen-api", po::value<std::string>()->default_value("chat"), "--generator http: chat (/chat/completions) or completions (/completions, for base models)")
    ("temperature", po::value<double>()->default_value(d.temperature, "1.0"), "--generator http: sampling temperature")
    ("max-tokens", po::value<int>()->default_value(d.max_tokens), "--generator http: tokens per generated text at most")
    ("prompts", po::value<std::string>(), "prompt file (JSON, e.g. jobs/prompts/yelp.json; default: generic built-in prompts): the prompts of --generator http, or the label values and keyword lists that steer the built-in generator under --generator-labels prompt");
}

void refuse_shared_api_key(const po::variables_map& vm) {
  if (vm.count("api-key-env")) {
    throw InputError("--api-key-env is replaced by two options, one per endpoint: --gen-api-key-env NAME (generation) and --embed-api-key-env "
                     "NAME (embedding), so that a hosted model's key never reaches the embedding server; give both the same NAME to send one "
                     "key to both");
  }
}

HttpClientOptions http_client_options(const po::variables_map& vm, const std::string& url_option, const std::string& key_option) {
  refuse_shared_api_key(vm);
  HttpClientOptions o;
  if (vm.count(url_option)) {
    o.base_url = vm[url_option].as<std::string>();
    try {
      check_base_url(o.base_url);
    } catch (const InputError& e) {
      throw InputError("--" + url_option + ": " + e.what());
    }
  }
  if (vm.count(key_option)) o.api_key_env = vm[key_option].as<std::string>();
  o.concurrency = option_in(vm, "concurrency", 1, 4096);
  o.timeout_s = option_in(vm, "http-timeout", 0.001, 86400.0);
  o.max_retries = option_in(vm, "http-retries", 0, 100);
  o.backoff_initial_s = option_in(vm, "http-backoff", 0.0, 3600.0);
  o.max_response_bytes = static_cast<std::size_t>(option_in(vm, "http-max-response-mb", 0.001, 65536.0) * (1 << 20));
  return o;
}

HttpEmbedderOptions http_embedder_options(const po::variables_map& vm, bool required) {
  for (const char* name : {"embed-url", "embed-model"}) {
    if (required && !vm.count(name)) throw InputError(std::string("--embedder http needs --") + name);
  }
  HttpEmbedderOptions o;
  o.client = http_client_options(vm, "embed-url", "embed-api-key-env");
  if (vm.count("embed-model")) o.model = vm["embed-model"].as<std::string>();
  o.batch = option_in(vm, "embed-batch", 1, 100000);
  return o;
}

void refuse_http_options(const po::variables_map& vm, const std::vector<std::string>& names, const std::string& what) {
  for (const auto& name : names) {
    if (vm.count(name) && !vm[name].defaulted()) throw InputError("--" + name + " applies to " + what + " only");
  }
}

bool http_generator_options(const po::variables_map& vm, HttpGeneratorOptions& options) {
  const std::string kind = vm["generator"].as<std::string>();
  generator_kind(kind);  // an unknown one is refused, naming the known ones
  if (kind != "http") {
    refuse_http_options(vm, {"gen-url", "gen-model", "gen-api", "gen-api-key-env", "temperature", "max-tokens"}, "--generator http");
    return false;
  }
  for (const char* name : {"gen-url", "gen-model"}) {
    if (!vm.count(name)) throw InputError(std::string("--generator http needs --") + name);
  }
  options.client = http_client_options(vm, "gen-url", "gen-api-key-env");
  options.model = vm["gen-model"].as<std::string>();
  try {
    options.api = parse_generation_api(vm["gen-api"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--gen-api: ") + e.what());
  }
  options.temperature = option_in(vm, "temperature", 0.0, 10.0);
  options.max_tokens = option_in(vm, "max-tokens", 1, 1000000);
  return true;
}

}  // namespace secpe::cli
