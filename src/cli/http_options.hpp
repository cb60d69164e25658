#pragma once
// The options of models behind an OpenAI-compatible HTTP API, shared by secpe import (the
// embedder) and secpe run (the generator and the candidates' embedder).
#include <string>

#include "cli/options.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"

namespace secpe::cli {

// --api-key-env, --concurrency, --http-timeout, --http-retries, --http-backoff.
void add_http_client_options(po::options_description& desc);
// --embed-url, --embed-model, --embed-batch. `run`: the URL and model default to the dataset's.
void add_http_embedder_options(po::options_description& desc, bool run);
// --generator, --gen-url, --gen-model, --gen-api, --temperature, --max-tokens, --prompts.
void add_http_generator_options(po::options_description& desc);

// The connection to `url` (which may be empty: the dataset's, for run's embedder).
HttpClientOptions http_client_options(const po::variables_map& vm, const std::string& url);
// The embedder's settings: import needs --embed-url and --embed-model.
HttpEmbedderOptions http_embedder_options(const po::variables_map& vm, bool required);
// Whether --generator http was chosen (InputError for another value than builtin or http, or
// --gen-* options with the built-in generator); fills `options` when it was.
bool http_generator_options(const po::variables_map& vm, HttpGeneratorOptions& options);

// InputError when an HTTP-only option was given though no HTTP model is used: `what` names them.
void refuse_http_options(const po::variables_map& vm, const std::vector<std::string>& names, const std::string& what);

}  // namespace secpe::cli
