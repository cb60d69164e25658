#include "text/tokenizer.hpp"

#include "text/scan.hpp"

namespace secpe {

using text_detail::scan_tokens;

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  scan_tokens(text, [&](std::string_view tok, bool) { out.emplace_back(tok); });
  return out;
}

namespace {

bool no_space_before(const std::string& t) {
  static const char* const kClosing[] = {".", ",", "!", "?", ";", ":", ")", "]", "}", "%", "\xE2\x80\x9D" /* ” */,
                                         "\xE2\x80\x99" /* ’ */, "\xE2\x80\xA6" /* … */, "'"};
  for (const char* c : kClosing)
    if (t == c) return true;
  return false;
}

bool no_space_after(const std::string& t) {
  static const char* const kOpening[] = {"(", "[", "{", "$", "#", "\xE2\x80\x9C" /* “ */, "\xE2\x80\x98" /* ‘ */};
  for (const char* c : kOpening)
    if (t == c) return true;
  return false;
}

}  // namespace

std::string detokenize(const std::vector<std::string>& tokens) {
  std::string out;
  std::size_t total = 0;
  for (const auto& t : tokens) total += t.size() + 1;
  out.reserve(total);
  bool quote_open = false;   // inside a "..." pair
  bool glue_next = true;     // no space before the next token
  for (const auto& t : tokens) {
    if (t.empty()) continue;
    bool space = !glue_next;
    bool glue_after = false;
    if (t == "\"") {
      if (quote_open) {
        space = false;  // closing quote
      } else {
        glue_after = true;  // opening quote
      }
      quote_open = !quote_open;
    } else if (no_space_before(t)) {
      space = false;
    }
    if (no_space_after(t)) glue_after = true;
    if (space) out.push_back(' ');
    out += t;
    glue_next = glue_after;
  }
  return out;
}

std::vector<std::string> words_lower(std::string_view text) {
  std::vector<std::string> out;
  scan_tokens(text, [&](std::string_view tok, bool is_word) {
    if (!is_word) return;
    std::string w;
    w.reserve(tok.size());
    text_detail::append_lower(w, tok);
    out.push_back(std::move(w));
  });
  return out;
}

}  // namespace secpe
