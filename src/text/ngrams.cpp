#include "text/ngrams.hpp"

#include "text/scan.hpp"

namespace secpe {

using text_detail::fnv1a_lower;
using text_detail::mix64;

std::vector<std::vector<std::uint64_t>> words_of(std::span<const std::string> texts) {
  std::vector<std::vector<std::uint64_t>> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(word_keys(t));
  return out;
}

std::vector<std::uint64_t> word_keys(std::string_view text) {
  std::vector<std::uint64_t> out;
  text_detail::scan_tokens(text, [&](std::string_view token, bool is_word) {
    if (is_word) out.push_back(mix64(fnv1a_lower(token)));
  });
  return out;
}

std::size_t word_count(std::string_view text) {
  std::size_t n = 0;
  text_detail::scan_tokens(text, [&](std::string_view, bool is_word) { n += is_word ? 1 : 0; });
  return n;
}

std::uint64_t ngram_key(std::span<const std::uint64_t> words) {
  std::uint64_t key = mix64(words.size());
  for (const std::uint64_t w : words) key = mix64(key ^ w) + 0x9e3779b97f4a7c15ull;
  return key;
}

void append_ngram_keys(std::span<const std::uint64_t> words, int n, std::vector<std::uint64_t>& out) {
  const auto len = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i + len <= words.size(); ++i) out.push_back(ngram_key(words.subspan(i, len)));
}

}  // namespace secpe
