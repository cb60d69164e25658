#include "http/openai_request.hpp"

#include <algorithm>
#include <limits>

#include "text/tokenizer.hpp"

namespace secpe {
namespace {

using nlohmann::json;

ApiError bad(const std::string& param, const std::string& message) { return {400, message, param, "invalid_value"}; }

// A field name as it may appear in a message: short, whatever the client sent.
std::string field_name(const std::string& key) { return key.size() <= 64 ? key : key.substr(0, 64) + "..."; }

void allow_only(const json& body, std::initializer_list<std::string_view> names) {
  for (const auto& [key, value] : body.items()) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      throw ApiError{400, "unsupported parameter '" + field_name(key) + "': secpe serve does not implement it", field_name(key),
                     "unsupported_parameter"};
    }
  }
}

std::int64_t integer(const json& body, const std::string& name, std::int64_t lo, std::int64_t hi, std::int64_t fallback) {
  if (!body.contains(name) || body[name].is_null()) return fallback;
  const json& v = body[name];
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) ||
      v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    throw bad(name, "'" + name + "' must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return v.get<std::int64_t>();
}

void check_number(const json& body, const std::string& name, double lo, double hi) {
  if (!body.contains(name) || body[name].is_null()) return;
  const json& v = body[name];
  if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi)) {
    throw bad(name, "'" + name + "' must be a number from " + json(lo).dump() + " to " + json(hi).dump());
  }
}

void check_string(const json& body, const std::string& name) {
  if (body.contains(name) && !body[name].is_string()) throw bad(name, "'" + name + "' must be a string");
}

bool boolean(const json& body, const std::string& name) {
  if (!body.contains(name) || body[name].is_null()) return false;
  if (!body[name].is_boolean()) throw bad(name, "'" + name + "' must be true or false");
  return body[name].get<bool>();
}

// A string, or a list of strings (token-id inputs are not taken: the built-in model has no ids).
std::vector<std::string> strings(const json& body, const std::string& name) {
  if (!body.contains(name)) throw bad(name, "'" + name + "' is required");
  const json& v = body[name];
  std::vector<std::string> out;
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array() || v.empty()) throw bad(name, "'" + name + "' must be a string or a non-empty list of strings");
  for (const auto& item : v) {
    if (!item.is_string()) throw bad(name, "'" + name + "' must be a string or a list of strings (token ids are not supported)");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::size_t tokens_of(const std::vector<std::string>& texts) {
  std::size_t n = 0;
  for (const auto& t : texts) n += tokenize(t).size();
  return n;
}

void within(std::size_t value, std::size_t limit, const std::string& what) {
  if (value > limit) {
    throw ApiError{413, std::to_string(value) + " " + what + ", over this server's limit of " + std::to_string(limit) + " per request", "",
                   "request_too_large"};
  }
}

// A message's text: a string, or a list of {"type": "text", "text": ...} parts.
std::string message_text(const json& m, std::size_t i) {
  const std::string where = "messages[" + std::to_string(i) + "]";
  if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) throw bad("messages", where + " needs a 'role' string");
  for (const auto& [key, value] : m.items()) {
    if (key != "role" && key != "content" && key != "name") throw bad("messages", where + ": unsupported field '" + field_name(key) + "'");
  }
  const std::string role = m["role"].get<std::string>();
  if (role != "system" && role != "developer" && role != "user" && role != "assistant") {
    throw bad("messages", where + ": role '" + field_name(role) + "' is not supported (system, developer, user, assistant)");
  }
  if (!m.contains("content")) throw bad("messages", where + " has no 'content'");
  const json& c = m["content"];
  if (c.is_string()) return c.get<std::string>();
  if (!c.is_array()) throw bad("messages", where + ": 'content' must be a string or a list of text parts");
  std::string text;
  for (const auto& part : c) {
    if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string()) {
      throw bad("messages", where + ": only text content parts are supported");
    }
    if (!text.empty()) text += '\n';
    text += part["text"].get_ref<const std::string&>();
  }
  return text;
}

// Chat: the last user message is the prompt; every message counts towards the prompt tokens.
void read_messages(const json& body, GenerationRequest& r) {
  if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty()) {
    throw bad("messages", "'messages' must be a non-empty list");
  }
  std::optional<std::string> prompt;
  std::vector<std::string> contents;
  for (std::size_t i = 0; i < body["messages"].size(); ++i) {
    contents.push_back(message_text(body["messages"][i], i));
    if (body["messages"][i]["role"] == "user") prompt = contents.back();
  }
  if (!prompt) throw bad("messages", "no user message");
  r.prompts = {*prompt};
  r.prompt_tokens = tokens_of(contents);
}

std::vector<std::string> stop_strings(const json& body) {
  if (!body.contains("stop") || body["stop"].is_null()) return {};
  std::vector<std::string> stop = strings(body, "stop");
  if (stop.size() > 4 || std::any_of(stop.begin(), stop.end(), [](const std::string& s) { return s.empty(); })) {
    throw bad("stop", "'stop' must be up to 4 non-empty strings");
  }
  return stop;
}

}  // namespace

EmbeddingRequest parse_embedding_request(const json& body, int dim, const ServiceLimits& limits) {
  allow_only(body, {"model", "input", "encoding_format", "dimensions", "user"});
  check_string(body, "user");
  EmbeddingRequest r;
  r.texts = strings(body, "input");
  within(r.texts.size(), limits.max_inputs, "inputs");
  r.tokens = tokens_of(r.texts);
  within(r.tokens, limits.max_request_tokens, "input tokens");
  if (body.contains("encoding_format") && !body["encoding_format"].is_null()) {
    const json& f = body["encoding_format"];
    if (f != "float" && f != "base64") throw bad("encoding_format", "'encoding_format' must be float or base64");
    r.base64 = f == "base64";
  }
  if (body.contains("dimensions") && integer(body, "dimensions", 1, 1 << 20, dim) != dim) {
    throw bad("dimensions", "this model's embeddings have " + std::to_string(dim) + " dimensions; 'dimensions' cannot change that");
  }
  return r;
}

GenerationRequest parse_generation_request(const json& body, bool chat, const ServiceLimits& limits) {
  if (chat) {
    allow_only(body, {"model", "messages", "stream", "stream_options", "n", "max_tokens", "max_completion_tokens", "temperature", "top_p",
                      "seed", "stop", "user"});
  } else {
    allow_only(body, {"model", "prompt", "stream", "stream_options", "n", "max_tokens", "temperature", "top_p", "seed", "stop", "user"});
  }
  check_number(body, "temperature", 0.0, 2.0);
  check_number(body, "top_p", 0.0, 1.0);
  check_string(body, "user");
  GenerationRequest r;
  if (chat) {
    read_messages(body, r);
  } else {
    r.prompts = strings(body, "prompt");
    r.prompt_tokens = tokens_of(r.prompts);
  }
  r.n = static_cast<std::size_t>(integer(body, "n", 1, 128, 1));
  if (body.contains("max_tokens") && body.contains("max_completion_tokens")) {
    throw bad("max_tokens", "give 'max_tokens' or 'max_completion_tokens', not both");
  }
  const std::string cap = body.contains("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  if (body.contains(cap) && !body[cap].is_null()) r.max_tokens = static_cast<std::size_t>(integer(body, cap, 1, 1 << 30, 1));
  r.stop = stop_strings(body);
  r.seed = static_cast<std::uint64_t>(integer(body, "seed", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 0));
  r.stream = boolean(body, "stream");
  if (body.contains("stream_options") && !body["stream_options"].is_null()) {
    const json& o = body["stream_options"];
    if (!r.stream) throw bad("stream_options", "'stream_options' needs 'stream': true");
    if (!o.is_object()) throw bad("stream_options", "'stream_options' must be an object");
    allow_only(o, {"include_usage"});
    r.include_usage = boolean(o, "include_usage");
  }
  const std::size_t choices = r.prompts.size() * r.n;
  within(choices, limits.max_inputs, "choices (prompts x n)");
  within(r.prompt_tokens + choices * r.max_tokens.value_or(0), limits.max_request_tokens, "tokens (prompt + choices x max_tokens)");
  return r;
}

}  // namespace secpe
