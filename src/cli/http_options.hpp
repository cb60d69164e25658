#pragma once
// The options of models behind an OpenAI-compatible HTTP API, shared by secpe import (the
// embedder) and secpe run (the generator and the candidates' embedder).
#include <string>

#include "cli/options.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"

namespace secpe::cli {

// --concurrency, --http-timeout, --http-retries, --http-backoff, --http-max-response-mb, and the
// refused --api-key-env (each endpoint has its own key option, so that a hosted generator's key
// never reaches the embedding server: --gen-api-key-env, --embed-api-key-env).
void add_http_client_options(po::options_description& desc);
// --embed-url, --embed-model, --embed-batch, --embed-api-key-env. `run`: the URL and model
// default to the dataset's.
void add_http_embedder_options(po::options_description& desc, bool run);
// --generator, --gen-url, --gen-model, --gen-api-key-env, --gen-api, --temperature, --max-tokens, --prompts.
void add_http_generator_options(po::options_description& desc);

// The connection to the URL of option `url_option` (when not given: empty, the dataset's for
// run's embedder) with the key named by `key_option`; InputError naming the option for a URL
// with credentials, a query or a fragment, and for --api-key-env.
HttpClientOptions http_client_options(const po::variables_map& vm, const std::string& url_option, const std::string& key_option);
// The embedder's settings: import needs --embed-url and --embed-model.
HttpEmbedderOptions http_embedder_options(const po::variables_map& vm, bool required);
// Whether --generator http was chosen (InputError for a --generator no kind has, or --gen-*
// options with another generator); fills `options` when it was.
bool http_generator_options(const po::variables_map& vm, HttpGeneratorOptions& options);

// InputError naming --gen-api-key-env and --embed-api-key-env when --api-key-env was given.
void refuse_shared_api_key(const po::variables_map& vm);

// InputError when an HTTP-only option was given though no HTTP model is used: `what` names them.
void refuse_http_options(const po::variables_map& vm, const std::vector<std::string>& names, const std::string& what);

}  // namespace secpe::cli
