#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "text/prompts.hpp"

namespace secpe {
namespace {

const LabelSet kYelp{{"label1", "label2"}, {"Business Category: ", "Review Stars: "}, {{"Restaurants", "5.0"}, {"Pets", "1.0"}}};

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

TEST(Prompts, YelpFileDrawsKeywordsFromTheSharedLists) {
  // jobs/prompts/yelp.json reads Aug-PE's lists from ../shared (SECPE_SHARED_DIR) at run time.
  const std::filesystem::path file = std::filesystem::path(SECPE_TEST_DATA) / "../../jobs/prompts/yelp.json";
  if (!std::filesystem::exists(std::filesystem::path(SECPE_SHARED_DIR) / "data/yelp/subcategories-restaurants.txt")) GTEST_SKIP();
  const PromptTemplates p = PromptTemplates::load(file, kYelp);
  EXPECT_EQ(p.source(), "yelp.json");  // published in the generator's description: a file name, never a path
  EXPECT_FALSE(p.system().empty());
  CounterRng a(3, Stream::kGeneration, 0, 0, 0), b(3, Stream::kGeneration, 0, 0, 0);
  const std::string prompt = p.random_prompt(0, a);
  EXPECT_EQ(prompt, p.random_prompt(0, b));
  EXPECT_NE(prompt.find("5.0 stars"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("category Restaurants, about "), std::string::npos) << prompt;
  // A label without a keyword list uses its value as the keyword.
  CounterRng c(3, Stream::kGeneration);
  EXPECT_NE(p.random_prompt(1, c).find("about Pets"), std::string::npos);
  const std::string v = p.variation_prompt(0, "Good {food} here.", a);
  EXPECT_TRUE(v.ends_with("\n\nGood {food} here.")) << v;
}

TEST(Prompts, FillInBlanksAtTheParentsLength) {
  const auto file = write("secpe-fill.json", R"({"random":{"template":"Write about {labels}."},
    "variation":{"mode":"fill","fill_template":"Fill {length} words: {text}","blank_probability":0.5}})");
  const PromptTemplates p = PromptTemplates::load(file, kYelp);
  CounterRng rng(1, Stream::kGeneration);
  EXPECT_EQ(p.random_prompt(0, rng), "Write about Restaurants, 5.0.");
  const std::string v = p.variation_prompt(0, "one two three four five six seven eight", rng);
  EXPECT_TRUE(v.starts_with("Fill 8 words: ")) << v;
  EXPECT_NE(v.find('_'), std::string::npos);
  EXPECT_EQ(v.find("_ _"), std::string::npos) << "runs of blanks merge";
  std::filesystem::remove(file);
}

TEST(Prompts, BadFilesAreNamed) {
  for (const std::string text : {"[]", R"({"random":{}})", R"({"random":{"template":"{nope}"}})",
                                 R"({"random":{"template":"x","keywords":{"column":"label9","files":{}}}})",
                                 R"({"random":{"template":"x","keywords":{"column":"label1","files":{"Restaurants":"missing.txt"}}}})",
                                 R"({"random":{"template":"x"},"variation":{"mode":"shout"}})",
                                 R"({"random":{"template":"x"},"variation":{"mode":"fill"}})"}) {
    const auto file = write("secpe-bad-prompts.json", text);
    try {
      PromptTemplates::load(file, kYelp);
      ADD_FAILURE() << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("secpe-bad-prompts.json"), std::string::npos) << e.what();
    }
    std::filesystem::remove(file);
  }
}

TEST(Prompts, BlankWordsAlwaysBlanksOne) {
  CounterRng rng(2, Stream::kGeneration);
  EXPECT_NE(blank_words("single", 1e-9, rng), "single");
  EXPECT_EQ(blank_words("", 0.5, rng), "");
}

}  // namespace
}  // namespace secpe
