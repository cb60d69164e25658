#include "core/enum_names.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cluster/kmeans.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

enum class Colour { kRed, kGreen, kBlue };
constexpr EnumNames<Colour, 4> kColours{{{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}, {Colour::kRed, "crimson"}}};

std::string refusal(std::string_view name, std::string_view what) {
  try {
    parse_name(kColours, name, what);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EnumNames, EveryValueRoundTripsAndAnAliasParsesToItsValue) {
  for (const Colour c : {Colour::kRed, Colour::kGreen, Colour::kBlue}) EXPECT_EQ(parse_name(kColours, name_of(kColours, c), ""), c);
  EXPECT_EQ(parse_name(kColours, "crimson", ""), Colour::kRed);
  EXPECT_EQ(name_of(kColours, Colour::kRed), "red");  // the first name is the one written
  static_assert(name_of(kColours, Colour::kBlue) == "blue");
}

TEST(EnumNames, TheRefusalListsTheOwnNamesOnly) {
  EXPECT_EQ(names_of(kColours), "red, green or blue");
  EXPECT_EQ(refusal("teal", "--colour"), "--colour must be red, green or blue, not 'teal'");
  EXPECT_EQ(refusal("Red", ""), "must be red, green or blue, not 'Red'");  // names are case-sensitive
}

TEST(EnumNames, KMeansInitKeepsItsAliases) {
  EXPECT_EQ(parse_kmeans_init("kmeans++"), KMeansInit::kPlusPlus);
  EXPECT_EQ(parse_kmeans_init("kmeans||"), KMeansInit::kParallel);
  EXPECT_EQ(kmeans_init_name(KMeansInit::kPlusPlus), "plusplus");
  EXPECT_EQ(names_of(kKMeansInitNames), "parallel, plusplus or random");
}

}  // namespace
}  // namespace secpe
