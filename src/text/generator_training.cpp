#include "text/generator_training.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.hpp"
#include "text/function_words.hpp"
#include "text/latent_topics.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

constexpr double kPromptMargin = 1.5;  // a text goes to a prompt that scores at least this times any other

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
std::vector<std::string> all_texts(const std::vector<std::vector<std::string>>& texts_per_label) {
  std::vector<std::string> all;
  for (const auto& texts : texts_per_label) all.insert(all.end(), texts.begin(), texts.end());
  return all;
}

}  // namespace

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
  GeneratorTraining t{.texts = all_texts(texts_per_label), .label_texts = {}, .source = std::move(source), .labels = "per-label", .topic_texts = {}};
  std::size_t next = 0;
  for (const auto& texts : texts_per_label) {
    t.label_texts.emplace_back();
    for (std::size_t k = 0; k < texts.size(); ++k) t.label_texts.back().push_back(next++);
  }
  return t;
}

int auto_generator_topics(std::size_t training_texts) {
  const std::size_t topics = std::min<std::size_t>(kMaxAutoTopics, training_texts / kTextsPerAutoTopic);
  return topics < 2 ? 0 : static_cast<int>(topics);
}

GeneratorTraining pooled_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source, int topics) {
  GeneratorTraining t{.texts = all_texts(texts_per_label),
                      .label_texts = std::vector<std::vector<std::size_t>>(texts_per_label.size()),
                      .source = std::move(source),
                      .labels = "pooled (one model, no labels)",
                      .topic_texts = {}};
  if (topics > 0) {
    t.topic_texts = latent_topics(t.texts, topics);
    t.labels = "pooled (no labels; " + std::to_string(topics) + " latent topics of the texts)";
  }
  return t;
}

std::vector<int> prompt_matches(const std::vector<std::string>& texts, const std::vector<PromptWords>& prompts,
                                std::vector<std::size_t>& distinct) {
  // Each label's stems with their share of its prompt's weight; labels whose prompts give the same
  // stems (values without a letter, such as "5.0", give none) share one distinct prompt.
  std::map<std::map<std::string, double>, std::size_t> index;
  std::vector<std::map<std::string, double>> share;  // per distinct prompt
  distinct.clear();
  for (const auto& prompt : prompts) {
    std::map<std::string, double> stems;
    const double keyword_weight = prompt.keywords.empty() ? 0.0 : 0.5;
    for (const auto* list : {&prompt.values, &prompt.keywords}) {
      const double weight = list == &prompt.values ? 1.0 - keyword_weight : keyword_weight;
      for (const auto& phrase : *list)
        for (const auto& s : content_stems(phrase)) stems[s] += weight / double(list->size());
    }
    const auto [it, inserted] = index.emplace(stems, share.size());
    if (inserted) share.push_back(std::move(stems));
    distinct.push_back(it->second);
  }
  std::map<std::string, std::size_t> prompts_holding;
  for (const auto& stems : share)
    for (const auto& [s, v] : stems) ++prompts_holding[s];
  // The prompt stems each text holds (one pass), and how many texts hold each.
  std::unordered_map<std::string, std::size_t> stem_index;
  for (const auto& [stem, count] : prompts_holding) stem_index.emplace(stem, stem_index.size());
  std::vector<std::vector<std::size_t>> held(texts.size());
  std::vector<double> texts_holding(stem_index.size(), 0.0);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (const auto& stem : content_stems(texts[i])) {
      const auto it = stem_index.find(stem);
      if (it == stem_index.end()) continue;
      held[i].push_back(it->second);
      ++texts_holding[it->second];
    }
  }
  // weight[stem] = (prompt, share x ln(1 + prompts / prompts holding it) x ln(texts / texts holding it)).
  std::vector<std::vector<std::pair<std::size_t, double>>> weights(stem_index.size());
  const double n = double(texts.size());
  for (std::size_t p = 0; p < share.size(); ++p) {
    for (const auto& [stem, v] : share[p]) {
      const std::size_t k = stem_index.at(stem);
      const double idf = std::max(0.0, std::log(n / std::max(1.0, texts_holding[k])));
      const double rarity = idf * idf;
      weights[k].emplace_back(p, v * std::log(1.0 + double(share.size()) / double(prompts_holding[stem])) * rarity);
    }
  }
  std::vector<int> match(texts.size(), -1);
  std::vector<double> score(share.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::fill(score.begin(), score.end(), 0.0);
    for (const std::size_t k : held[i])
      for (const auto& [p, w] : weights[k]) score[p] += w;
    const auto best = std::max_element(score.begin(), score.end());  // the first of equal maxima
    double runner_up = 0;
    for (auto it = score.begin(); it != score.end(); ++it)
      if (it != best) runner_up = std::max(runner_up, *it);
    if (best != score.end() && *best > 0 && *best >= kPromptMargin * runner_up) match[i] = static_cast<int>(best - score.begin());
  }
  return match;
}

GeneratorTraining prompt_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source,
                                  const std::vector<PromptWords>& prompts, const std::string& prompt_source) {
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
                                     std::string source, const PromptTemplates& prompts, int topics) {
  if (topics < 0) throw InputError("generator topics must be 0 (none) or positive, not " + std::to_string(topics));
  if (topics > 0 && labels != GeneratorLabels::kPooled) throw InputError("latent generator topics apply to pooled generator labels only");
  if (labels == GeneratorLabels::kPerLabel) return per_label_training(texts_per_label, std::move(source));
  if (labels == GeneratorLabels::kPooled) return pooled_training(texts_per_label, std::move(source), topics);
  std::vector<PromptWords> words;
  for (std::size_t l = 0; l < texts_per_label.size(); ++l) words.push_back(prompts.words(l));
  return prompt_training(texts_per_label, std::move(source), words, prompts.source());
}

}  // namespace secpe
