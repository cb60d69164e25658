#pragma once
// Tokenisation shared by secret detection, the embedder and the built-in generator.
#include <string>
#include <string_view>
#include <vector>

namespace secpe {

// Words (letters, digits, apostrophes and in-word '-', '.', '@' as in emails and phone numbers)
// and single punctuation marks, case kept. "Great food, ok!" -> {"Great","food",",","ok","!"}.
std::vector<std::string> tokenize(std::string_view text);

// tokenize()'s tokens and the layout a text may have, for a generator that should give it back
// (OpenReview's reviews: "**Strengths**\n- clear"): a line break between two tokens is a token
// "\n", a blank line "\n\n" (never first or last); a run of one Markdown marker ('*', '`', '~',
// '#', '-', '=') written without a space is one token ("**", "##", "---").
std::vector<std::string> tokenize_layout(std::string_view text);

// Joins tokens with spaces, without a space before closing punctuation. With `layout`, the
// tokens of tokenize_layout: no space around a line break; an emphasis marker (a run of '*',
// '`' or '~') glued to what it encloses, the first of a pair on a line to the token after it,
// the second to the token before it; a single '*', '-' or '+' that starts a line is a bullet,
// and a '#' that starts one a heading (spaced).
std::string detokenize(const std::vector<std::string>& tokens, bool layout = false);

// Lower-cased word tokens only (no punctuation): the unit of secrets and embedding features.
std::vector<std::string> words_lower(std::string_view text);

}  // namespace secpe
