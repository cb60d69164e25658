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

}  // namespace secpe::person_names
