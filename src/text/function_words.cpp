#include "text/function_words.hpp"

#include <string>
#include <unordered_set>

namespace secpe {

bool is_function_word(std::string_view word) {
  static const std::unordered_set<std::string> kWords = {
      "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every", "no", "all", "both", "either",
      "neither", "such", "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours",
      "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they",
      "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "am",
      "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "will",
      "would", "shall", "should", "can", "could", "may", "might", "must", "and", "or", "but", "nor", "so", "yet", "if", "then",
      "than", "because", "as", "while", "although", "though", "until", "unless", "since", "of", "at", "by", "for", "with",
      "about", "against", "between", "into", "through", "during", "before", "after", "above", "below", "to", "from", "up",
      "down", "in", "out", "on", "off", "over", "under", "again", "once", "here", "there", "not", "very", "too", "just",
      "also", "only", "even", "still", "really", "quite", "i'm", "i've", "i'd", "i'll", "you're", "you've", "you'll", "we're",
      "we've", "we'll", "they're", "they've", "it's", "that's", "there's", "he's", "she's", "don't", "doesn't", "didn't",
      "isn't", "wasn't", "aren't", "weren't", "won't", "wouldn't", "can't", "couldn't", "shouldn't", "haven't", "hasn't",
      "hadn't", "s", "t", "e.g", "etc", "per", "via", "&"};
  std::string lower;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word.substr(i, 3) == "\u2019") {  // the typographic apostrophe, as in "don’t"
      lower += '\'';
      i += 2;
      continue;
    }
    const char c = word[i];
    lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return kWords.count(lower) > 0;
}

}  // namespace secpe
