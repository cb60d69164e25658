#pragma once
// Tokenisation shared by secret detection, the embedder and the built-in generator.
#include <string>
#include <string_view>
#include <vector>

namespace secpe {

// Words (letters, digits, apostrophes and in-word '-', '.', '@' as in emails and phone numbers)
// and single punctuation marks, case kept. "Great food, ok!" -> {"Great","food",",","ok","!"}.
std::vector<std::string> tokenize(std::string_view text);

// Joins tokens with spaces, without a space before closing punctuation.
std::string detokenize(const std::vector<std::string>& tokens);

// Lower-cased word tokens only (no punctuation): the unit of secrets and embedding features.
std::vector<std::string> words_lower(std::string_view text);

}  // namespace secpe
