#pragma once
// Word n-grams as 64-bit keys: the unit of every text statistic of the evaluation (TF-IDF terms,
// distinct-n, near-duplicates, lengths). Words are the tokenizer's, ASCII-lower-cased; punctuation
// is skipped, so "good, cheap" holds the bigram "good cheap" (as the embedder sees it). Keys are
// hashes: two different n-grams share a key with probability about 2^-64 per pair.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace secpe {

// One key per word of `text`, in order (the text's length in words is its size).
std::vector<std::uint64_t> word_keys(std::string_view text);

// word_keys of each text, in order.
std::vector<std::vector<std::uint64_t>> words_of(std::span<const std::string> texts);

// The number of words of `text` (word_keys(text).size(), without building the keys).
std::size_t word_count(std::string_view text);

// The key of the n-gram made of `words` (n = words.size() >= 1); n-grams of different n never
// share a key by construction of the hash (n is its first input).
std::uint64_t ngram_key(std::span<const std::uint64_t> words);

// Appends the key of every n-gram of `words` (words.size() - n + 1 of them, none when shorter).
void append_ngram_keys(std::span<const std::uint64_t> words, int n, std::vector<std::uint64_t>& out);

}  // namespace secpe
