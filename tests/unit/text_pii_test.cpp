#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "text/pii.hpp"

namespace secpe {
namespace {

// The (category, matched text) pairs found in `text`.
std::vector<std::pair<std::string, std::string>> found(const std::string& text, PiiCategories wanted = kAllPiiCategories) {
  std::vector<PiiMatch> matches;
  find_pii(text, wanted, matches);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : matches) out.emplace_back(pii_category_name(m.category), text.substr(m.begin, m.end - m.begin));
  return out;
}

using Found = std::vector<std::pair<std::string, std::string>>;

// Each positive example is found whole, as its category, inside a sentence.
void expect_found(const char* category, std::initializer_list<const char*> values) {
  for (const char* v : values) {
    EXPECT_EQ(found(std::string("we saw ") + v + " there."), (Found{{category, v}})) << category << ": " << v;
  }
}

// Nothing in each negative example is taken for PII of any category.
void expect_nothing(std::initializer_list<const char*> texts) {
  for (const char* t : texts) EXPECT_EQ(found(t), Found{}) << t;
}

TEST(TextPii, Emails) {
  expect_found("EMAIL", {"jane.doe@example.com", "J_Smith+yelp@mail.example.co.uk", "a1@b-c.org"});
  expect_nothing({"meet @ the bar", "user@localhost is not an address", "x@y.c", "jane.@example.com no"});
}

TEST(TextPii, PhoneNumbers) {
  expect_found("PHONENUMBER", {"(602) 555-0147", "602-555-0147", "602.555.0147", "602 555 0147", "1-800-555-0199",
                               "+1 (480) 555-0101", "+44 20 7946 0958", "555-0147"});
  expect_nothing({"it cost 100-1500 dollars", "rated 602-155-0147 oddly", "$555-0147", "123-456-78901", "open 9-5 daily"});
}

TEST(TextPii, CreditCardNumbersNeedTheLuhnCheck) {
  expect_found("CREDITCARDNUMBER", {"4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "3782 822463 10005"});
  expect_nothing({"4111 1111 1111 1112", "order 1234567890123 shipped", "0000000000000000"});
}

TEST(TextPii, IbansNeedTheMod97Check) {
  expect_found("IBAN", {"DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432"});
  expect_nothing({"DE88 3704 0044 0532 0130 00", "AB12 is a code", "GB82WEST12345698765433"});
}

TEST(TextPii, SocialSecurityNumbers) {
  expect_found("SSN", {"123-45-6789", "078-05-1120"});
  expect_nothing({"000-12-3456", "666-12-3456", "900-12-3456", "123-00-4567", "123-45-0000", "1234-56-789"});
}

TEST(TextPii, IpAddresses) {
  expect_found("IPADDRESS", {"192.168.1.20", "8.8.8.8", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:db8::ff00:42:8329",
                             "fe80::1ff:fe23"});
  expect_nothing({"version 256.1.1.1 out", "1.2.3 and 4", "std::vector", "$1.50.2.3"});
  EXPECT_EQ(found("it was 10:30:45 sharp"), (Found{{"TIME", "10:30:45"}}));
}

TEST(TextPii, Urls) {
  expect_found("URL", {"https://www.example.com/menu?id=3", "http://example.org", "www.mybistro.com"});
  EXPECT_EQ(found("see (www.example.com)."), (Found{{"URL", "www.example.com"}}));
  expect_nothing({"www. is short", "http:// nothing", "the wwworld"});
}

TEST(TextPii, Dates) {
  expect_found("DATE", {"3/14/2019", "12/25/19", "2019-03-14", "14.03.2019", "March 14", "March 14th, 2019", "Mar. 14",
                        "Sept 3", "May 2019", "14 March 2019"});
  expect_nothing({"5/10 would not recommend", "a 10/10 place", "in March we went", "may 5 of us go", "13/13/2019",
                  "2019-13-01", "32 March"});
}

TEST(TextPii, Times) {
  expect_found("TIME", {"7:30", "7:30pm", "10:15 AM", "7pm", "11 a.m.", "23:59:59"});
  expect_nothing({"a 3:1 ratio", "24:00 hours", "7:75 is no time", "13pm", "2 amazing tacos"});
}

TEST(TextPii, ZipCodesNeedContext) {
  EXPECT_EQ(found("Phoenix, AZ 85004."), (Found{{"ZIPCODE", "85004"}}));
  EXPECT_EQ(found("zip code 85004-1234"), (Found{{"ZIPCODE", "85004-1234"}}));
  expect_found("ZIPCODE", {"85004-1234"});
  expect_nothing({"we walked 10000 steps", "ZZ 85004 is no state", "85004 alone"});
}

TEST(TextPii, StreetAddresses) {
  expect_found("STREET", {"123 Main St", "4505 E Camelback Rd", "1 N 7th Ave", "77 Sunset Boulevard", "12B Elm Street"});
  expect_nothing({"5 Stars all around", "2 Main dishes", "the 101 Freeway", "we had 3 st", "$5 Main St"});
}

TEST(TextPii, PersonNamesNeedCapitalsAndContext) {
  expect_found("PERSON", {"Jessica", "Maria Garcia", "Will Smith", "Dr. Quintero", "Ms Lopez"});
  EXPECT_EQ(found("Our server Jessica was great."), (Found{{"PERSON", "Jessica"}}));
  // Common words, places and chains that are also first names are names only with a surname or title.
  expect_nothing({"Will we come back? May be.", "We flew from Austin to Phoenix.", "Grace period", "Wendy's fries",
                  "jessica in lower case", "JESSICA SHOUTED", "Rose Garden", "Mark my words",
                  "in Santa Barbara", "St. Albert", "a Bloody Mary", "at Charles Plaza", "Pei Wei"});
  EXPECT_EQ(found("Bill Jones paid."), (Found{{"PERSON", "Bill Jones"}}));
}

TEST(TextPii, OnlyTheWantedCategoriesAndLeftToRight) {
  const std::string text = "Call Jessica at 602-555-0147 or jane@example.com on March 3.";
  EXPECT_EQ(found(text), (Found{{"PERSON", "Jessica"}, {"PHONENUMBER", "602-555-0147"}, {"EMAIL", "jane@example.com"}, {"DATE", "March 3"}}));
  EXPECT_EQ(found(text, pii_bit(PiiCategory::kEmail) | pii_bit(PiiCategory::kDate)),
            (Found{{"EMAIL", "jane@example.com"}, {"DATE", "March 3"}}));
  EXPECT_EQ(found(""), Found{});
}

TEST(TextPii, CategoryNamesParse) {
  EXPECT_EQ(parse_pii_categories("all"), kAllPiiCategories);
  EXPECT_EQ(parse_pii_categories("EMAIL,SSN"), pii_bit(PiiCategory::kEmail) | pii_bit(PiiCategory::kSsn));
  for (std::size_t c = 0; c < kPiiCategoryCount; ++c) {
    const auto category = static_cast<PiiCategory>(c);
    EXPECT_EQ(parse_pii_category(pii_category_name(category)), category);
  }
  try {
    parse_pii_categories("EMAIL,NAME");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown PII category 'NAME'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("PERSON"), std::string::npos);
  }
  EXPECT_THROW(parse_pii_categories(""), InputError);
}

}  // namespace
}  // namespace secpe
