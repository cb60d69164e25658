#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "text/demo_corpus.hpp"
#include "text/function_words.hpp"
#include "text/generator.hpp"
#include "text/generator_training.hpp"
#include "text/latent_topics.hpp"
#include "text/ngrams.hpp"
#include "text/near_duplicates.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

struct Trained {
  std::vector<std::vector<std::string>> per_label;  // label 0: Restaurants 5.0, 1: Health & Medical 1.0, 2: empty
  std::set<std::string> vocab;
};

const Trained& trained() {
  static const Trained t = [] {
    Trained t;
    DemoCorpusOptions o;
    o.records = 3000;
    o.secret_rate = 0.0;
    const DemoCorpus d = make_demo_corpus(o);
    t.per_label.resize(3);
    for (std::size_t i = 0; i < d.corpus.texts.size(); ++i) {
      const auto& l = d.corpus.labels[i];
      if (l[0] == "Restaurants" && l[1] == "5.0") t.per_label[0].push_back(d.corpus.texts[i]);
      else if (l[0] == "Health & Medical" && l[1] == "1.0") t.per_label[1].push_back(d.corpus.texts[i]);
      for (const auto& w : words_lower(d.corpus.texts[i])) t.vocab.insert(w);
    }
    return t;
  }();
  return t;
}

double in_vocab_share(const std::string& text, const std::set<std::string>& vocab) {
  const auto w = words_lower(text);
  if (w.empty()) return 0.0;
  int in = 0;
  for (const auto& x : w) in += vocab.count(x) > 0;
  return static_cast<double>(in) / static_cast<double>(w.size());
}

TEST(TextGenerator, RandomTextIsReadableDeterministicAndVaried) {
  NgramGeneratorOptions opt;
  const NgramGenerator g(trained().per_label, "demo corpus", opt);
  EXPECT_NE(g.describe().find("ngram(order 3, variation by resample, labels per-label) trained on"), std::string::npos);
  EXPECT_NE(g.describe().find("demo corpus"), std::string::npos);
  std::set<std::string> distinct;
  for (std::uint64_t k = 0; k < 200; ++k) {
    for (std::size_t label : {0u, 1u, 2u}) {
      CounterRng r1(5, Stream::kGeneration, label, k), r2(5, Stream::kGeneration, label, k);
      const std::string t = g.random_text(label, r1);
      EXPECT_EQ(t, g.random_text(label, r2));
      const auto words = words_lower(t);
      ASSERT_FALSE(words.empty());
      EXPECT_LE(words.size(), static_cast<std::size_t>(opt.max_words));
      EXPECT_GE(in_vocab_share(t, trained().vocab), 0.99);
      distinct.insert(t);
    }
  }
  EXPECT_GT(distinct.size(), 550u);
}

TEST(TextGenerator, LabelModelShapesTheText) {
  const NgramGenerator g(trained().per_label, "demo", {});
  auto mentions = [](const std::string& t, std::initializer_list<const char*> words) {
    for (const char* w : words)
      if (t.find(w) != std::string::npos) return 1;
    return 0;
  };
  int dental_in_health = 0, dental_in_food = 0;
  for (std::uint64_t k = 0; k < 300; ++k) {
    CounterRng r(9, Stream::kGeneration, 0, k), r2(9, Stream::kGeneration, 1, k);
    const std::string food = g.random_text(0, r), health = g.random_text(1, r2);
    const auto medical = {"doctor", "dentist", "checkup", "clinic", "cleaning", "Dental", "nurse", "Medical"};
    dental_in_health += mentions(health, medical);
    dental_in_food += mentions(food, medical);
  }
  EXPECT_GT(dental_in_health, 100);
  EXPECT_GT(dental_in_health, 3 * dental_in_food);
}

TEST(TextGenerator, VaryKeepsPartOfTheParent) {
  NgramGeneratorOptions opt;
  opt.blank_fraction = 0.3;
  opt.variation = VariationMode::kSpan;
  const NgramGenerator g(trained().per_label, "demo", opt);
  int changed = 0;
  for (std::uint64_t k = 0; k < 100; ++k) {
    CounterRng r(3, Stream::kGeneration, k);
    const std::string parent = g.random_text(0, r);
    CounterRng v1(4, Stream::kGeneration, k), v2(4, Stream::kGeneration, k);
    const std::string child = g.vary(0, parent, v1);
    EXPECT_EQ(child, g.vary(0, parent, v2));
    const auto pt = tokenize(parent), ct = tokenize(child);
    ASSERT_FALSE(words_lower(child).empty());
    EXPECT_LE(words_lower(child).size(), static_cast<std::size_t>(opt.max_words));
    // Common prefix plus common suffix cover a good part of the parent.
    std::size_t pre = 0;
    while (pre < pt.size() && pre < ct.size() && pt[pre] == ct[pre]) ++pre;
    std::size_t suf = 0;
    while (suf < pt.size() - pre && suf < ct.size() - pre && pt[pt.size() - 1 - suf] == ct[ct.size() - 1 - suf]) ++suf;
    EXPECT_GE(static_cast<double>(pre + suf), 0.4 * static_cast<double>(pt.size())) << parent << " -> " << child;
    changed += child != parent;
  }
  EXPECT_GT(changed, 80);
  // An empty parent gets a fresh sample.
  CounterRng r(1, Stream::kGeneration);
  EXPECT_FALSE(words_lower(g.vary(0, "", r)).empty());
  // Out-of-vocabulary parents are fine too.
  CounterRng r2(2, Stream::kGeneration);
  EXPECT_FALSE(words_lower(g.vary(1, "Qwxz plorf zzyzx blarg snorf the and.", r2)).empty());
}

TEST(TextGenerator, SentenceVariationReplacesWholeSentences) {
  NgramGeneratorOptions opt;
  opt.variation = VariationMode::kSentences;
  opt.max_words = 1000;  // no truncation: every sentence is either the parent's or a new one
  const NgramGenerator g(trained().per_label, "demo", opt);
  const std::string parent = "Qwxz plorf first. Zzyzx blarg second! Snorf wibble third?";
  int kept_total = 0;
  for (std::uint64_t k = 0; k < 200; ++k) {
    CounterRng v1(4, Stream::kGeneration, k), v2(4, Stream::kGeneration, k);
    const std::string child = g.vary(0, parent, v1);
    EXPECT_EQ(child, g.vary(0, parent, v2));
    int kept = 0;  // the parent's sentences survive whole (their made-up words are in no model)
    for (const char* sentence : {"Qwxz plorf first.", "Zzyzx blarg second!", "Snorf wibble third?"})
      kept += child.find(sentence) != std::string::npos ? 1 : 0;
    EXPECT_LE(kept, 2) << child;  // at least one sentence re-sampled
    kept_total += kept;
  }
  // Each of the two sentences not forced is kept with probability 0.7: about 1.4 per variation.
  EXPECT_GT(kept_total, 200);
  EXPECT_LT(kept_total, 360);
  EXPECT_EQ(parse_variation_mode("span"), VariationMode::kSpan);
  EXPECT_THROW(parse_variation_mode("tone"), InputError);
}

TEST(TextGenerator, ResampleVariationIsAFreshSampleOfTheLabel) {
  NgramGeneratorOptions opt;
  opt.variation = VariationMode::kResample;
  const NgramGenerator g(trained().per_label, "demo", opt);
  const std::string parent = "Qwxz plorf first. Zzyzx blarg second! Snorf wibble third?";
  for (std::uint64_t k = 0; k < 50; ++k) {
    CounterRng v(5, Stream::kGeneration, k), r(5, Stream::kGeneration, k);
    const std::string child = g.vary(0, parent, v);
    EXPECT_EQ(child, g.random_text(0, r));  // the parent plays no part: the same stream, the same text
    EXPECT_EQ(child.find("plorf"), std::string::npos) << child;
  }
  EXPECT_EQ(parse_variation_mode("resample"), VariationMode::kResample);
  EXPECT_EQ(variation_mode_name(VariationMode::kResample), "resample");
}

TEST(TextGenerator, CapsLengthAndRejectsNoTrainingText) {
  NgramGeneratorOptions opt;
  opt.max_words = 8;
  const NgramGenerator g(trained().per_label, "demo", opt);
  for (std::uint64_t k = 0; k < 50; ++k) {
    CounterRng r(7, Stream::kGeneration, k);
    const std::string t = g.random_text(0, r);
    EXPECT_LE(words_lower(t).size(), 8u) << t;
    EXPECT_GE(words_lower(t).size(), 1u);
    EXPECT_LE(words_lower(g.vary(0, trained().per_label[0][k], r)).size(), 8u);
  }
  EXPECT_THROW(NgramGenerator({{}, {"", "  !! "}}, "nothing", {}), InputError);
  EXPECT_THROW(NgramGenerator({}, "nothing", {}), InputError);
}

int mentions_medical(const std::string& t) {
  for (const char* w : {"doctor", "dentist", "checkup", "clinic", "Dental", "nurse", "Medical"})
    if (t.find(w) != std::string::npos) return 1;
  return 0;
}

// Pooled: one model for every label, so two labels' texts are alike (same stream, same text),
// and no label's own texts shape its output.
TEST(TextGenerator, PooledTrainingIgnoresLabels) {
  const GeneratorTraining pooled = pooled_training(trained().per_label, "demo");
  EXPECT_EQ(pooled.texts.size(), trained().per_label[0].size() + trained().per_label[1].size());
  const NgramGenerator g(pooled, {});
  EXPECT_NE(g.describe().find("labels pooled"), std::string::npos) << g.describe();
  for (std::uint64_t k = 0; k < 50; ++k) {
    CounterRng r0(9, Stream::kGeneration, k), r1(9, Stream::kGeneration, k);
    EXPECT_EQ(g.random_text(0, r0), g.random_text(1, r1));
  }
  EXPECT_EQ(parse_generator_labels("pooled"), GeneratorLabels::kPooled);
  EXPECT_EQ(generator_labels_name(GeneratorLabels::kPrompt), "prompt");
  EXPECT_THROW(parse_generator_labels("labels"), InputError);
}

// --generator-topics auto: one topic per 50 training texts, at most 50, none below two topics' worth.
// A corpus with line breaks and Markdown (OpenReview's reviews) gets them back; one without any
// is tokenised as before (its texts unchanged: tests/e2e/same_outputs.sh).
TEST(TextGenerator, KeepsTheLayoutOfACorpusThatHasOne) {
  std::vector<std::string> reviews;
  const char* words[] = {"model", "training", "loss", "results", "method", "baseline", "clear", "novel"};
  for (int i = 0; i < 60; ++i) {
    reviews.push_back(std::string("**Strengths**\n- The ") + words[i % 8] + " is " + words[(i * 3) % 8] + ".\n\n**Weaknesses**\n- The " +
                      words[(i * 5) % 8] + " " + words[(i + 1) % 8] + " is weak.");
  }
  const NgramGenerator layout({reviews}, "reviews", NgramGeneratorOptions{});
  EXPECT_NE(layout.describe().find("layout kept"), std::string::npos);
  int kept = 0;
  for (std::uint64_t k = 0; k < 40; ++k) {
    CounterRng rng(3, Stream::kGeneration, 0, k);
    const std::string t = layout.random_text(0, rng);
    EXPECT_EQ(t.find("* *"), std::string::npos) << t;
    EXPECT_EQ(t.find(" \n"), std::string::npos) << t;
    EXPECT_NE(t.back(), '\n');
    kept += t.find("**Strengths**\n- The") != std::string::npos || t.find("**Weaknesses**\n- The") != std::string::npos;
    CounterRng vary_rng(4, Stream::kGeneration, 1, k);
    EXPECT_EQ(layout.vary(0, t, vary_rng).find("* *"), std::string::npos);
  }
  EXPECT_GT(kept, 30);
  const NgramGenerator flat(trained().per_label, "demo corpus", NgramGeneratorOptions{});
  EXPECT_EQ(flat.describe().find("layout"), std::string::npos);
}

TEST(NgramGenerator, AutoTopicsFollowTheTrainingTexts) {
  EXPECT_EQ(auto_generator_topics(0), 0);
  EXPECT_EQ(auto_generator_topics(99), 0);  // one topic's worth: the one pooled model
  EXPECT_EQ(auto_generator_topics(100), 2);
  EXPECT_EQ(auto_generator_topics(1200), 24);
  EXPECT_EQ(auto_generator_topics(2868), 50);  // PubMed's public abstracts: the paper's 50
  EXPECT_EQ(auto_generator_topics(1939290), 50);
}

// Two subjects with no shared content word: the pizza place's reviews and the dentist's, in
// sentences drawn from each subject's own list.
std::vector<std::string> two_subject_texts() {
  const std::vector<std::string> pizza = {"The pizza crust was crispy and hot.", "Our waiter brought garlic bread quickly.",
                                          "The pepperoni slices tasted fresh.", "We ordered pasta with meatballs.",
                                          "The pizza oven smelled of basil."};
  const std::vector<std::string> dentist = {"The dentist cleaned my teeth gently.", "The hygienist explained the xray.",
                                            "My filling appointment started early.", "The dentist fixed a cavity painlessly.",
                                            "The receptionist booked my checkup."};
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 60; ++i) {
    const auto& subject = i % 2 == 0 ? pizza : dentist;
    texts.push_back(subject[i % 5] + " " + subject[(i / 2 + 1) % 5] + " " + subject[(i / 3 + 3) % 5]);
  }
  return texts;
}

// Which subjects a text's words come from: 1 pizza, 2 dentist, 3 both.
int subjects_of(const std::string& text) {
  static const std::set<std::string> pizza = {"pizza", "crust", "waiter", "garlic", "pepperoni", "pasta", "meatballs", "oven", "basil"};
  static const std::set<std::string> dentist = {"dentist", "teeth", "hygienist", "xray", "filling", "cavity", "receptionist", "checkup"};
  int s = 0;
  for (const auto& w : words_lower(text)) s |= (pizza.count(w) ? 1 : 0) | (dentist.count(w) ? 2 : 0);
  return s;
}

// Latent topics are learned from the texts alone (labels never reach them), each text is drawn
// from one topic, and a variation keeps its parent's topic; the same training gives the same texts.
TEST(TextGenerator, PooledTopicsStayOnOneSubjectAndVariationsKeepIt) {
  const std::vector<std::string> texts = two_subject_texts();
  const auto topics = latent_topics(texts, 2);
  ASSERT_EQ(topics.size(), 2u);
  for (const auto& topic : topics) {
    ASSERT_FALSE(topic.empty());
    for (const std::size_t i : topic) EXPECT_EQ(subjects_of(texts[i]), subjects_of(texts[topic[0]])) << texts[i];
  }
  // The same texts held by other labels: the same topics and texts for every label.
  const std::vector<std::vector<std::string>> by_one = {texts, {}}, by_other = {{}, texts};
  // The topic's model alone where it knows the context (with the default 0.8, a fifth of the tokens
  // come from the pooled model, which can start a sentence on the other subject).
  NgramGeneratorOptions resample{.label_weight = 1.0, .variation = VariationMode::kResample};
  const NgramGenerator g(pooled_training(by_one, "two", 2), resample), h(pooled_training(by_other, "two", 2), resample);
  EXPECT_NE(g.describe().find("2 latent topics"), std::string::npos) << g.describe();
  const NgramGenerator plain(pooled_training(by_one, "two"), resample);
  int mixed_plain = 0;
  std::set<int> seen;
  for (std::uint64_t k = 0; k < 60; ++k) {
    CounterRng r0(5, Stream::kGeneration, k), r1(5, Stream::kGeneration, k), r2(5, Stream::kGeneration, k);
    const std::string text = g.random_text(0, r0);
    EXPECT_EQ(text, h.random_text(1, r1));
    const int subject = subjects_of(text);
    EXPECT_TRUE(subject == 1 || subject == 2) << text;
    seen.insert(subject);
    mixed_plain += subjects_of(plain.random_text(0, r2)) == 3 ? 1 : 0;
    for (int v = 0; v < 3; ++v) {
      const std::string child = g.vary(0, text, r0);
      EXPECT_EQ(subjects_of(child), subject) << text << " -> " << child;
    }
  }
  EXPECT_EQ(seen.size(), 2u);   // both topics are drawn
  EXPECT_GT(mixed_plain, 10);  // without topics, texts mix the subjects
  EXPECT_THROW(generator_training(GeneratorLabels::kPerLabel, by_one, "two", PromptTemplates::builtin(LabelSet{{"label1"}, {""}, {{"Pizza"}, {"Dentist"}}}), 2), InputError);
}

// Prompt: texts go to the prompt whose words they match best, label values and keywords alike.
TEST(TextGenerator, PromptTrainingSteersByThePromptsWordsOnly) {
  const std::vector<PromptWords> prompts = {{.values = {"Restaurants", "5.0"}, .keywords = {"Pizzerias", "Fine Dining"}},
                                            {.values = {"Health & Medical", "1.0"}, .keywords = {"Dentist Offices", "Medical Clinics"}},
                                            {.values = {"Health & Medical", "2.0"}, .keywords = {"Dentist Offices", "Medical Clinics"}}};
  std::vector<std::size_t> distinct;
  const auto match = prompt_matches({"The dentists were kind.", "Best pizzeria in town, fine wine.", "We sat down.", "medical clinic, fine dining",
                                     "health and dining"},
                                    prompts, distinct);
  EXPECT_EQ(distinct, (std::vector<std::size_t>{0, 1, 1}));  // the star values hold no word: one prompt
  // Values and keywords carry half of a prompt each: "medical" weighs 1/4 (a value word) + 1/4
  // (one keyword of two) against 1/4 each for "fine" and "dining"; "health" is in one text,
  // "dining" in two, and rarer words count more.
  EXPECT_EQ(match, (std::vector<int>{1, 0, -1, 1, 1}));
  // A text matching two prompts alike goes to neither; a word in every text tells nothing.
  EXPECT_EQ(prompt_matches({"health and dining", "dining and health", "we sat"}, prompts, distinct), (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(prompt_matches({"dentist", "dentists"}, prompts, distinct), (std::vector<int>{-1, -1}));
  EXPECT_EQ(stem_word("Bakeries"), "bakery");
  EXPECT_EQ(stem_word("Salons"), "salon");
  EXPECT_EQ(stem_word("glasses"), "glass");
  EXPECT_EQ(stem_word("Joe's"), "joe");

  const GeneratorTraining t = prompt_training(trained().per_label, "demo", prompts, "test prompts");
  ASSERT_EQ(t.label_texts.size(), 3u);
  EXPECT_EQ(t.label_texts[1], t.label_texts[2]);  // the same prompt, the same model
  EXPECT_FALSE(t.label_texts[1].empty());
  const NgramGenerator g(t, {});
  int medical_in_health = 0, medical_in_food = 0;
  for (std::uint64_t k = 0; k < 300; ++k) {
    CounterRng r(9, Stream::kGeneration, 0, k), r2(9, Stream::kGeneration, 1, k);
    medical_in_food += mentions_medical(g.random_text(0, r));
    medical_in_health += mentions_medical(g.random_text(1, r2));
  }
  EXPECT_GT(medical_in_health, 3 * medical_in_food);
}

// Rephrase: each sentence is new, around one of the parent sentence's content words, so the
// child keeps the parent's content words and little of its wording.
TEST(TextGenerator, RephraseKeepsContentWordsAndChangesTheWording) {
  NgramGeneratorOptions opt;
  opt.variation = VariationMode::kRephrase;
  opt.max_words = 1000;  // no truncation
  const NgramGenerator g(pooled_training(trained().per_label, "demo"), opt);
  EXPECT_NE(g.describe().find("variation by rephrase"), std::string::npos);
  EXPECT_EQ(parse_variation_mode("rephrase"), VariationMode::kRephrase);
  const NearDuplicateOptions near{.n = 5, .share = 0.5};
  int near_copies = 0;
  for (std::uint64_t k = 0; k < 100; ++k) {
    CounterRng r(3, Stream::kGeneration, k);
    const std::string parent = g.random_text(1, r);
    CounterRng v1(4, Stream::kGeneration, k), v2(4, Stream::kGeneration, k);
    const std::string child = g.vary(1, parent, v1);
    EXPECT_EQ(child, g.vary(1, parent, v2));
    // The child holds some of the parent's content words (one per sentence that has one).
    std::set<std::string> parent_content, child_words;
    for (const auto& w : words_lower(parent))
      if (!is_function_word(w)) parent_content.insert(w);
    for (const auto& w : words_lower(child)) child_words.insert(w);
    int kept = 0;
    for (const auto& w : parent_content) kept += child_words.count(w) > 0;
    if (!parent_content.empty()) EXPECT_GE(kept, 1) << parent << " -> " << child;
    NearDuplicateFilter filter(near);
    filter.try_add(word_keys(parent));
    near_copies += filter.try_add(word_keys(child)) ? 0 : 1;
  }
  EXPECT_LT(near_copies, 20);
  // A parent whose words the model never saw is re-sampled.
  CounterRng r(2, Stream::kGeneration);
  EXPECT_FALSE(words_lower(g.vary(1, "Qwxz plorf zzyzx.", r)).empty());
  // Rephrasing a text ten times over keeps its length (mean over 60 lineages within 15%).
  opt.max_words = 64;
  const NgramGenerator capped(pooled_training(trained().per_label, "demo"), opt);
  double first = 0, last = 0;
  for (std::uint64_t k = 0; k < 60; ++k) {
    CounterRng r(8, Stream::kGeneration, k);
    std::string text = capped.random_text(0, r);
    first += double(words_lower(text).size());
    for (std::uint64_t generation = 0; generation < 10; ++generation) {
      CounterRng v(9, Stream::kGeneration, k, generation);
      text = capped.vary(0, text, v);
    }
    last += double(words_lower(text).size());
  }
  EXPECT_NEAR(last / first, 1.0, 0.15) << first / 60 << " words, then " << last / 60;
  EXPECT_TRUE(is_function_word("The"));
  EXPECT_TRUE(is_function_word("didn\u2019t"));
  EXPECT_FALSE(is_function_word("dentist"));
}

}  // namespace
}  // namespace secpe
