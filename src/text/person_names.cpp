// The name lists of text/person_names.hpp. Nothing can be downloaded on the build machines, so
// the lists are written here by hand (apt-cache search finds no Debian package of personal names):
// common US first names and surnames (the most frequent ones of public census tables, from
// memory, lower-cased). A first name that is
// also an English word, a city or state the Yelp data covers, or part of a chain's name is listed
// as ambiguous instead: flagging every "will", "may" or "austin" would make most reviews private.
// Extending the lists is safe for privacy (more records private) and costs utility only.
#include "text/person_names.hpp"

#include <string>
#include <unordered_set>

#include "text/scan.hpp"

namespace secpe::person_names {
namespace {

constexpr std::string_view kFirstNames[] = {
    "aaron", "abigail", "adam", "adrian", "aiden", "alan", "albert", "alejandro", "alex", "alexander", "alexandra",
    "alexis", "alice", "alicia", "allison", "alyssa", "amanda", "amber", "amy", "andrea", "andrew", "angela", "anna",
    "anthony", "antonio", "ashley", "barbara", "benjamin", "beth", "betty", "brandon", "brenda", "brian", "brittany",
    "bryan", "caleb", "cameron", "carlos", "carol", "caroline", "catherine", "charles", "cheryl", "chloe", "christian",
    "christina", "christine", "christopher", "cindy", "claire", "cody", "connor", "courtney", "cynthia", "daniel",
    "danielle", "david", "deborah", "debra", "denise", "dennis", "derek", "diana", "diane", "donald", "donna",
    "dorothy", "dylan", "edward", "elizabeth", "emily", "emma", "eric", "erica", "erin", "ethan", "evan", "evelyn",
    "gabriel", "gary", "george", "gregory", "hannah", "heather", "helen", "henry", "isabella", "jacob", "jacqueline",
    "james", "jamie", "jason", "jeffrey", "jennifer", "jeremy", "jessica", "joan", "john", "jonathan", "jose",
    "joseph", "joshua", "juan", "judith", "julia", "julie", "justin", "karen", "katherine", "kathleen", "kathryn",
    "katie", "kayla", "keith", "kelly", "kenneth", "kevin", "kimberly", "kristen", "kyle", "laura", "lauren",
    "linda", "lisa", "logan", "luis", "lucas", "madison", "margaret", "maria", "marie", "marilyn", "mario",
    "martha", "mary", "matthew", "megan", "melissa", "michael", "michelle", "miguel", "monica", "nancy", "natalie",
    "nathan", "nicholas", "nicole", "noah", "olivia", "pamela", "patricia", "patrick", "paul", "peter", "rachel",
    "raymond", "rebecca", "richard", "robert", "ronald", "ryan", "samantha", "samuel", "sandra", "sara", "sarah",
    "scott", "sean", "sharon", "shirley", "sophia", "stephanie", "stephen", "steven", "susan", "teresa", "thomas",
    "timothy", "tyler", "vanessa", "victoria", "vincent", "walter", "william", "zachary", "jake", "mike",
    "chris", "steve", "dave", "jeff", "jenny", "jen", "kate", "katy", "liz", "meg", "tom",
    "tony", "jim", "jimmy", "joe", "joey", "johnny", "danny", "eddie", "tommy", "bobby", "kenny", "ricky",
    "sam", "ben", "greg", "ken", "kim", "lori", "tina", "tracy", "wendy", "yvonne", "zoe", "brianna",
    "jasmine", "jordan", "kaitlyn", "mia", "ava", "ella", "grace", "lily", "sofia", "sophie", "isaac", "owen",
    "luke", "elijah", "levi", "mason", "carter", "jackson", "hector", "javier", "jorge", "pedro", "ricardo",
    "roberto", "sergio", "fernando", "francisco", "manuel", "rafael", "ramon", "guadalupe", "rosa", "carmen",
    "ana", "lucia", "elena", "gabriela", "mariana", "valeria", "ahmed", "ali", "fatima", "mohammed", "omar", "priya",
    "raj", "wei", "yuki", "hiroshi", "kenji", "mei", "jin", "hyun", "minh", "linh", "anh",
};

// Names that are also words, places or businesses: a name only with a surname or a title.
constexpr std::string_view kAmbiguousFirstNames[] = {
    "will", "may", "june", "april", "august", "mark", "bill", "pat", "jack", "art", "frank", "rose", "hope", "faith",
    "joy", "grace", "ruby", "olive", "pearl", "amber", "crystal", "summer", "autumn", "dawn", "sky", "rich", "ray",
    "guy", "chase", "hunter", "austin", "dallas", "houston", "phoenix", "charlotte", "paris", "sydney", "chelsea",
    "brooklyn", "madison", "jordan", "georgia", "virginia", "carolina", "florence", "victoria", "savannah", "trinity",
    "angel", "king", "prince", "duke", "earl", "glen", "dean", "miles", "max", "sage", "river", "wendy", "denny",
    "carl", "arby", "ruth", "panda", "sonic", "don", "papa", "jason", "jimmy", "john", "joe", "ben", "jerry", "dave",
    "tony", "eddie", "chuck", "bob", "chili", "dick", "buck", "cliff", "drew", "gene", "herb", "lane", "reed",
    "rod", "wade", "bud", "sandy", "candy", "cookie", "honey", "ginger", "holly", "ivy", "lily", "daisy", "violet",
    "melody", "harmony", "destiny", "star", "robin", "jay", "wren", "penny", "sunny", "misty", "stormy", "brandy",
    "sherry", "tiffany", "mercedes", "porsche", "lexus", "kia", "tesla", "nelson", "marshall", "mason", "carter",
    "jackson", "lincoln", "washington", "kennedy", "ford", "harley", "rob", "nick", "dan", "matt", "josh",
};

constexpr std::string_view kSurnames[] = {
    "smith", "johnson", "williams", "brown", "jones", "garcia", "miller", "davis", "rodriguez", "martinez",
    "hernandez", "lopez", "gonzalez", "wilson", "anderson", "thomas", "taylor", "moore", "jackson", "martin", "lee",
    "perez", "thompson", "white", "harris", "sanchez", "clark", "ramirez", "lewis", "robinson", "walker", "young",
    "allen", "king", "wright", "scott", "torres", "nguyen", "hill", "flores", "green", "adams", "nelson", "baker",
    "hall", "rivera", "campbell", "mitchell", "carter", "roberts", "gomez", "phillips", "evans", "turner", "diaz",
    "parker", "cruz", "edwards", "collins", "reyes", "stewart", "morris", "morales", "murphy", "cook", "rogers",
    "gutierrez", "ortiz", "morgan", "cooper", "peterson", "bailey", "reed", "kelly", "howard", "ramos", "kim", "cox",
    "ward", "richardson", "watson", "brooks", "chavez", "wood", "james", "bennett", "gray", "mendoza", "ruiz",
    "hughes", "price", "alvarez", "castillo", "sanders", "patel", "myers", "long", "ross", "foster", "jimenez",
    "powell", "jenkins", "perry", "russell", "sullivan", "bell", "coleman", "butler", "henderson", "barnes",
    "gonzales", "fisher", "vasquez", "simmons", "romero", "jordan", "patterson", "alexander", "hamilton", "graham",
    "reynolds", "griffin", "wallace", "moreno", "west", "cole", "hayes", "bryant", "herrera", "gibson", "ellis",
    "tran", "medina", "aguilar", "stevens", "murray", "ford", "castro", "marshall", "owens", "harrison", "fernandez",
    "mcdonald", "woods", "washington", "kennedy", "wells", "vargas", "henry", "chen", "freeman", "webb", "tucker",
    "guzman", "burns", "crawford", "olson", "simpson", "porter", "hunter", "gordon", "mendez", "silva", "shaw",
    "snyder", "mason", "dixon", "munoz", "hunt", "hicks", "holmes", "palmer", "wagner", "black", "robertson", "boyd",
    "rose", "stone", "salazar", "fox", "warren", "mills", "meyer", "rice", "schmidt", "garza", "daniels", "ferguson",
    "nichols", "stephens", "soto", "weaver", "ryan", "gardner", "payne", "grant", "dunn", "kelley", "spencer",
    "hawkins", "arnold", "pierce", "vazquez", "hansen", "peters", "santos", "hart", "bradley", "knight", "elliott",
    "cunningham", "duncan", "armstrong", "hudson", "carroll", "lane", "riley", "andrews", "alvarado", "ray", "delgado",
    "berry", "perkins", "hoffman", "johnston", "matthews", "pena", "richards", "contreras", "willis", "carpenter",
    "lawrence", "sandoval", "wang", "li", "zhang", "liu", "yang", "huang", "wu", "zhou", "singh", "kumar", "shah",
    "le", "pham", "park", "choi", "cohen", "murphy", "obrien", "kowalski", "schneider", "muller", "rossi",
};

constexpr std::string_view kPersonNouns[] = {
    "waiter", "waitress", "server", "bartender", "barista", "manager", "owner", "chef", "cook", "host", "hostess",
    "stylist", "barber", "mechanic", "technician", "tech", "dentist", "doctor", "nurse", "agent", "realtor", "driver",
    "trainer", "instructor", "teacher", "tutor", "guide", "planner", "contractor", "plumber", "electrician", "installer",
    "groomer", "photographer", "accountant", "lawyer", "attorney", "receptionist", "cashier", "clerk", "valet",
    "sommelier", "therapist", "masseuse", "rep", "representative", "salesman", "saleswoman", "associate", "dishwasher",
    "busboy", "nanny", "babysitter", "sitter", "vet", "pharmacist", "optometrist", "surgeon", "pediatrician",
    "physician", "dermatologist", "chiropractor", "locksmith", "painter", "mover", "handyman", "detailer", "coach",
    "counselor", "officer", "landlord", "neighbor", "neighbour", "friend", "husband", "wife", "boyfriend", "girlfriend",
    "son", "daughter", "brother", "sister", "mom", "dad", "boss", "coworker", "named", "lifeguard", "inspector",
};

// Words after which a capitalised word names a business, a building or a place.
constexpr std::string_view kBusinessWords[] = {
    "kitchen", "cafe", "grill", "bar", "bistro", "pizza", "pizzeria", "tacos", "taqueria", "deli", "bakery", "diner",
    "house", "restaurant", "salon", "spa", "plaza", "park", "street", "avenue", "road", "boulevard", "center", "centre",
    "mall", "market", "hotel", "inn", "lodge", "motel", "shop", "store", "studio", "gallery", "theater", "theatre",
    "hall", "lane", "square", "tavern", "pub", "lounge", "club", "garden", "gardens", "burger", "burgers", "noodle",
    "noodles", "sushi", "express", "cantina", "steakhouse", "dental", "auto", "nails", "beauty", "fitness", "gym",
    "cleaners", "repair", "plumbing", "realty", "church", "school", "hospital", "clinic", "medical", "university",
    "college", "library", "museum", "zoo", "airport", "station", "lake", "river", "mountain", "beach", "bay", "valley",
    "hills", "heights", "village", "creek", "canyon", "point", "county", "city", "springs", "ranch", "farm", "farms",
    "winery", "brewery", "brewing", "coffee", "donuts", "bagels", "bbq", "smokehouse", "seafood", "wings", "island",
    "bridge", "tower", "building", "arena", "stadium", "field", "memorial", "high", "elementary", "academy", "institute",
    "foundation", "company", "co", "inc", "llc", "group", "boutique", "bridal", "cleaning", "cuisine", "eatery",
    "creamery", "catering", "apartments", "towers", "court", "place", "drive", "way", "trail", "highway", "freeway",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "day", "night", "special", "christmas",
    // dishes and drinks named like people ("Tom Kha", "Shirley Temple", "the Michael Vegetarian")
    "kha", "yum", "ka", "temple", "fries", "vegetarian", "vegan", "salad", "sandwich", "roll", "rolls", "soup", "plate",
    "platter", "combo", "bowl", "burrito", "omelette", "omelet", "benedict", "sundae", "cocktail", "martini", "margarita",
    // the states and provinces of the Yelp data ("Brandon Florida")
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida", "hawaii",
    "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine", "maryland", "massachusetts",
    "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada", "ohio", "oklahoma", "oregon",
    "pennsylvania", "tennessee", "texas", "utah", "vermont", "wisconsin", "wyoming", "ontario", "quebec", "alberta",
};

using Set = std::unordered_set<std::string_view>;

std::string lower(std::string_view w) {
  std::string out;
  text_detail::append_lower(out, w);
  return out;
}

}  // namespace

FirstName first_name(std::string_view word) {
  static const Set ambiguous(std::begin(kAmbiguousFirstNames), std::end(kAmbiguousFirstNames));
  static const Set names(std::begin(kFirstNames), std::end(kFirstNames));
  if (word.size() < 2 || word.size() > 16) return FirstName::kNo;
  const std::string w = lower(word);
  if (ambiguous.count(w)) return FirstName::kAmbiguous;  // wins over kFirstNames
  return names.count(w) ? FirstName::kYes : FirstName::kNo;
}

bool is_surname(std::string_view word) {
  static const Set surnames(std::begin(kSurnames), std::end(kSurnames));
  return word.size() >= 2 && word.size() <= 16 && surnames.count(lower(word)) > 0;
}

bool is_place_prefix(std::string_view word) {
  static const Set prefixes = {"santa", "san", "saint", "st", "ste", "lake", "mount", "mt", "fort", "ft", "port", "point",
                               "cape", "bloody", "pei", "lady", "little", "big", "old", "new"};
  return word.size() >= 2 && word.size() <= 8 && prefixes.count(lower(word)) > 0;
}

bool is_title(std::string_view word) {
  if (word.ends_with('.')) word.remove_suffix(1);
  const std::string w = lower(word);
  return w == "mr" || w == "mrs" || w == "ms" || w == "miss" || w == "dr";
}

bool is_person_noun(std::string_view word) {
  static const Set nouns(std::begin(kPersonNouns), std::end(kPersonNouns));
  return word.size() >= 2 && word.size() <= 16 && nouns.count(lower(word)) > 0;
}

bool ends_a_business_name(std::string_view word) {
  static const Set words(std::begin(kBusinessWords), std::end(kBusinessWords));
  return word.size() >= 2 && word.size() <= 16 && words.count(lower(word)) > 0;
}

}  // namespace secpe::person_names
