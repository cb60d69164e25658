#pragma once
// Next-word prediction, the paper's metric for unlabelled corpora (PubMed): a language model
// trained only on the synthetic texts predicts every next word of the held-out real texts.
//
// The model is an interpolated Kneser-Ney trigram over the words of eval's n-grams (text/ngrams.hpp:
// lower-cased, punctuation skipped), each text padded with two start symbols. Every order has its
// discount D = n1 / (n1 + 2 n2) from its own count-of-counts (Chen and Goodman, 1998); the lower
// orders count continuations (distinct left contexts), and the unigram level is interpolated with
// the uniform distribution over the vocabulary (the synthetic texts' words) and one unknown word.
// The unknown word's probability is shared equally by the held-out word types outside the
// vocabulary, so that every model is a proper distribution over its vocabulary and those types:
// a model with a small vocabulary gains nothing by calling more words unknown.
//
// Figures, over every word of the held-out texts: top-1 accuracy (the most probable vocabulary
// word is the next word; a word outside the vocabulary is always a miss), the mean loss in nats
// and the perplexity exp(loss). The argmax is exact: only a context's seen successors and the best
// of the lower orders can win (next_word.cpp says why).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace secpe {

struct NextWordScores {
  std::size_t texts = 0;                // held-out texts
  std::uint64_t words = 0;              // held-out words predicted
  std::uint64_t correct = 0;            // of them, predicted right (top-1)
  std::uint64_t out_of_vocabulary = 0;  // of them, outside the training texts' vocabulary
  std::size_t vocabulary = 0;           // distinct training words
  double accuracy = 0.0;                // correct / words
  double loss = 0.0;                    // mean negative log-probability of the next word, in nats
  double perplexity = 0.0;              // exp(loss)
};

// Trains on `training` and scores `held_out` (texts as they are; InputError when training holds
// no word). The same figures for the same inputs, on every machine and for any rank count.
NextWordScores next_word_scores(std::span<const std::string> training, std::span<const std::string> held_out);
// The reference: the same, each prediction by scanning the whole vocabulary (for the tests).
NextWordScores next_word_scores_by_scan(std::span<const std::string> training, std::span<const std::string> held_out);

}  // namespace secpe
