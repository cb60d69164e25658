#include "cli/http_options.hpp"

#include "core/error.hpp"

namespace secpe::cli {

void add_http_client_options(po::options_description& desc) {
  const HttpClientOptions d;
  desc.add_options()
    ("api-key-env", po::value<std::string>(), "HTTP models: NAME of the environment variable holding the API key (sent as a Bearer token, never printed or written)")
    ("concurrency", po::value<int>()->default_value(d.concurrency), "HTTP models: requests in flight at most (per rank)")
    ("http-timeout", po::value<double>()->default_value(d.timeout_s, "300"), "HTTP models: seconds one attempt may take")
    ("http-retries", po::value<int>()->default_value(d.max_retries), "HTTP models: retries of a request on 429, 5xx, timeouts and dropped connections, with exponential backoff")
    ("http-backoff", po::value<double>()->default_value(d.backoff_initial_s, "0.5"), "HTTP models: seconds before the first retry (doubling each time, with jitter, at most 30)");
}

void add_http_embedder_options(po::options_description& desc, bool run) {
  desc.add_options()
    ("embed-url", po::value<std::string>(), run ? "HTTP embedder: base URL of the /embeddings API (default: the one recorded at import)"
                                                : "--embedder http: base URL of the OpenAI-compatible API, e.g. http://node:8080/v1. Private texts go there")
    ("embed-model", po::value<std::string>(), run ? "HTTP embedder: must be the model recorded at import (checked)"
                                                  : "--embedder http: the model name the server knows")
    ("embed-batch", po::value<int>()->default_value(HttpEmbedderOptions{}.batch), "HTTP embedder: texts per /embeddings request");
}

void add_http_generator_options(po::options_description& desc) {
  const HttpGeneratorOptions d;
  desc.add_options()
    ("generator", po::value<std::string>()->default_value("builtin"), "builtin (the offline trigram model) or http (a model behind an OpenAI-compatible API; only public text goes there)")
    ("gen-url", po::value<std::string>(), "--generator http: base URL, e.g. http://node:8000/v1")
    ("gen-model", po::value<std::string>(), "--generator http: the model name the server knows")
    ("gen-api", po::value<std::string>()->default_value("chat"), "--generator http: chat (/chat/completions) or completions (/completions, for base models)")
    ("temperature", po::value<double>()->default_value(d.temperature, "1.0"), "--generator http: sampling temperature")
    ("max-tokens", po::value<int>()->default_value(d.max_tokens), "--generator http: tokens per generated text at most")
    ("prompts", po::value<std::string>(), "prompt file (JSON, e.g. jobs/prompts/yelp.json; default: generic built-in prompts): the prompts of --generator http, or the label values and keyword lists that steer the built-in generator under --generator-labels prompt");
}

HttpClientOptions http_client_options(const po::variables_map& vm, const std::string& url) {
  HttpClientOptions o;
  o.base_url = url;
  if (vm.count("api-key-env")) o.api_key_env = vm["api-key-env"].as<std::string>();
  o.concurrency = option_in(vm, "concurrency", 1, 4096);
  o.timeout_s = option_in(vm, "http-timeout", 0.001, 86400.0);
  o.max_retries = option_in(vm, "http-retries", 0, 100);
  o.backoff_initial_s = option_in(vm, "http-backoff", 0.0, 3600.0);
  return o;
}

HttpEmbedderOptions http_embedder_options(const po::variables_map& vm, bool required) {
  for (const char* name : {"embed-url", "embed-model"}) {
    if (required && !vm.count(name)) throw InputError(std::string("--embedder http needs --") + name);
  }
  HttpEmbedderOptions o;
  o.client = http_client_options(vm, vm.count("embed-url") ? vm["embed-url"].as<std::string>() : "");
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
  if (kind != "builtin" && kind != "http") throw InputError("--generator must be builtin or http, not '" + kind + "'");
  if (kind == "builtin") {
    refuse_http_options(vm, {"gen-url", "gen-model", "gen-api", "temperature", "max-tokens"}, "--generator http");
    return false;
  }
  for (const char* name : {"gen-url", "gen-model"}) {
    if (!vm.count(name)) throw InputError(std::string("--generator http needs --") + name);
  }
  options.client = http_client_options(vm, vm["gen-url"].as<std::string>());
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
