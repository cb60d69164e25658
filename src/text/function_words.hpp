#pragma once
// English function words (articles, pronouns, prepositions, conjunctions, auxiliaries and their
// contractions): the closed-class words that carry no topic, names or sentiment of their own.
// The built-in generator's rephrase keeps a parent's other words, and prompt steering matches a
// prompt's other words (text/generator_training.hpp).
#include <string_view>

namespace secpe {

// `word` in any case ("The" and "the" alike); punctuation and numbers are not function words.
bool is_function_word(std::string_view word);

}  // namespace secpe
