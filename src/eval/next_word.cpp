#include "eval/next_word.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "text/ngrams.hpp"

namespace secpe {
namespace {

using Id = std::uint32_t;

std::uint64_t pair_key(Id u, Id v) { return (std::uint64_t{u} << 32) | v; }

// D = n1 / (n1 + 2 n2) of a level's counts, kept within [0.1, 0.9] so that every level keeps some
// mass for the one below and every word stays possible.
double discount(std::span<const std::uint32_t> counts) {
  double n1 = 0, n2 = 0;
  for (const std::uint32_t c : counts) {
    n1 += c == 1 ? 1 : 0;
    n2 += c == 2 ? 1 : 0;
  }
  return n1 + n2 > 0 ? std::clamp(n1 / (n1 + 2 * n2), 0.1, 0.9) : 0.5;
}

// A level above the unigrams: per context, its successors (sorted by word) with their counts.
struct Level {
  struct Context {
    double total = 0;                   // the successors' counts summed
    std::uint32_t begin = 0, end = 0;   // into successors / counts
  };
  std::unordered_map<std::uint64_t, Context> contexts;
  std::vector<Id> successors;
  std::vector<std::uint32_t> counts;
  double d = 0.5;

  // From (context, word) pairs sorted and distinct, with their counts.
  void build(const std::vector<std::pair<std::uint64_t, Id>>& pairs, std::vector<std::uint32_t> pair_counts) {
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      Context& c = contexts[pairs[i].first];
      if (c.end == 0) c.begin = c.end = static_cast<std::uint32_t>(successors.size());
      successors.push_back(pairs[i].second);
      c.total += pair_counts[i];
      ++c.end;
    }
    d = discount(pair_counts);
    counts = std::move(pair_counts);
  }
  const Context* find(std::uint64_t context) const {
    const auto it = contexts.find(context);
    return it == contexts.end() ? nullptr : &it->second;
  }
  // Interpolated with `lower` (the next level's probability of w).
  double probability(const Context& c, Id w, double lower) const {
    const auto first = successors.begin() + c.begin, last = successors.begin() + c.end;
    const auto at = std::lower_bound(first, last, w);
    const double count = at != last && *at == w ? counts[static_cast<std::size_t>(at - successors.begin())] : 0.0;
    return (std::max(count - d, 0.0) + d * (c.end - c.begin) * lower) / c.total;
  }
};

// Distinct sorted pairs with their multiplicities.
template <typename T>
std::pair<std::vector<T>, std::vector<std::uint32_t>> run_lengths(std::vector<T> items) {
  std::sort(items.begin(), items.end());
  std::vector<T> distinct;
  std::vector<std::uint32_t> counts;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0 && items[i] == items[i - 1]) ++counts.back();
    else {
      distinct.push_back(items[i]);
      counts.push_back(1);
    }
  }
  return {std::move(distinct), std::move(counts)};
}

class KneserNeyTrigram {
 public:
  explicit KneserNeyTrigram(std::span<const std::string> texts) {
    std::vector<std::vector<std::uint64_t>> words = words_of(texts);
    std::vector<std::uint64_t> keys;
    for (const auto& t : words) keys.insert(keys.end(), t.begin(), t.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys.empty()) throw InputError("next-word prediction: the synthetic texts hold no word");
    for (const std::uint64_t k : keys) id_of_.emplace(k, static_cast<Id>(id_of_.size()));
    vocabulary_ = keys.size();
    start_ = static_cast<Id>(vocabulary_);
    unknown_ = start_ + 1;
    std::vector<std::tuple<Id, Id, Id>> trigrams;
    for (const auto& t : words) {
      Id u = start_, v = start_;
      for (const std::uint64_t k : t) {
        const Id w = id_of_.at(k);
        trigrams.emplace_back(u, v, w);
        u = v;
        v = w;
      }
    }
    build_levels(std::move(trigrams));
    rank_unigrams();
  }

  Id id(std::uint64_t key) const {
    const auto it = id_of_.find(key);
    return it == id_of_.end() ? unknown_ : it->second;
  }
  Id start() const { return start_; }
  Id unknown() const { return unknown_; }
  std::size_t vocabulary() const { return vocabulary_; }

  double probability(Id u, Id v, Id w) const {
    const double lower = bigram(v, w);
    const Level::Context* c = trigram_.find(pair_key(u, v));
    return c ? trigram_.probability(*c, w, lower) : lower;
  }

  // The most probable vocabulary word after (u, v), ties to the smaller id. Words the context
  // (u, v) has not seen get gamma(u, v) times their bigram probability, so the best of them is the
  // bigram level's best word; likewise below. So the candidates are (u, v)'s successors and the
  // bigram level's best after v (best_after, cached), and the argmax over them is the argmax over
  // the vocabulary.
  Id predict(Id u, Id v) {
    Id best = best_after(v);
    double best_p = probability(u, v, best);
    if (const Level::Context* c = trigram_.find(pair_key(u, v))) {
      for (std::uint32_t i = c->begin; i < c->end; ++i) {
        const Id w = trigram_.successors[i];
        const double p = probability(u, v, w);
        if (p > best_p || (p == best_p && w < best)) {
          best = w;
          best_p = p;
        }
      }
    }
    return best;
  }
  // The reference: every vocabulary word's probability, the largest (ties to the smaller id).
  Id predict_by_scan(Id u, Id v) const {
    Id best = 0;
    double best_p = -1;
    for (Id w = 0; w < vocabulary_; ++w) {
      const double p = probability(u, v, w);
      if (p > best_p) {
        best = w;
        best_p = p;
      }
    }
    return best;
  }

 private:
  void build_levels(std::vector<std::tuple<Id, Id, Id>> tokens) {
    const auto [distinct, counts] = run_lengths(std::move(tokens));
    std::vector<std::pair<std::uint64_t, Id>> pairs;
    std::vector<std::pair<Id, Id>> continuations;  // (v, w) once per distinct left word u
    for (const auto& [u, v, w] : distinct) {
      pairs.emplace_back(pair_key(u, v), w);
      continuations.emplace_back(v, w);
    }
    trigram_.build(pairs, counts);
    const auto [bigrams, bigram_counts] = run_lengths(std::move(continuations));
    pairs.clear();
    unigram_counts_.assign(vocabulary_ + 2, 0);  // (v, w) once per distinct v: N1+(. w)
    for (const auto& [v, w] : bigrams) {
      pairs.emplace_back(v, w);
      ++unigram_counts_[w];
    }
    bigram_.build(pairs, bigram_counts);
    unigram_d_ = discount(std::span<const std::uint32_t>(unigram_counts_.data(), vocabulary_));
    unigram_total_ = static_cast<double>(bigrams.size());
  }

  double unigram(Id w) const {
    return (std::max(unigram_counts_[w] - unigram_d_, 0.0) + unigram_d_ * static_cast<double>(vocabulary_) / static_cast<double>(vocabulary_ + 1)) /
           unigram_total_;
  }
  double bigram(Id v, Id w) const {
    const Level::Context* c = bigram_.find(v);
    return c ? bigram_.probability(*c, w, unigram(w)) : unigram(w);
  }

  void rank_unigrams() {
    for (Id w = 0; w < vocabulary_; ++w) by_unigram_.push_back(w);
    std::stable_sort(by_unigram_.begin(), by_unigram_.end(), [&](Id a, Id b) { return unigram(a) > unigram(b); });
  }

  // The bigram level's most probable vocabulary word after v (ties to the smaller id): among v's
  // successors and the best unigram word that is not one (the others get gamma(v) P1, less).
  Id best_after(Id v) {
    if (const auto it = best_after_.find(v); it != best_after_.end()) return it->second;
    const Level::Context* c = bigram_.find(v);
    Id best = by_unigram_.front();
    if (c) {
      const auto first = bigram_.successors.begin() + c->begin, last = bigram_.successors.begin() + c->end;
      for (const Id w : by_unigram_) {
        if (!std::binary_search(first, last, w)) {
          best = w;
          break;
        }
      }
      double best_p = bigram(v, best);
      for (auto it = first; it != last; ++it) {
        const double p = bigram(v, *it);
        if (p > best_p || (p == best_p && *it < best)) {
          best = *it;
          best_p = p;
        }
      }
    }
    best_after_.emplace(v, best);
    return best;
  }

  std::unordered_map<std::uint64_t, Id> id_of_;
  std::size_t vocabulary_ = 0;
  Id start_ = 0, unknown_ = 0;
  Level trigram_, bigram_;
  std::vector<std::uint32_t> unigram_counts_;
  double unigram_d_ = 0.5, unigram_total_ = 1;
  std::vector<Id> by_unigram_;  // the vocabulary by unigram probability, largest first (ties by id)
  std::unordered_map<Id, Id> best_after_;
};

NextWordScores scores(std::span<const std::string> training, std::span<const std::string> held_out, bool by_scan) {
  KneserNeyTrigram model(training);
  const std::vector<std::vector<std::uint64_t>> words = words_of(held_out);
  // The unknown word's mass is shared by the held-out word types outside the vocabulary.
  std::unordered_set<std::uint64_t> unknown_types;
  for (const auto& t : words)
    for (const std::uint64_t k : t)
      if (model.id(k) == model.unknown()) unknown_types.insert(k);
  const double unknown_share = unknown_types.empty() ? 1.0 : static_cast<double>(unknown_types.size());
  NextWordScores s;
  s.texts = held_out.size();
  s.vocabulary = model.vocabulary();
  double loss = 0;
  for (const auto& t : words) {
    Id u = model.start(), v = model.start();
    for (const std::uint64_t k : t) {
      const Id w = model.id(k);
      ++s.words;
      if (w == model.unknown()) {
        ++s.out_of_vocabulary;
        loss -= std::log(model.probability(u, v, w) / unknown_share);
      } else {
        s.correct += (by_scan ? model.predict_by_scan(u, v) : model.predict(u, v)) == w ? 1 : 0;
        loss -= std::log(model.probability(u, v, w));
      }
      u = v;
      v = w;
    }
  }
  if (s.words > 0) {
    s.accuracy = static_cast<double>(s.correct) / static_cast<double>(s.words);
    s.loss = loss / static_cast<double>(s.words);
    s.perplexity = std::exp(s.loss);
  }
  return s;
}

}  // namespace

NextWordScores next_word_scores(std::span<const std::string> training, std::span<const std::string> held_out) {
  return scores(training, held_out, false);
}

NextWordScores next_word_scores_by_scan(std::span<const std::string> training, std::span<const std::string> held_out) {
  return scores(training, held_out, true);
}

}  // namespace secpe
