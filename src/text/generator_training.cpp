#include "text/generator_training.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.hpp"
#include "text/function_words.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool has_letter(const std::string& word) {
  return std::any_of(word.begin(), word.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

// The distinct content stems of `text`, sorted.
std::vector<std::string> content_stems(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& w : words_lower(text))
    if (has_letter(w) && !is_function_word(w)) out.push_back(stem_word(w));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Every text once, label after label.
std::vector<std::string> flatten(const std::vector<std::vector<std::string>>& texts_per_label) {
  std::vector<std::string> all;
  for (const auto& texts : texts_per_label) all.insert(all.end(), texts.begin(), texts.end());
  return all;
}

}  // namespace

std::string generator_labels_name(GeneratorLabels labels) {
  switch (labels) {
    case GeneratorLabels::kPooled: return "pooled";
    case GeneratorLabels::kPrompt: return "prompt";
    case GeneratorLabels::kPerLabel: break;
  }
  return "per-label";
}

GeneratorLabels parse_generator_labels(const std::string& name) {
  if (name == "per-label") return GeneratorLabels::kPerLabel;
  if (name == "pooled") return GeneratorLabels::kPooled;
  if (name == "prompt") return GeneratorLabels::kPrompt;
  throw InputError("must be per-label, pooled or prompt, not '" + name + "'");
}

std::string stem_word(const std::string& word) {
  std::string w;
  for (const char c : word) w += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (ends_with(w, "'s")) w.resize(w.size() - 2);
  if (ends_with(w, "ies") && w.size() > 4) return w.substr(0, w.size() - 3) + "y";
  if (ends_with(w, "es") && (ends_with(w, "ses") || ends_with(w, "xes") || ends_with(w, "ches") || ends_with(w, "shes")))
    return w.substr(0, w.size() - 2);
  if (ends_with(w, "s") && !ends_with(w, "ss") && w.size() > 3) return w.substr(0, w.size() - 1);
  return w;
}

GeneratorTraining per_label_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source) {
  GeneratorTraining t{.texts = flatten(texts_per_label), .label_texts = {}, .source = std::move(source), .labels = "per-label"};
  std::size_t next = 0;
  for (const auto& texts : texts_per_label) {
    t.label_texts.emplace_back();
    for (std::size_t k = 0; k < texts.size(); ++k) t.label_texts.back().push_back(next++);
  }
  return t;
}

GeneratorTraining pooled_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source) {
  return {.texts = flatten(texts_per_label),
          .label_texts = std::vector<std::vector<std::size_t>>(texts_per_label.size()),
          .source = std::move(source),
          .labels = "pooled (one model, no labels)"};
}

std::vector<int> prompt_matches(const std::vector<std::string>& texts, const std::vector<std::vector<std::string>>& prompts,
                                std::vector<std::size_t>& distinct) {
  std::map<std::vector<std::string>, std::size_t> index;
  std::vector<const std::vector<std::string>*> phrases;  // per distinct prompt
  distinct.clear();
  for (const auto& p : prompts) {
    const auto [it, inserted] = index.emplace(p, phrases.size());
    if (inserted) phrases.push_back(&p);
    distinct.push_back(it->second);
  }
  // Per distinct prompt, the share of its phrases holding each stem; then the weights.
  std::vector<std::map<std::string, double>> share(phrases.size());
  std::map<std::string, std::size_t> prompts_holding;
  for (std::size_t p = 0; p < phrases.size(); ++p) {
    for (const auto& phrase : *phrases[p])
      for (const auto& s : content_stems(phrase)) share[p][s] += 1.0 / double(phrases[p]->size());
    for (const auto& [s, v] : share[p]) ++prompts_holding[s];
  }
  std::unordered_map<std::string, std::vector<std::pair<std::size_t, double>>> weights;  // stem -> (prompt, weight)
  for (std::size_t p = 0; p < phrases.size(); ++p)
    for (const auto& [s, v] : share[p]) weights[s].emplace_back(p, v * std::log(1.0 + double(phrases.size()) / double(prompts_holding[s])));
  std::vector<int> match(texts.size(), -1);
  std::vector<double> score(phrases.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::fill(score.begin(), score.end(), 0.0);
    for (const auto& s : content_stems(texts[i])) {
      const auto it = weights.find(s);
      if (it == weights.end()) continue;
      for (const auto& [p, w] : it->second) score[p] += w;
    }
    const auto best = std::max_element(score.begin(), score.end());  // the first of equal maxima
    if (best != score.end() && *best > 0) match[i] = static_cast<int>(best - score.begin());
  }
  return match;
}

GeneratorTraining prompt_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source,
                                  const std::vector<std::vector<std::string>>& prompts, const std::string& prompt_source) {
  if (prompts.size() != texts_per_label.size()) throw std::invalid_argument("prompt_training: one prompt per label");
  GeneratorTraining t = pooled_training(texts_per_label, std::move(source));
  std::vector<std::size_t> distinct;
  const std::vector<int> match = prompt_matches(t.texts, prompts, distinct);
  std::size_t matched = 0;
  for (std::size_t l = 0; l < prompts.size(); ++l) {
    for (std::size_t i = 0; i < t.texts.size(); ++i)
      if (match[i] == static_cast<int>(distinct[l])) t.label_texts[l].push_back(i);
  }
  for (const int m : match) matched += m >= 0 ? 1 : 0;
  t.labels = "prompt (no labels; steered by the label values and keywords of " + prompt_source + ", matching " + std::to_string(matched) +
             " of the texts)";
  return t;
}

GeneratorTraining generator_training(GeneratorLabels labels, const std::vector<std::vector<std::string>>& texts_per_label,
                                     std::string source, const PromptTemplates& prompts) {
  if (labels == GeneratorLabels::kPerLabel) return per_label_training(texts_per_label, std::move(source));
  if (labels == GeneratorLabels::kPooled) return pooled_training(texts_per_label, std::move(source));
  std::vector<std::vector<std::string>> phrases;
  for (std::size_t l = 0; l < texts_per_label.size(); ++l) phrases.push_back(prompts.phrases(l));
  return prompt_training(texts_per_label, std::move(source), phrases, prompts.source());
}

}  // namespace secpe
