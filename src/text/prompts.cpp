#include "text/prompts.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace secpe {
namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> read_keywords(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot read the keyword list");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  if (out.empty()) throw InputError(path.string() + ": the keyword list is empty");
  return out;
}

// Every {name} in `tmpl` must be in `allowed`.
void check_placeholders(const std::string& tmpl, const std::set<std::string>& allowed, const std::string& where) {
  for (std::size_t open = tmpl.find('{'); open != std::string::npos; open = tmpl.find('{', open + 1)) {
    const std::size_t close = tmpl.find('}', open);
    if (close == std::string::npos) throw InputError(where + ": '{' without '}'");
    const std::string name = tmpl.substr(open + 1, close - open - 1);
    if (!allowed.count(name)) throw InputError(where + ": unknown placeholder {" + name + "}");
  }
}

std::string string_field(const nlohmann::json& j, const std::string& key, const std::string& where, bool required) {
  if (!j.contains(key)) {
    if (required) throw InputError(where + ": missing '" + key + "'");
    return "";
  }
  if (!j[key].is_string()) throw InputError(where + "." + key + ": must be a string");
  return j[key].get<std::string>();
}

const std::vector<std::string> kDefaultTones = {"formal", "casual", "enthusiastic", "matter-of-fact", "detailed", "concise"};

}  // namespace

std::string blank_words(const std::string& text, double p, CounterRng& rng) {
  const auto words = words_of(text);
  std::vector<bool> blank(words.size());
  bool any = false;
  for (std::size_t i = 0; i < words.size(); ++i) any |= (blank[i] = rng.uniform() < p);
  if (!any && !words.empty()) blank[rng.below(words.size())] = true;
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (blank[i] && i > 0 && blank[i - 1]) continue;
    if (!out.empty()) out += ' ';
    out += blank[i] ? "_" : words[i];
  }
  return out;
}

PromptTemplates PromptTemplates::builtin(const LabelSet& labels) {
  PromptTemplates t;
  t.source_ = "built-in prompts";
  t.random_ = "Write a short text of the following kind: {labels}. Reply with the text only.";
  t.rephrase_ = "Rephrase the following text in a {tone} way. Reply with the rephrased text only.\n\n{text}";
  t.tones_ = kDefaultTones;
  t.columns_ = labels.columns;
  t.values_ = labels.values;
  t.keywords_.resize(labels.size());
  return t;
}

PromptTemplates PromptTemplates::load(const std::filesystem::path& file, const LabelSet& labels) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot read the prompt file");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  const std::string where = file.string();
  if (j.is_discarded() || !j.is_object()) throw InputError(where + ": not a JSON object");
  PromptTemplates t = builtin(labels);
  t.source_ = file.filename().string();  // what run.json and privacy.json name: never a path
  t.system_ = string_field(j, "system", where, false);
  std::set<std::string> allowed = {"labels", "keyword"};
  allowed.insert(labels.columns.begin(), labels.columns.end());
  if (!j.contains("random") || !j["random"].is_object()) throw InputError(where + ": missing the 'random' object");
  const auto& random = j["random"];
  t.random_ = string_field(random, "template", where + ".random", true);
  check_placeholders(t.random_, allowed, where + ".random.template");
  if (random.contains("keywords")) {
    const auto& kw = random["keywords"];
    const std::string kw_where = where + ".random.keywords";
    if (!kw.is_object() || !kw.contains("files") || !kw["files"].is_object()) throw InputError(kw_where + ": needs a 'files' object");
    const std::string column = string_field(kw, "column", kw_where, true);
    const auto c = std::find(labels.columns.begin(), labels.columns.end(), column);
    if (c == labels.columns.end()) throw InputError(kw_where + ".column: the dataset has no label column '" + column + "'");
    const std::filesystem::path dir = file.parent_path() / string_field(kw, "dir", kw_where, false);
    for (std::size_t l = 0; l < labels.size(); ++l) {
      const std::string& value = labels.values[l][static_cast<std::size_t>(c - labels.columns.begin())];
      if (!kw["files"].contains(value)) continue;  // no list: the prompt's {keyword} is the value itself
      if (!kw["files"][value].is_string()) throw InputError(kw_where + ".files." + value + ": must be a file name");
      try {
        t.keywords_[l] = read_keywords(dir / kw["files"][value].get<std::string>());
      } catch (const InputError& e) {
        throw InputError(kw_where + ".files." + value + ": " + e.what());
      }
    }
  }
  if (j.contains("variation")) {
    const auto& v = j["variation"];
    const std::string v_where = where + ".variation";
    if (!v.is_object()) throw InputError(v_where + ": must be an object");
    allowed.insert({"text", "tone", "length"});
    const std::string mode = v.contains("mode") ? string_field(v, "mode", v_where, true) : "rephrase";
    if (mode != "rephrase" && mode != "fill") throw InputError(v_where + ".mode: must be rephrase or fill, not '" + mode + "'");
    t.mode_ = mode == "fill" ? VariationPrompt::kFill : VariationPrompt::kRephrase;
    if (v.contains("rephrase_template")) t.rephrase_ = string_field(v, "rephrase_template", v_where, true);
    t.fill_ = string_field(v, "fill_template", v_where, t.mode_ == VariationPrompt::kFill);
    check_placeholders(t.rephrase_, allowed, v_where + ".rephrase_template");
    check_placeholders(t.fill_, allowed, v_where + ".fill_template");
    if (v.contains("tones")) {
      if (!v["tones"].is_array() || v["tones"].empty()) throw InputError(v_where + ".tones: must be a non-empty list");
      t.tones_.clear();
      for (const auto& tone : v["tones"]) {
        if (!tone.is_string()) throw InputError(v_where + ".tones: must hold strings");
        t.tones_.push_back(tone.get<std::string>());
      }
    }
    if (v.contains("blank_probability")) {
      if (!v["blank_probability"].is_number()) throw InputError(v_where + ".blank_probability: must be a number");
      t.blank_probability_ = v["blank_probability"].get<double>();
      if (!(t.blank_probability_ > 0 && t.blank_probability_ <= 1)) throw InputError(v_where + ".blank_probability: must be in (0, 1]");
    }
  }
  return t;
}

std::string PromptTemplates::render(const std::string& tmpl, std::size_t label,
                                    const std::vector<std::pair<std::string, std::string>>& extra) const {
  std::string out;
  std::size_t pos = 0;
  // One pass over the template: substituted text (a parent may hold braces) is never rescanned.
  for (std::size_t open = tmpl.find('{'); open != std::string::npos; open = tmpl.find('{', pos)) {
    const std::size_t close = tmpl.find('}', open);
    out.append(tmpl, pos, open - pos);
    const std::string name = tmpl.substr(open + 1, close - open - 1);
    if (name == "labels") {
      for (std::size_t c = 0; c < values_[label].size(); ++c) out += (c ? ", " : "") + values_[label][c];
    } else if (const auto col = std::find(columns_.begin(), columns_.end(), name); col != columns_.end()) {
      out += values_[label][static_cast<std::size_t>(col - columns_.begin())];
    } else {
      for (const auto& [key, value] : extra)
        if (key == name) out += value;
    }
    pos = close + 1;
  }
  out.append(tmpl, pos);
  return out;
}

std::string PromptTemplates::random_prompt(std::size_t label, CounterRng& rng) const {
  const auto& kw = keywords_.at(label);
  // Without a keyword list, the keyword is the label itself.
  std::string keyword = kw.empty() ? "" : kw[rng.below(kw.size())];
  if (kw.empty()) {
    for (std::size_t c = 0; c < values_[label].size(); ++c) keyword += (c ? ", " : "") + values_[label][c];
  }
  return render(random_, label, {{"keyword", keyword}});
}

std::string PromptTemplates::variation_prompt(std::size_t label, const std::string& parent, CounterRng& rng) const {
  const std::string length = std::to_string(words_of(parent).size());
  if (mode_ == VariationPrompt::kFill) {
    return render(fill_, label, {{"text", blank_words(parent, blank_probability_, rng)}, {"length", length}, {"tone", ""}, {"keyword", ""}});
  }
  const std::string& tone = tones_[rng.below(tones_.size())];
  return render(rephrase_, label, {{"text", parent}, {"tone", tone}, {"length", length}, {"keyword", ""}});
}

PromptWords PromptTemplates::words(std::size_t label) const { return {.values = values_.at(label), .keywords = keywords_.at(label)}; }

std::string PromptTemplates::describe() const {
  return source_ + " (variation: " + (mode_ == VariationPrompt::kFill ? "fill in blanks" : "rephrase in a tone") + ")";
}

}  // namespace secpe
