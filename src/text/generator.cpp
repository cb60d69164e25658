#include "text/generator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "text/flat_map.hpp"
#include "text/function_words.hpp"
#include "text/generator_training.hpp"
#include "text/scan.hpp"
#include "text/tokenizer.hpp"

namespace secpe {

namespace {

constexpr std::int32_t kBos = 0;
constexpr std::int32_t kEos = 1;
constexpr std::int32_t kUnk = 2;
constexpr std::int32_t kFirstWord = 3;
constexpr std::uint32_t kNone = 0xffffffffu;
constexpr double kTrigramWeight = 0.97;  // P = 0.97 P3 + 0.03 P2 where the trigram context was seen
constexpr double kBigramWeight = 0.97;   // P = 0.97 P2 + 0.03 P1 where only the bigram context was seen
constexpr int kRephraseTries = 4;        // sentences drawn per parent sentence by rephrase, the closest in length kept
constexpr double kTopicSmoothing = 100;  // Dirichlet prior (in tokens, from the all-label model) of a topic's unigram

bool is_sentence_end(std::string_view t) { return t == "." || t == "!" || t == "?"; }

bool is_word_token(std::string_view t) {
  bool word = false;
  text_detail::scan_tokens(t, [&](std::string_view, bool w) { word = word || w; });
  return word;
}

}  // namespace

// One n-gram model: next-token distributions for trigram contexts (a, b), bigram contexts (b) and
// the unigram, stored as ranges of (token, cumulative count) sorted by token.
struct NgramGenerator::Model {
  // Member types, not anonymous-namespace ones: the model's fields use them, and GCC warns
  // (-Wsubobject-linkage) when a unity build compiles this file outside its main file.
  struct TriKey {
    std::uint32_t a, b, c;
    bool operator==(const TriKey&) const = default;
  };
  struct TriHash {
    std::size_t operator()(const TriKey& k) const {
      return static_cast<std::size_t>(
          text_detail::mix64((std::uint64_t{k.a} << 32 | k.b) ^ text_detail::mix64(k.c + 0x9e3779b97f4a7c15ull)));
    }
  };
  struct U64Hash {
    std::size_t operator()(std::uint64_t k) const { return static_cast<std::size_t>(text_detail::mix64(k)); }
  };

  FlatMap<std::uint64_t, std::uint32_t, U64Hash> tri;  // (a << 32 | b) -> range
  FlatMap<std::uint64_t, std::uint32_t, U64Hash> bi;   // b -> range
  std::uint32_t uni = kNone;
  std::vector<std::uint32_t> range_start{0};
  std::vector<std::int32_t> tokens;
  std::vector<std::uint64_t> cumulative;
  std::vector<std::uint32_t> lengths;  // words per training text
  std::size_t texts = 0;

  // Counting state, dropped after finish().
  FlatMap<TriKey, std::uint64_t, TriHash> tri_counts;
  FlatMap<std::uint64_t, std::uint64_t, U64Hash> bi_counts;  // b << 32 | c
  std::vector<std::uint64_t> uni_counts;                      // by token id

  void count_sentence(const std::vector<std::int32_t>& s) {  // s = words, without BOS/EOS
    std::uint32_t a = kBos, b = kBos;
    for (std::size_t i = 0; i <= s.size(); ++i) {
      const auto c = static_cast<std::uint32_t>(i < s.size() ? s[i] : kEos);
      ++tri_counts[{a, b, c}];
      ++bi_counts[std::uint64_t{b} << 32 | c];
      if (c >= uni_counts.size()) uni_counts.resize(c + 1, 0);
      ++uni_counts[c];
      a = b;
      b = c;
    }
  }

  std::uint32_t add_range(const std::vector<std::pair<std::int32_t, std::uint64_t>>& dist) {
    std::uint64_t total = 0;
    for (const auto& [t, c] : dist) {
      total += c;
      tokens.push_back(t);
      cumulative.push_back(total);
    }
    range_start.push_back(static_cast<std::uint32_t>(tokens.size()));
    return static_cast<std::uint32_t>(range_start.size() - 2);
  }

  void finish() {
    {
      std::vector<std::pair<TriKey, std::uint64_t>> v;
      v.reserve(tri_counts.size());
      tri_counts.for_each([&](const TriKey& k, std::uint64_t n) { v.emplace_back(k, n); });
      tri_counts = {};
      std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) {
        return std::tie(x.first.a, x.first.b, x.first.c) < std::tie(y.first.a, y.first.b, y.first.c);
      });
      std::vector<std::pair<std::int32_t, std::uint64_t>> dist;
      for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        dist.clear();
        while (j < v.size() && v[j].first.a == v[i].first.a && v[j].first.b == v[i].first.b) {
          dist.emplace_back(static_cast<std::int32_t>(v[j].first.c), v[j].second);
          ++j;
        }
        tri[std::uint64_t{v[i].first.a} << 32 | v[i].first.b] = add_range(dist);
        i = j;
      }
    }
    {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
      v.reserve(bi_counts.size());
      bi_counts.for_each([&](std::uint64_t k, std::uint64_t n) { v.emplace_back(k, n); });
      bi_counts = {};
      std::sort(v.begin(), v.end());
      std::vector<std::pair<std::int32_t, std::uint64_t>> dist;
      for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        dist.clear();
        while (j < v.size() && (v[j].first >> 32) == (v[i].first >> 32)) {
          dist.emplace_back(static_cast<std::int32_t>(v[j].first & 0xffffffffu), v[j].second);
          ++j;
        }
        bi[v[i].first >> 32] = add_range(dist);
        i = j;
      }
    }
    {
      std::vector<std::pair<std::int32_t, std::uint64_t>> v;  // by token, as ids ascend
      for (std::size_t t = 0; t < uni_counts.size(); ++t)
        if (uni_counts[t] > 0) v.emplace_back(static_cast<std::int32_t>(t), uni_counts[t]);
      uni_counts = {};
      if (!v.empty()) uni = add_range(v);
    }
  }

  std::int32_t sample(std::uint32_t range, CounterRng& rng) const {
    const auto begin = cumulative.begin() + range_start[range];
    const auto end = cumulative.begin() + range_start[range + 1];
    const std::uint64_t r = rng.below(*(end - 1));
    const auto it = std::upper_bound(begin, end, r);
    return tokens[static_cast<std::size_t>(it - cumulative.begin())];
  }

  std::uint32_t find_tri(std::int32_t a, std::int32_t b) const {
    const std::uint32_t* range = tri.find(std::uint64_t(static_cast<std::uint32_t>(a)) << 32 | static_cast<std::uint32_t>(b));
    return range ? *range : kNone;
  }
  // Unigram counts (token 0 when unseen) and their total, for topic inference.
  std::uint64_t unigram_count(std::int32_t token) const {
    if (uni == kNone) return 0;
    const auto begin = tokens.begin() + range_start[uni], end = tokens.begin() + range_start[uni + 1];
    const auto it = std::lower_bound(begin, end, token);
    if (it == end || *it != token) return 0;
    const auto i = static_cast<std::size_t>(it - tokens.begin());
    return cumulative[i] - (i > range_start[uni] ? cumulative[i - 1] : 0);
  }
  std::uint64_t unigram_total() const { return uni == kNone ? 0 : cumulative[range_start[uni + 1] - 1]; }
  std::uint32_t find_bi(std::int32_t b) const {
    const std::uint32_t* range = bi.find(static_cast<std::uint32_t>(b));
    return range ? *range : kNone;
  }
};

struct NgramGenerator::Vocab {
  std::vector<std::string> words;
  std::unordered_map<std::string, std::int32_t> ids;
  std::int32_t id_or_add(const std::string& w) {
    auto [it, inserted] = ids.emplace(w, static_cast<std::int32_t>(words.size()));
    if (inserted) words.push_back(w);
    return it->second;
  }
};

namespace {

// Splits a token sequence into sentences (runs ending with '.', '!' or '?', repeated marks kept together).
template <class F>
void for_each_sentence(const std::vector<std::string>& toks, F&& f) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (is_sentence_end(toks[i]) && (i + 1 == toks.size() || !is_sentence_end(toks[i + 1]))) {
      f(start, i + 1);
      start = i + 1;
    }
  }
  if (start < toks.size()) f(start, toks.size());
}

}  // namespace

NgramGenerator::NgramGenerator(const std::vector<std::vector<std::string>>& texts_per_label, std::string source,
                               const NgramGeneratorOptions& options)
    : NgramGenerator(per_label_training(texts_per_label, std::move(source)), options) {}

NgramGenerator::NgramGenerator(const GeneratorTraining& training, const NgramGeneratorOptions& options)
    : source_(training.source), labels_(training.labels), options_(options) {
  if (options_.max_words <= 0) throw InputError("generator: max_words must be positive");
  if (!(options_.blank_fraction > 0.0 && options_.blank_fraction <= 1.0))
    throw InputError("generator: blank_fraction must be in (0, 1]");
  if (!(options_.label_weight >= 0.0 && options_.label_weight <= 1.0))
    throw InputError("generator: label_weight must be in [0, 1]");
  layout_ = std::any_of(training.texts.begin(), training.texts.end(), [](const std::string& t) { return t.find('\n') != std::string::npos; });
  // One model per distinct list of label texts (labels steered by the same prompt share theirs),
  // and the texts each model learns from besides the all-label model.
  std::map<std::vector<std::size_t>, std::size_t> distinct;
  std::vector<std::vector<std::size_t>> member(training.texts.size());
  label_model_.assign(training.label_texts.size(), 0);
  std::vector<bool> has_model(training.label_texts.size(), false);
  for (std::size_t l = 0; l < training.label_texts.size(); ++l) {
    const auto& list = training.label_texts[l];
    if (list.empty()) continue;
    const auto [it, inserted] = distinct.emplace(list, distinct.size());
    label_model_[l] = it->second;
    has_model[l] = true;
    if (!inserted) continue;
    for (const std::size_t i : list) {
      if (i >= training.texts.size()) throw std::out_of_range("generator: a label's training text is out of range");
      member[i].push_back(it->second);
    }
  }
  for (const auto& list : training.topic_texts) {
    if (list.empty()) continue;
    const auto [it, inserted] = distinct.emplace(list, distinct.size());
    topic_model_.push_back(it->second);
    if (!inserted) continue;
    for (const std::size_t i : list) {
      if (i >= training.texts.size()) throw std::out_of_range("generator: a topic's training text is out of range");
      member[i].push_back(it->second);
    }
  }
  const bool rephrase = options_.variation == VariationMode::kRephrase;
  for (std::size_t m = 0; m <= distinct.size(); ++m) {
    models_.push_back(std::make_unique<Model>());
    if (rephrase) backward_.push_back(std::make_unique<Model>());
  }
  for (std::size_t l = 0; l < label_model_.size(); ++l)
    if (!has_model[l]) label_model_[l] = distinct.size();  // the all-label model: no model of its own
  vocab_ = std::make_unique<Vocab>();
  Vocab& vocab = *vocab_;
  vocab.words = {"<s>", "</s>", "<unk>"};
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < training.texts.size(); ++i) {
    const auto toks = tokens_of(training.texts[i]);
    std::uint32_t words = 0;
    for (const auto& t : toks) words += is_word_token(t) ? 1 : 0;
    if (words == 0) continue;
    member[i].push_back(distinct.size());
    for_each_sentence(toks, [&](std::size_t b, std::size_t e) {
      ids.clear();
      for (std::size_t k = b; k < e; ++k) ids.push_back(vocab.id_or_add(toks[k]));
      for (const std::size_t m : member[i]) models_[m]->count_sentence(ids);
      if (!rephrase) return;
      std::reverse(ids.begin(), ids.end());
      for (const std::size_t m : member[i]) backward_[m]->count_sentence(ids);
    });
    for (const std::size_t m : member[i]) {
      models_[m]->lengths.push_back(words);
      ++models_[m]->texts;
      if (rephrase) ++backward_[m]->texts;
    }
  }
  training_texts_ = models_.back()->texts;
  if (training_texts_ == 0) throw InputError("generator: no public training text");
  for (auto& m : models_) m->finish();
  for (auto& m : backward_) m->finish();
  word_token_.resize(vocab.words.size());
  content_token_.resize(vocab.words.size());
  for (std::size_t i = kFirstWord; i < vocab.words.size(); ++i) {
    word_token_[i] = is_word_token(vocab.words[i]);
    content_token_[i] = word_token_[i] && !is_function_word(vocab.words[i]);
  }
  set_topic_evidence();
}

// Each content word's evidence for each topic, ln((c_t(w) + s p(w)) / (n_t + s)), once per word
// rather than once per word of every parent text topic_of reads: the same expression, so the same
// bits. Vocabulary x topics doubles (4 MB at 10,000 words and 50 topics).
void NgramGenerator::set_topic_evidence() {
  if (topic_model_.empty()) return;
  const Model& all = *models_.back();
  const double all_total = static_cast<double>(all.unigram_total());
  const std::size_t topics = topic_model_.size();
  topic_evidence_.assign(content_token_.size() * topics, 0.0);
  for (std::size_t w = kFirstWord; w < content_token_.size(); ++w) {
    if (!content_token_[w]) continue;
    const auto token = static_cast<std::int32_t>(w);
    const double p = static_cast<double>(all.unigram_count(token)) / all_total;
    for (std::size_t k = 0; k < topics; ++k) {
      const Model& m = *models_[topic_model_[k]];
      topic_evidence_[w * topics + k] = std::log((static_cast<double>(m.unigram_count(token)) + kTopicSmoothing * p) /
                                                 (static_cast<double>(m.unigram_total()) + kTopicSmoothing));
    }
  }
}

std::vector<std::string> Generator::generate(std::vector<GenerationTask>& tasks) const {
  std::vector<std::string> out;
  out.reserve(tasks.size());
  for (auto& t : tasks) out.push_back(t.parent ? vary(t.label, *t.parent, t.rng) : random_text(t.label, t.rng));
  return out;
}

NgramGenerator::~NgramGenerator() = default;

std::string NgramGenerator::describe() const {
  return "ngram(order 3, variation by " + variation_mode_name(options_.variation) + ", labels " + labels_ + (layout_ ? ", layout kept" : "") +
         ") trained on " + std::to_string(training_texts_) + " public texts from " + source_;
}

std::vector<std::string> NgramGenerator::tokens_of(std::string_view text) const { return layout_ ? tokenize_layout(text) : tokenize(text); }

std::pair<const NgramGenerator::Model*, const NgramGenerator::Model*> NgramGenerator::models_of(std::size_t label, bool backward) const {
  if (label >= label_model_.size()) throw std::out_of_range("generator: label out of range");
  const auto& set = backward ? backward_ : models_;
  const std::size_t k = label_model_[label];
  const Model* own = k + 1 < set.size() && set[k]->texts > 0 ? set[k].get() : nullptr;
  return {own, set.back().get()};
}

std::int32_t NgramGenerator::next_token(std::pair<const Model*, const Model*> models, std::int32_t a, std::int32_t b,
                                        CounterRng& rng) const {
  const auto [label, all] = models;
  const Model* first = (label != nullptr && rng.uniform() < options_.label_weight) ? label : all;
  for (const Model* m : {first, all}) {
    const std::uint32_t t = m->find_tri(a, b);
    const std::uint32_t bi = m->find_bi(b);
    if (t != kNone) return (bi == kNone || rng.uniform() < kTrigramWeight) ? m->sample(t, rng) : m->sample(bi, rng);
    if (bi != kNone) return (rng.uniform() < kBigramWeight || m->uni == kNone) ? m->sample(bi, rng) : m->sample(m->uni, rng);
    if (m == all) break;
  }
  return all->sample(all->uni, rng);
}

bool NgramGenerator::ends_sentence(std::int32_t t) const {
  return t >= kFirstWord && is_sentence_end(vocab_->words[static_cast<std::size_t>(t)]);
}

std::vector<std::int32_t> NgramGenerator::continue_sentence(std::pair<const Model*, const Model*> models, std::int32_t a,
                                                            std::int32_t b, CounterRng& rng, int cap) const {
  std::vector<std::int32_t> s;
  while (static_cast<int>(s.size()) < cap) {
    const std::int32_t c = next_token(models, a, b, rng);
    if (c == kEos || c == kBos) break;
    s.push_back(c);
    a = b;
    b = c;
  }
  return s;
}

// One sentence from (BOS, BOS), without BOS/EOS, ended with '.' when the model ended it without a mark.
std::vector<std::int32_t> NgramGenerator::sample_sentence(const Model* label, CounterRng& rng, int& words) const {
  std::vector<std::int32_t> s = continue_sentence({label, models_.back().get()}, kBos, kBos, rng, 2 * options_.max_words + 8);
  words = 0;
  for (const std::int32_t t : s) words += word_token_[static_cast<std::size_t>(t)] ? 1 : 0;
  if (!s.empty() && !ends_sentence(s.back())) s.push_back(period_id());
  return s;
}

std::int32_t NgramGenerator::period_id() const {
  const auto it = vocab_->ids.find(".");
  return it == vocab_->ids.end() ? kUnk : it->second;
}

std::string NgramGenerator::render(const std::vector<std::int32_t>& ids) const {
  std::vector<std::string> toks;
  toks.reserve(ids.size());
  for (std::int32_t t : ids) toks.push_back(t == kUnk ? std::string(".") : vocab_->words[static_cast<std::size_t>(t)]);
  return detokenize(toks, layout_);
}

// Truncates tokens to at most max_words words, preferring to stop at a sentence end.
void NgramGenerator::cap_words(std::vector<std::string>& toks) const {
  int words = 0;
  std::size_t cut = toks.size();
  std::size_t last_end = 0;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (is_word_token(toks[i])) {
      if (words == options_.max_words) {
        cut = i;
        break;
      }
      ++words;
    } else if (is_sentence_end(toks[i])) {
      last_end = i + 1;
    }
  }
  if (cut == toks.size()) return;
  if (last_end * 2 >= cut) {
    toks.resize(last_end);
  } else {
    toks.resize(cut);
    while (!toks.empty() && !is_word_token(toks.back())) toks.pop_back();
    toks.push_back(".");
  }
}

std::string NgramGenerator::random_text(std::size_t label, CounterRng& rng) const {
  const Model* lm = label_model(label);
  return random_from(topic_model_.empty() ? lm : draw_topic(rng), rng);
}

const NgramGenerator::Model* NgramGenerator::draw_topic(CounterRng& rng) const {
  std::uint64_t total = 0;
  for (const std::size_t m : topic_model_) total += models_[m]->texts;
  std::uint64_t r = rng.below(total);
  for (const std::size_t m : topic_model_) {
    if (r < models_[m]->texts) return models_[m].get();
    r -= models_[m]->texts;
  }
  return models_[topic_model_.back()].get();
}

// argmax_t ln(texts_t) + sum over the content tokens w of ln((c_t(w) + s p(w)) / (n_t + s)), with
// p the all-label model's unigram and s = kTopicSmoothing; the first of equal scores.
const NgramGenerator::Model* NgramGenerator::topic_of(const std::vector<std::string>& toks) const {
  const std::size_t topics = topic_model_.size();
  std::vector<double> score;
  for (const std::size_t m : topic_model_) score.push_back(std::log(static_cast<double>(models_[m]->texts)));
  for (const auto& t : toks) {
    const auto it = vocab_->ids.find(t);
    if (it == vocab_->ids.end() || !content_token_[static_cast<std::size_t>(it->second)]) continue;
    const double* evidence = topic_evidence_.data() + static_cast<std::size_t>(it->second) * topics;  // set_topic_evidence
    for (std::size_t k = 0; k < topics; ++k) score[k] += evidence[k];
  }
  return models_[topic_model_[static_cast<std::size_t>(std::max_element(score.begin(), score.end()) - score.begin())]].get();
}

std::string NgramGenerator::random_from(const Model* lm, CounterRng& rng) const {
  const Model* all = models_.back().get();
  const auto& lengths = (lm ? lm : all)->lengths;
  const int target = std::clamp(static_cast<int>(lengths[rng.below(lengths.size())]), 1, options_.max_words);
  for (const Model* m : {lm, static_cast<const Model*>(nullptr)}) {
    std::vector<std::int32_t> out;
    int words = 0, failures = 0;
    while (words < target && failures < 8) {
      int w = 0;
      auto s = sample_sentence(m, rng, w);
      if (w == 0) {
        ++failures;
        continue;
      }
      if (words + w > options_.max_words) {
        if (words > 0) {
          ++failures;
          continue;
        }
        std::vector<std::string> toks;
        for (std::int32_t t : s) toks.push_back(vocab_->words[static_cast<std::size_t>(t)]);
        cap_words(toks);
        return detokenize(toks, layout_);
      }
      out.insert(out.end(), s.begin(), s.end());
      words += w;
    }
    if (words > 0) return render(out);
  }
  // Only reached when sampling kept producing word-less sentences: the most frequent word.
  std::int32_t best = -1;
  std::uint64_t best_count = 0;
  for (std::uint32_t i = all->range_start[all->uni]; i < all->range_start[all->uni + 1]; ++i) {
    const std::uint64_t c = all->cumulative[i] - (i > all->range_start[all->uni] ? all->cumulative[i - 1] : 0);
    if (all->tokens[i] >= kFirstWord && word_token_[static_cast<std::size_t>(all->tokens[i])] && c > best_count) {
      best = all->tokens[i];
      best_count = c;
    }
  }
  return vocab_->words[static_cast<std::size_t>(best)] + ".";
}

std::string NgramGenerator::vary(std::size_t label, const std::string& parent, CounterRng& rng) const {
  const Model* lm = label_model(label);
  if (options_.variation == VariationMode::kResample && topic_model_.empty()) return random_from(lm, rng);
  const auto toks = tokens_of(parent);
  if (!topic_model_.empty()) lm = topic_of(toks);  // the parent's topic: the variation stays on its subject
  if (options_.variation == VariationMode::kResample) return random_from(lm, rng);
  bool any_word = false;
  for (const auto& t : toks) any_word = any_word || is_word_token(t);
  if (!any_word) return random_from(lm, rng);
  switch (options_.variation) {
    case VariationMode::kSentences: return vary_sentences(lm, toks, rng);
    case VariationMode::kRephrase: return vary_rephrase(label, toks, rng);
    default: return vary_span(lm, toks, rng);
  }
}

std::vector<std::int32_t> NgramGenerator::sentence_through(std::size_t label, std::int32_t anchor, CounterRng& rng) const {
  const int cap = options_.max_words + 8;
  // Rightwards from the anchor, whose left context is not known yet (the bigram context), then
  // leftwards from the anchor and the token after it with the right-to-left models.
  const std::vector<std::int32_t> right = continue_sentence(models_of(label), kUnk, anchor, rng, cap);
  const std::vector<std::int32_t> left = continue_sentence(models_of(label, true), right.empty() ? kBos : right.front(), anchor, rng, cap);
  std::vector<std::int32_t> s(left.rbegin(), left.rend());
  s.push_back(anchor);
  s.insert(s.end(), right.begin(), right.end());
  if (!ends_sentence(s.back())) s.push_back(period_id());
  return s;
}

// Each sentence of the parent becomes a new sentence through one of its content words (drawn
// uniformly among them), or a fresh one where it has none. Of up to kRephraseTries draws, the one
// closest to the parent sentence's length that fits in the words left is kept (the first within 2
// words ends the search), so that a population neither drifts towards short texts over the
// iterations nor loses its last sentences to the length cap.
std::string NgramGenerator::vary_rephrase(std::size_t label, const std::vector<std::string>& toks, CounterRng& rng) const {
  std::vector<std::string> out;
  std::vector<std::int32_t> anchors;
  int used = 0;  // words so far
  for_each_sentence(toks, [&](std::size_t b, std::size_t e) {
    const int left = options_.max_words - used;
    if (left <= 0) return;
    anchors.clear();
    int want = 0;
    for (std::size_t i = b; i < e; ++i) {
      want += is_word_token(toks[i]) ? 1 : 0;
      const auto it = vocab_->ids.find(toks[i]);
      if (it != vocab_->ids.end() && content_token_[static_cast<std::size_t>(it->second)]) anchors.push_back(it->second);
    }
    want = std::min(want, left);
    std::vector<std::int32_t> best;
    int best_gap = std::numeric_limits<int>::max(), best_words = 0;
    for (int attempt = 0; attempt < kRephraseTries && best_gap > 2; ++attempt) {
      int words = 0;
      std::vector<std::int32_t> s = anchors.empty() ? sample_sentence(label_model(label), rng, words)
                                                    : sentence_through(label, anchors[rng.below(anchors.size())], rng);
      if (!anchors.empty()) {
        for (const std::int32_t t : s) words += word_token_[static_cast<std::size_t>(t)] ? 1 : 0;
      }
      const int gap = std::abs(words - want) + (words > left ? options_.max_words : 0);
      if (gap < best_gap) {
        best_gap = gap;
        best_words = words;
        best = std::move(s);
      }
    }
    used += best_words;
    for (const std::int32_t t : best) out.push_back(t == kUnk ? std::string(".") : vocab_->words[static_cast<std::size_t>(t)]);
  });
  cap_words(out);
  bool has_word = false;
  for (const auto& t : out) has_word = has_word || is_word_token(t);
  return has_word ? detokenize(out, layout_) : random_text(label, rng);
}

std::string NgramGenerator::vary_sentences(const Model* lm, const std::vector<std::string>& toks, CounterRng& rng) const {
  std::vector<std::pair<std::size_t, std::size_t>> sentences;
  for_each_sentence(toks, [&](std::size_t b, std::size_t e) { sentences.emplace_back(b, e); });
  // Each sentence is re-sampled with probability blank_fraction; one drawn uniformly is re-sampled
  // in any case, so that a variation always differs from its parent.
  const std::size_t forced = rng.below(sentences.size());
  std::vector<std::string> out;
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    const bool replace = s == forced || rng.uniform() < options_.blank_fraction;
    if (!replace) {
      out.insert(out.end(), toks.begin() + static_cast<std::ptrdiff_t>(sentences[s].first),
                 toks.begin() + static_cast<std::ptrdiff_t>(sentences[s].second));
      continue;
    }
    int words = 0;
    std::vector<std::int32_t> fresh;
    for (int attempt = 0; attempt < 8 && words == 0; ++attempt) fresh = sample_sentence(lm, rng, words);
    for (const std::int32_t t : fresh) out.push_back(t == kUnk ? std::string(".") : vocab_->words[static_cast<std::size_t>(t)]);
  }
  cap_words(out);
  return detokenize(out, layout_);
}

std::string NgramGenerator::vary_span(const Model* lm, const std::vector<std::string>& toks, CounterRng& rng) const {
  const std::size_t n = toks.size();
  const double jitter = 0.75 + 0.5 * rng.uniform();
  const auto span = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::llround(options_.blank_fraction * static_cast<double>(n) * jitter)), 1, n);
  const std::size_t start = rng.below(n - span + 1);
  const std::size_t resume = start + span;
  const long target = std::max<long>(1, static_cast<long>(span) + static_cast<long>(rng.below(5)) - 2);

  const auto& ids = vocab_->ids;
  auto id_of = [&](const std::string& t) {
    const auto it = ids.find(t);
    return it == ids.end() ? kUnk : it->second;
  };
  std::int32_t a = kBos, b = kBos;
  if (start >= 1) b = id_of(toks[start - 1]);
  if (start >= 2) a = id_of(toks[start - 2]);
  if (start >= 1 && is_sentence_end(toks[start - 1])) a = b = kBos;
  const std::string* next_kept = resume < n ? &toks[resume] : nullptr;
  const std::int32_t next_kept_id = next_kept ? id_of(*next_kept) : -1;
  const bool next_starts_sentence =
      next_kept && !next_kept->empty() && text_detail::is_upper_ascii((*next_kept)[0]);

  std::vector<std::string> out(toks.begin(), toks.begin() + static_cast<std::ptrdiff_t>(start));
  // Words the new span may use so that prefix + span + suffix stays within max_words.
  long kept_words = 0;
  for (std::size_t i = 0; i < n; ++i)
    if ((i < start || i >= resume) && is_word_token(toks[i])) ++kept_words;
  const long budget = std::max<long>(1, options_.max_words - kept_words);
  long made = 0, made_words = 0;
  const long hard_cap = target + (next_kept ? 4 : 8);
  while (made < hard_cap && made_words < budget) {
    const std::int32_t c = next_token({lm, models_.back().get()}, a, b, rng);
    if (c == kEos || c == kBos) {
      if (made >= target - 2 && (next_kept == nullptr || next_starts_sentence)) break;
      if (!out.empty() && !is_sentence_end(out.back())) out.push_back(".");
      a = b = kBos;
      continue;
    }
    if (made >= target - 2 && c == next_kept_id) break;  // joins the kept text naturally
    out.push_back(vocab_->words[static_cast<std::size_t>(c)]);
    ++made;
    if (word_token_[static_cast<std::size_t>(c)]) ++made_words;
    a = b;
    b = c;
    if (made >= target && (next_kept == nullptr ? ends_sentence(c) : !next_starts_sentence || ends_sentence(c)))
      break;
  }
  if (next_kept == nullptr && !out.empty() && !is_sentence_end(out.back()) && is_sentence_end(toks.back()))
    out.push_back(".");
  if (next_kept != nullptr && next_starts_sentence && !out.empty() && !is_sentence_end(out.back()) &&
      is_word_token(out.back()))
    out.push_back(".");
  out.insert(out.end(), toks.begin() + static_cast<std::ptrdiff_t>(resume), toks.end());
  cap_words(out);
  bool has_word = false;
  for (const auto& t : out) has_word = has_word || is_word_token(t);
  if (!has_word) return vary_sentences(lm, toks, rng);
  return detokenize(out, layout_);
}

}  // namespace secpe
