#include <gtest/gtest.h>

#include <algorithm>

#include "text/tokenizer.hpp"

namespace secpe {
namespace {

using V = std::vector<std::string>;

TEST(TextTokenizer, SplitsWordsAndPunctuation) {
  EXPECT_EQ(tokenize("Great food, ok!"), (V{"Great", "food", ",", "ok", "!"}));
  EXPECT_EQ(tokenize("  "), V{});
  EXPECT_EQ(tokenize("I don't know... it's well-done."),
            (V{"I", "don't", "know", ".", ".", ".", "it's", "well-done", "."}));
  EXPECT_EQ(tokenize("I loved it.They were nice"), (V{"I", "loved", "it", ".", "They", "were", "nice"}));
}

TEST(TextTokenizer, KeepsEmailsAndPhoneNumbers) {
  EXPECT_EQ(tokenize("Mail a.b@c.com."), (V{"Mail", "a.b@c.com", "."}));
  EXPECT_EQ(tokenize("Mail Jane.Doe@Example.com, please"), (V{"Mail", "Jane.Doe@Example.com", ",", "please"}));
  EXPECT_EQ(tokenize("Call 555-123-4567!"), (V{"Call", "555-123-4567", "!"}));
  EXPECT_EQ(tokenize("(555) 123-4567"), (V{"(", "555", ")", "123-4567"}));
  EXPECT_EQ(tokenize("It cost $3.50"), (V{"It", "cost", "$", "3.50"}));
}

TEST(TextTokenizer, HandlesUtf8) {
  EXPECT_EQ(tokenize("Café crème brûlée!"), (V{"Café", "crème", "brûlée", "!"}));
  EXPECT_EQ(tokenize("I didn’t — really"), (V{"I", "didn’t", "—", "really"}));
  EXPECT_EQ(tokenize("Straße\xC2\xA0ok"), (V{"Straße", "ok"}));  // no-break space separates
  // Invalid UTF-8 bytes do not crash and stay inside words.
  EXPECT_EQ(tokenize("ab\xFF" "cd e").size(), 2u);
}

TEST(TextTokenizer, WordsLowerDropsPunctuationAndLowerCasesAscii) {
  EXPECT_EQ(words_lower("Great FOOD, ok! Café"), (V{"great", "food", "ok", "café"}));
  EXPECT_EQ(words_lower("Email Bob.Smith@Example.COM now"), (V{"email", "bob.smith@example.com", "now"}));
  EXPECT_EQ(words_lower("!!! ..."), V{});
}

TEST(TextTokenizer, DetokenizeJoinsReadably) {
  EXPECT_EQ(detokenize({"Great", "food", ",", "ok", "!"}), "Great food, ok!");
  EXPECT_EQ(detokenize({"I", "paid", "$", "5", "(", "cash", ")", "."}), "I paid $5 (cash).");
  EXPECT_EQ(detokenize({"He", "said", "\"", "wow", "\"", "and", "left", "."}), "He said \"wow\" and left.");
  EXPECT_EQ(detokenize({}), "");
  const std::string s = "Call (555) 123-4567 or mail a.b@c.com, thanks!";
  EXPECT_EQ(detokenize(tokenize(s)), s);
}

TEST(TextTokenizer, LayoutTokensKeepLineBreaksAndMarkdown) {
  const std::string review = "**Strengths**\n- The \"method\" is clear.\n* It works.\n\n## Weaknesses\nThe `code` is ~~missing~~ --- *sadly*.";
  const auto t = tokenize_layout(review);
  EXPECT_EQ(t[0], "**");
  EXPECT_EQ(t[3], "\n");
  EXPECT_NE(std::find(t.begin(), t.end(), "\n\n"), t.end());
  EXPECT_NE(std::find(t.begin(), t.end(), "##"), t.end());
  EXPECT_NE(std::find(t.begin(), t.end(), "---"), t.end());
  EXPECT_EQ(detokenize(t, true), review);
  EXPECT_EQ(detokenize(tokenize("# Title\n+ one\n+ two")), "#Title + one + two");  // without layout: as before
  EXPECT_EQ(detokenize(tokenize_layout("# Title\n+ one\n+ two"), true), "# Title\n+ one\n+ two");
  // Breaks only between tokens: none first or last, spaces around them dropped, 3+ newlines a blank line.
  EXPECT_EQ(tokenize_layout("\n\n  Hi .  \n\n\n there \n"), (std::vector<std::string>{"Hi", ".", "\n\n", "there"}));
  // Text without layout tokenises as tokenize() does.
  const std::string plain = "Great food, ok! I paid $5 (cash) * 2.";
  EXPECT_EQ(tokenize_layout(plain), tokenize(plain));
  // An emphasis left open at a line's end does not glue across the break.
  EXPECT_EQ(detokenize({"**", "Open", "\n", "next", "**", "x", "**"}, true), "**Open\nnext **x**");
}

}  // namespace
}  // namespace secpe
