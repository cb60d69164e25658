#pragma once
// Private helpers of src/text: the one tokenisation scanner behind tokenize(), words_lower(), the
// embedder and secret detection (so that they always agree on word boundaries), and FNV-1a hashing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace secpe::text_detail {

enum class CharClass { kSpace, kWord, kPunct, kApostrophe, kConnector };

struct Char {
  CharClass cls;
  std::size_t len;  // bytes
};

// Decodes the character at s[i] (i < s.size()). Invalid UTF-8 bytes count as one-byte word characters.
inline Char classify(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    if ((b0 >= 'a' && b0 <= 'z') || (b0 >= 'A' && b0 <= 'Z') || (b0 >= '0' && b0 <= '9') || b0 == '_')
      return {CharClass::kWord, 1};
    if (b0 == ' ' || b0 == '\t' || b0 == '\n' || b0 == '\r' || b0 == '\f' || b0 == '\v' || b0 < 0x20 || b0 == 0x7f)
      return {CharClass::kSpace, 1};
    if (b0 == '\'') return {CharClass::kApostrophe, 1};
    if (b0 == '-' || b0 == '.' || b0 == '@') return {CharClass::kConnector, 1};
    return {CharClass::kPunct, 1};
  }
  std::size_t len;
  char32_t cp;
  if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; }
  else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; }
  else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; }
  else return {CharClass::kWord, 1};
  if (i + len > s.size()) return {CharClass::kWord, 1};
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {CharClass::kWord, 1};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200F) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
      cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
    return {CharClass::kSpace, len};
  if (cp == 0x2019) return {CharClass::kApostrophe, len};
  if (cp >= 0x00A1 && cp <= 0x00BF) {
    const bool letterish = cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
                           (cp >= 0xBC && cp <= 0xBE);
    return {letterish ? CharClass::kWord : CharClass::kPunct, len};
  }
  if (cp == 0xD7 || cp == 0xF7 || (cp >= 0x2010 && cp <= 0x206F) || (cp >= 0x20A0 && cp <= 0x20CF) ||
      (cp >= 0x2190 && cp <= 0x2BFF) || (cp >= 0x3001 && cp <= 0x3003) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
      (cp >= 0x1F000 && cp <= 0x1FAFF))
    return {CharClass::kPunct, len};
  return {CharClass::kWord, len};
}

inline bool is_upper_ascii(char c) { return c >= 'A' && c <= 'Z'; }

// Calls f(token, is_word) for every token of `s`, in order. Words are runs of word characters
// joined by an apostrophe, '-', '.' or '@' that sits between two word characters; a '.' followed
// by an upper-case letter ends the word ("like.They") unless the chunk holds an '@' (an email).
template <class F>
void scan_tokens(std::string_view s, F&& f) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const Char c = classify(s, i);
    if (c.cls == CharClass::kSpace) {
      i += c.len;
      continue;
    }
    if (c.cls != CharClass::kWord) {
      f(s.substr(i, c.len), false);
      i += c.len;
      continue;
    }
    const std::size_t start = i;
    i += c.len;
    int has_at = -1;  // unknown
    while (i < n) {
      const Char d = classify(s, i);
      if (d.cls == CharClass::kWord) {
        i += d.len;
        continue;
      }
      if (d.cls != CharClass::kApostrophe && d.cls != CharClass::kConnector) break;
      const std::size_t next = i + d.len;
      if (next >= n || classify(s, next).cls != CharClass::kWord) break;
      if (s[i] == '.' && is_upper_ascii(s[next])) {
        if (has_at < 0) {
          has_at = 0;
          for (std::size_t k = start; k < n; ++k) {
            if (classify(s, k).cls == CharClass::kSpace) break;
            if (s[k] == '@') {
              has_at = 1;
              break;
            }
          }
        }
        if (has_at == 0) break;
      }
      i = next;
    }
    f(s.substr(start, i - start), true);
  }
}

inline char lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

inline void append_lower(std::string& out, std::string_view w) {
  for (char c : w) out.push_back(lower_ascii(c));
}

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = kFnvOffset) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= kFnvPrime;
  }
  return h;
}

// FNV-1a of the ASCII-lower-cased bytes of w.
inline std::uint64_t fnv1a_lower(std::string_view s) {
  std::uint64_t h = kFnvOffset;
  for (char c : s) {
    h ^= static_cast<unsigned char>(lower_ascii(c));
    h *= kFnvPrime;
  }
  return h;
}

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

inline bool is_all_digits(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w)
    if (c < '0' || c > '9') return false;
  return true;
}

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    char32_t cp, min;
    if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min = 0x80; }
    else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min = 0x800; }
    else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min = 0x10000; }
    else return false;
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

}  // namespace secpe::text_detail
