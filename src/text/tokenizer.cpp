#include "text/tokenizer.hpp"

#include <algorithm>

#include "text/scan.hpp"

namespace secpe {

using text_detail::scan_tokens;

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  scan_tokens(text, [&](std::string_view tok, bool) { out.emplace_back(tok); });
  return out;
}

namespace {

bool is_marker(char c) { return c == '*' || c == '`' || c == '~' || c == '#' || c == '-' || c == '='; }
// t is one character c, or a run of it ("**", "---").
bool is_run_of(std::string_view t, char c) { return !t.empty() && t.find_first_not_of(c) == std::string_view::npos; }
bool is_emphasis(std::string_view t) { return !t.empty() && (t[0] == '*' || t[0] == '`' || t[0] == '~') && is_run_of(t, t[0]); }
bool is_break(std::string_view t) { return t == "\n" || t == "\n\n"; }

}  // namespace

std::vector<std::string> tokenize_layout(std::string_view text) {
  std::vector<std::string> out;
  std::size_t end = 0;  // of the previous token in `text`
  scan_tokens(text, [&](std::string_view tok, bool word) {
    const auto start = static_cast<std::size_t>(tok.data() - text.data());
    const std::string_view gap = text.substr(end, start - end);
    end = start + tok.size();
    const auto lines = std::count(gap.begin(), gap.end(), '\n');
    if (!out.empty() && lines > 0) out.emplace_back(lines == 1 ? "\n" : "\n\n");
    const bool joins = !word && gap.empty() && tok.size() == 1 && is_marker(tok[0]) && !out.empty() && is_run_of(out.back(), tok[0]);
    if (joins) {
      out.back() += tok;
    } else {
      out.emplace_back(tok);
    }
  });
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

std::string detokenize(const std::vector<std::string>& tokens, bool layout) {
  std::string out;
  std::size_t total = 0;
  for (const auto& t : tokens) total += t.size() + 1;
  out.reserve(total);
  bool quote_open = false;   // inside a "..." pair
  bool glue_next = true;     // no space before the next token
  bool line_start = true;    // layout: the next token starts a line
  std::vector<std::string_view> open;  // layout: the emphasis markers opened on this line
  for (const auto& t : tokens) {
    if (t.empty()) continue;
    bool space = !glue_next;
    bool glue_after = false;
    const bool starts_line = line_start;
    line_start = false;
    if (layout && is_break(t)) {
      out += t;
      glue_next = line_start = true;
      open.clear();
      continue;
    }
    if (layout && starts_line && (t == "*" || t == "-" || t == "+" || t == "#")) {
      // a bullet or a heading: spaced as a word
    } else if (layout && is_emphasis(t)) {
      const auto it = std::find(open.begin(), open.end(), t);
      if (it != open.end()) {
        space = false;  // closing
        open.erase(it);
      } else {
        glue_after = true;  // opening
        open.push_back(t);
      }
    } else if (t == "\"") {
      if (quote_open) {
        space = false;  // closing quote
      } else {
        glue_after = true;  // opening quote
      }
      quote_open = !quote_open;
    } else if (no_space_before(t)) {
      space = false;
    }
    if (no_space_after(t) && !(layout && starts_line && t == "#")) glue_after = true;
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
