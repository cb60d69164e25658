#pragma once
// The name lists behind the PERSON scanner (text/pii.hpp): common US first names and surnames,
// written for this project (text/person_names.cpp says how they were chosen).
#include <string_view>

namespace secpe::person_names {

enum class FirstName {
  kNo,
  kYes,        // a name and hardly anything else ("Jessica")
  kAmbiguous,  // also a common word, place or business ("Will", "May", "Austin", "Wendy"):
               // a name only next to a surname or after a title
};

// Words as written in the text; matching ignores ASCII case (the scanner checks capitals).
FirstName first_name(std::string_view word);
bool is_surname(std::string_view word);
// Words that make a following first name part of a place or a dish ("Santa Barbara", "St. Albert",
// "Lake Charles", "Bloody Mary").
bool is_place_prefix(std::string_view word);
// Mr, Mrs, Ms, Miss, Dr (with or without the dot): a capitalised word after one is a name.
bool is_title(std::string_view word);
// Words for a person's job or relation ("waiter", "realtor", "sister"): a first name right after
// one is a person's ("our waiter Mark").
bool is_person_noun(std::string_view word);
// Capitalised words that end the name of a business or a place rather than being a surname
// ("Plaza", "Kitchen", "Island"): "Charles Plaza" is no person.
bool ends_a_business_name(std::string_view word);

}  // namespace secpe::person_names
