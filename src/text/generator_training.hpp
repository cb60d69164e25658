#pragma once
// What the built-in generator learns from, by how the dataset's labels reach it
// (--generator-labels; docs/method.md, section 7 'Voting and selection', "Generation and labels"):
//   per-label  each label's own public texts train its model (interpolated with an all-label
//              model). The generator then already writes each label's texts about as well as real
//              text of their length, so selection has little left to add.
//   pooled     one model of every public text, without labels: the paper's setting, a foundation
//              model that does not know the dataset's labels. Only the votes move each label's
//              population towards that label's records.
//   prompt     the pooled model steered per label only by what a prompt would give an LLM: the
//              label's values and keyword lists (a prompt file, text/prompts.hpp; label values
//              are public). Each public text goes to the prompt whose words it matches best
//              (prompt_matches); a label's own model learns from its prompt's texts. No record's
//              label is used.
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "text/generator.hpp"
#include "text/prompts.hpp"

namespace secpe {

enum class GeneratorLabels { kPerLabel, kPooled, kPrompt };
inline constexpr EnumNames<GeneratorLabels, 3> kGeneratorLabelsNames{
    {{GeneratorLabels::kPerLabel, "per-label"}, {GeneratorLabels::kPooled, "pooled"}, {GeneratorLabels::kPrompt, "prompt"}}};
inline std::string generator_labels_name(GeneratorLabels labels) { return std::string(name_of(kGeneratorLabelsNames, labels)); }
inline GeneratorLabels parse_generator_labels(const std::string& name) { return parse_name(kGeneratorLabelsNames, name, ""); }

// --generator-topics auto: the pooled model's latent topics chosen from the number of its training
// texts, one topic per kTextsPerAutoTopic of them and at most kMaxAutoTopics (the paper's Yelp
// setting, 50 topics, from 2,500 texts on: the Yelp dev set's training split, about 3,500 of them public,
// where docs/studies.md measured it, and PubMed's 2,868 have it); fewer than two
// topics' worth is none.
inline constexpr int kAutoGeneratorTopics = -1;
inline constexpr int kMaxAutoTopics = 50;
inline constexpr std::size_t kTextsPerAutoTopic = 50;
int auto_generator_topics(std::size_t training_texts);

// texts_per_label[l]: label l's public training texts.
GeneratorTraining per_label_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source);
// With `topics` > 0, the pooled texts are also split into that many latent topics, learned without
// labels (text/latent_topics.hpp), one model each: each text is drawn from one topic.
GeneratorTraining pooled_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source,
                                  int topics = 0);
// prompts[l]: what label l's prompt says (its values and keywords); `prompt_source` names where
// they came from, for the report.
GeneratorTraining prompt_training(const std::vector<std::vector<std::string>>& texts_per_label, std::string source,
                                  const std::vector<PromptWords>& prompts, const std::string& prompt_source);

// The training of mode `labels` from each label's public texts; `prompts` (the label values and
// keyword lists of a prompt file) is read in prompt mode only; `topics` (latent topics) applies to
// pooled mode only (InputError otherwise).
GeneratorTraining generator_training(GeneratorLabels labels, const std::vector<std::vector<std::string>>& texts_per_label,
                                     std::string source, const PromptTemplates& prompts, int topics = 0);

// For each text, the index of the distinct prompt it matches best, or -1 when it matches none.
// A prompt's words are the stems (lower case, plural and possessive endings removed) of its
// phrases' words that are no function words and hold a letter. Its label values carry half of its
// weight and its keywords the other half (all of it without keywords, as an LLM reads the label
// first and the keyword as a detail): stem s gets (its share of the values or keywords holding it)
// x ln(1 + prompts / prompts holding s) x ln(texts / texts holding s)^2, so words that tell
// prompts apart, and that few texts use ("nail" rather than "service"), count most. A text scores
// the sum of the weights of its distinct stems, and goes to the best prompt when that scores at
// least 1.5 times any other (a text about two things alike steers neither). `distinct[l]` is label
// l's prompt index: labels whose prompts give the same stems share one (Yelp's five star labels
// of a category, whose values differ only by a number).
std::vector<int> prompt_matches(const std::vector<std::string>& texts, const std::vector<PromptWords>& prompts,
                                std::vector<std::size_t>& distinct);

// `word` lower-cased, with a possessive "'s" and a plural ending ("ies" -> "y", "es" after s, x,
// ch, sh; "s" but not "ss") removed: "Salons" -> "salon", "Bakeries" -> "bakery".
std::string stem_word(const std::string& word);

}  // namespace secpe
