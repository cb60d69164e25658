#pragma once
// Prompts for a language model behind an API, in the style of Aug-PE: RANDOM asks for a text of
// the label about a keyword drawn from the label's subcategory list; VARIATION asks to rephrase
// the parent in a tone drawn from a list, or to fill in blanks punched into it (each word blanked
// with a probability) at the parent's length. Only public things go into a prompt: label values,
// public keyword lists, and candidate texts (themselves made from public data and released
// selections). Every draw comes from the text's own random stream, so the prompt of text i is the
// same at any rank count.
//
// A prompt file is JSON (see jobs/prompts/yelp.json). Templates name placeholders in braces:
// {labels} (all label values), {COLUMN} (one label column's value, e.g. {label1}), {keyword};
// variations also {text} (the parent, or its blanked form), {tone} and {length} (its words).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "io/dataset.hpp"

namespace secpe {

enum class VariationPrompt { kRephrase, kFill };

// What the prompts of a label tell a model about it: its label values and its keywords.
struct PromptWords {
  std::vector<std::string> values, keywords;
};

class PromptTemplates {
 public:
  // Generic prompts for any labels: no keywords, rephrasing in a few tones.
  static PromptTemplates builtin(const LabelSet& labels);
  // InputError naming the file and the field for a bad file, an unknown placeholder or a
  // keyword list that cannot be read. Keyword files are read relative to the prompt file's
  // folder, or to its "keywords.dir" when given (itself relative to the prompt file).
  static PromptTemplates load(const std::filesystem::path& file, const LabelSet& labels);

  std::string random_prompt(std::size_t label, CounterRng& rng) const;
  std::string variation_prompt(std::size_t label, const std::string& parent, CounterRng& rng) const;
  const std::string& system() const { return system_; }
  std::string describe() const;
  const std::string& source() const { return source_; }
  PromptWords words(std::size_t label) const;

 private:
  std::string source_;
  std::string system_;
  std::string random_;
  std::string rephrase_, fill_;
  VariationPrompt mode_ = VariationPrompt::kRephrase;
  std::vector<std::string> tones_;
  double blank_probability_ = 0.5;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> values_;    // [label][column]
  std::vector<std::vector<std::string>> keywords_;  // [label]: empty when the label has none

  std::string render(const std::string& tmpl, std::size_t label, const std::vector<std::pair<std::string, std::string>>& extra) const;
};

// `text` with each whitespace-separated word replaced by "_" with probability p (runs of blanks
// merge into one), at least one blank when there are words: the fill-in-the-blanks input.
std::string blank_words(const std::string& text, double p, CounterRng& rng);

}  // namespace secpe
