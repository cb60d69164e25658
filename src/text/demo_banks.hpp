#pragma once
// Private to demo_corpus.cpp: the phrase banks of the built-in demo corpus (invented text, written for
// this project; no review text is copied from any data set). Entries are separated by '|'.
namespace secpe::demo_banks {

struct CategoryText {
  const char* label;      // the Yelp label1 value
  double weight;          // share of reviews (Yelp dev)
  const char* places;     // kinds of business
  const char* suffixes;   // business-name suffixes
  const char* items;      // things ordered, bought or booked
  const char* good;       // how a good item turned out
  const char* bad;        // how a bad item turned out
  const char* staff;      // roles
  const char* aspects;    // other things a reviewer comments on
  const char* pos;        // category sentences, positive
  const char* mid;        // category sentences, mixed
  const char* neg;        // category sentences, negative
};

inline const CategoryText kCategories[] = {
{"Restaurants", 0.612,
 "taco spot|ramen shop|pizza place|diner|steakhouse|sushi bar|brunch spot|Thai place|noodle house|bistro|"
 "burger joint|Italian restaurant|Mexican restaurant|pho place|barbecue joint|Indian restaurant|dim sum place|"
 "deli|bakery cafe|seafood restaurant|vegan cafe|Korean barbecue place|Greek restaurant|Ethiopian restaurant|"
 "food truck|buffet|gastropub|breakfast place|sandwich shop|Cuban cafe|Lebanese grill|hot pot place|crepe shop|"
 "poke bowl spot|Peruvian restaurant|soul food kitchen|Szechuan restaurant|wine bar and kitchen|tapas bar",
 "Kitchen|Grill|Bistro|Cafe|Diner|Eatery|Cantina|Trattoria|Noodle House|Taqueria|Smokehouse|Table|Chophouse|Bakery",
 "carnitas tacos|pad thai|margherita pizza|spicy tuna roll|tonkotsu ramen|chicken tikka masala|eggs benedict|"
 "brisket|pulled pork sandwich|fish tacos|pho|beef brisket pho|bibimbap|lamb gyro|falafel plate|shrimp and grits|"
 "chicken and waffles|french toast|breakfast burrito|green chile stew|cheeseburger|bacon burger|truffle fries|"
 "sweet potato fries|onion rings|wings|buffalo wings|nachos|guacamole|chips and salsa|elote|enchiladas|"
 "chile relleno|carne asada|mole|tamales|birria tacos|al pastor|pozole|huevos rancheros|chilaquiles|"
 "spaghetti carbonara|lasagna|chicken parm|gnocchi|risotto|calamari|bruschetta|tiramisu|cannoli|"
 "lobster roll|clam chowder|crab cakes|oysters|fish and chips|salmon|seared scallops|ribeye|filet mignon|"
 "prime rib|baby back ribs|mac and cheese|collard greens|cornbread|fried chicken|chicken fried steak|biscuits and gravy|"
 "pancakes|avocado toast|omelet|hash browns|acai bowl|Cobb salad|Caesar salad|Greek salad|kale salad|"
 "tomato soup|French onion soup|matzo ball soup|hot and sour soup|wonton soup|egg rolls|potstickers|dumplings|"
 "soup dumplings|xiao long bao|char siu bao|General Tso's chicken|orange chicken|kung pao chicken|mapo tofu|"
 "dan dan noodles|lo mein|fried rice|beef and broccoli|pork belly|bulgogi|kimchi fried rice|japchae|tteokbokki|"
 "katsu curry|chicken teriyaki|udon|tempura|sashimi|nigiri|dragon roll|rainbow roll|miso soup|edamame|"
 "green curry|massaman curry|panang curry|drunken noodles|papaya salad|larb|tom yum|mango sticky rice|"
 "butter chicken|saag paneer|lamb vindaloo|chana masala|garlic naan|samosas|biryani|dosa|mango lassi|"
 "shawarma|hummus|baba ganoush|tabbouleh|kebab plate|baklava|injera platter|doro wat|jerk chicken|oxtail|"
 "cubano|empanadas|ropa vieja|plantains|ceviche|lomo saltado|arepas|pupusas|banh mi|spring rolls|vermicelli bowl|"
 "poke bowl|cheesesteak|meatball sub|Reuben|pastrami sandwich|BLT|club sandwich|grilled cheese|chicken pot pie|"
 "meatloaf|pot roast|veggie burger|impossible burger|quinoa bowl|cheesecake|carrot cake|creme brulee|bread pudding|"
 "key lime pie|apple pie|gelato|churros|chocolate lava cake|beignets|croissant|cinnamon roll|house salad|"
 "garlic knots|deep dish pizza|pepperoni pizza|white pizza|calzone|stromboli|hot dog|corn dog|lobster bisque|"
 "cioppino|paella|short rib|duck confit|steak frites|mussels|charcuterie board|deviled eggs|fried green tomatoes|"
 "hush puppies|crawfish etouffee|gumbo|jambalaya|po boy|cold brew|iced tea|horchata|Thai iced tea|milkshake",
 "perfectly seasoned|crispy on the outside and tender inside|piping hot|packed with flavor|beautifully plated|"
 "fresh and bright|rich and creamy|smoky and tender|cooked perfectly|huge and worth every penny|"
 "better than my grandmother's, and I do not say that lightly|spicy in the best way|light and flaky|"
 "loaded with toppings|fall-apart tender|savory with just a hint of sweetness|melt-in-your-mouth good|"
 "generously portioned|homemade tasting|balanced and complex|hot, fresh and fast",
 "cold|soggy|bland|dry as cardboard|overcooked|undercooked|burnt on the bottom|swimming in grease|watery|"
 "completely flavorless|way too salty|rubbery|lukewarm at best|stale|tiny for the price|drowned in sauce|"
 "clearly microwaved|missing half the toppings|chewy and tough|oddly sweet",
 "server|waiter|waitress|bartender|host|hostess|manager|chef|owner|busser|cashier",
 "the patio|the decor|the music|the parking|the wait|the lighting|the booths|the bathrooms|the menu|the portions|"
 "the noise level|the open kitchen|the outdoor seating|the drink list|the specials board|the happy hour",
 "The {item} alone is worth the drive from {city}.|"
 "We split the {item} and the {item2}, and both plates were licked clean.|"
 "The {item} was {good}, and the {item2} was just as good.|"
 "I ordered the {item} and it came out {good}.|"
 "Do yourself a favor and get the {item}.|"
 "Everything we tried was fresh, especially the {item}.|"
 "The chef clearly cares, you can taste it in the {item}.|"
 "They even brought out a free {item} for {friend} because it was her birthday.|"
 "Portions are generous, so we took half the {item} home.|"
 "The {item} here is the best I have had in {city}, hands down.",
 "The {item} was good but the {item2} was {bad}.|"
 "The {item} was fine, nothing I would rush back for.|"
 "The menu is huge, which is nice, but the {item} was only okay.|"
 "Food came out at different times, though the {item} was tasty once it arrived.|"
 "I liked the {item}, but {friend} thought the {item2} was {bad}.",
 "The {item} was {bad} and the {item2} was not much better.|"
 "My {item} arrived {bad}, and when I mentioned it nobody seemed to care.|"
 "We waited forty minutes for a {item} that was {bad}.|"
 "I found a hair in my {item}, and the manager just shrugged.|"
 "The {item} tasted like it had been sitting under a heat lamp all afternoon.|"
 "They got our order wrong twice and the {item} was {bad}."},
{"Bars", 0.106,
 "dive bar|sports bar|cocktail lounge|brewpub|wine bar|karaoke bar|rooftop bar|Irish pub|whiskey bar|beer garden|"
 "speakeasy|neighborhood bar|tiki bar|piano bar|taproom|sake bar|cigar lounge|college bar",
 "Tavern|Pub|Taproom|Lounge|Saloon|Brewing Company|Social Club|Tap House|Bar",
 "old fashioned|margarita|IPA|mojito|Moscow mule|whiskey sour|negroni|espresso martini|craft beer flight|"
 "house sangria|pint of stout|hazy IPA|sour beer|dirty martini|mai tai|paloma|gin and tonic|bloody mary|"
 "aperol spritz|local lager|hard cider|rose|bourbon flight|mezcal cocktail|pitcher of beer|boilermaker|"
 "jello shots|loaded tots|bar nachos|pretzel bites|sliders|fried pickles|wings|flatbread|charcuterie board|"
 "happy hour special|draft list|frozen daiquiri|hot toddy|Irish coffee|white russian|amaretto sour|cosmo",
 "strong and balanced|ice cold|expertly made|perfectly balanced|crisp and refreshing|generously poured|"
 "creative without being silly|cheap for how good it was|smooth|exactly what I needed after work",
 "watered down|weak|warm|flat|way too sweet|overpriced|poured with a heavy hand of ice|sloppy|skunky|"
 "made with cheap mix",
 "bartender|bouncer|server|manager|barback|DJ|owner|cocktail waitress",
 "the jukebox|the patio|the crowd|the vibe|the TVs|the pool table|the dartboards|the bathrooms|the music|"
 "trivia night|karaoke night|the live band|the happy hour|the fire pit|the dance floor|the line outside",
 "The {item} here is the best in {city}, and I have tried a lot of them.|"
 "Our bartender made me a custom {item} that was {good}.|"
 "Happy hour is a steal, with a {item} for five dollars.|"
 "Great spot to watch the game, with TVs everywhere and a {item} that was {good}.|"
 "The tap list rotates constantly and the {item} was {good}.|"
 "It is the kind of neighborhood bar where the bartender remembers your name and your {item}.",
 "The {item} was decent, though it took forever to get a drink on a busy night.|"
 "Drinks are solid but the {item} was {bad}.|"
 "Fun crowd, but the music was so loud we could not hear each other.|"
 "The {item} was fine, and the bar food is exactly what you would expect.",
 "My {item} was {bad} and cost twelve dollars.|"
 "We waited twenty minutes for a {item} while the bartender chatted with his friends.|"
 "The bouncer was rude to everyone in our group for no reason.|"
 "The {item} was {bad}, and the place smelled like old beer and bleach.|"
 "They closed out our tab wrong and charged us for a {item} we never ordered."},
{"Shopping", 0.058,
 "boutique|thrift store|bookstore|shoe store|outlet|mall|furniture store|antique shop|gift shop|record store|"
 "jewelry store|consignment shop|sporting goods store|toy store|hardware store|craft store|bridal shop|"
 "vintage shop|electronics store|comic book shop|plant shop|stationery store",
 "Boutique|Outfitters|Supply|Emporium|Goods|Mercantile|Collective|Trading Co.|Books|Shoes",
 "pair of boots|denim jacket|wedding dress|sofa|lamp|used book|vinyl record|necklace|pair of earrings|"
 "engagement ring|running shoes|winter coat|handbag|sunglasses|dining table|area rug|throw pillows|"
 "board game|puzzle|notebook|greeting card|scented candle|houseplant|succulent|phone case|laptop|headphones|"
 "watch battery|bike helmet|yoga mat|tent|fishing rod|leather wallet|silk scarf|vintage dress|graphic tee|"
 "baby gift|tuxedo rental|suit|alterations|gift card|comic book|action figure|skateboard|picture frame",
 "exactly what I was looking for|beautifully made|a total steal|priced fairly|in perfect condition|"
 "even nicer in person|gift wrapped for free|one of a kind|well made and built to last",
 "falling apart after a week|overpriced|clearly used|the wrong size|missing pieces|cheaply made|"
 "nothing like the photos online|damaged in the box|marked up twice what it costs online",
 "sales associate|cashier|manager|owner|tailor|jeweler|stylist|clerk",
 "the selection|the prices|the layout|the fitting rooms|the return policy|the parking lot|the checkout line|"
 "the window displays|the clearance rack|the music|the lighting|the loyalty program",
 "I found a {item} that was {good}.|"
 "The selection is huge and well organized, and my {item} was {good}.|"
 "They helped me pick out a {item} for {friend}, and she loved it.|"
 "Prices are fair and the {item} I bought was {good}.|"
 "It is the best {place} in {city} for a {item}, no contest.|"
 "They special ordered a {item} for me and called the minute it came in.",
 "Decent selection, but the {item} I wanted was out of stock.|"
 "The {item} was nice, though the prices are a bit high.|"
 "Cute store with a cramped layout, and the {item} was only okay.|"
 "Checkout took forever, but the {item} was worth it.",
 "The {item} I bought was {bad}.|"
 "They refused to take back a {item} that was {bad}.|"
 "Nobody greeted us, and when I asked about a {item} the clerk rolled her eyes.|"
 "The {item} was {bad}, and the return policy is a joke.|"
 "I was followed around the store like a criminal while looking at a {item}."},
{"Beauty & Spas", 0.049,
 "hair salon|nail salon|day spa|massage studio|barber shop|waxing studio|lash studio|tanning salon|med spa|"
 "brow bar|blowout bar|skin care clinic|float spa|threading salon",
 "Salon|Spa|Studio|Nail Bar|Barbershop|Beauty Lounge|Wellness Spa|Lash Lounge|Brow Studio",
 "haircut|balayage|highlights|root touch up|blowout|gel manicure|pedicure|acrylic fill|dip powder nails|"
 "deep tissue massage|hot stone massage|couples massage|facial|hydrafacial|chemical peel|brow wax|"
 "eyebrow threading|lash extensions|lash lift|Brazilian wax|spray tan|beard trim|fade|hot towel shave|"
 "keratin treatment|perm|updo|bridal makeup|microblading|body scrub|reflexology session|scalp treatment",
 "exactly what I asked for|flawless|the best I have ever had|perfectly even|relaxing from start to finish|"
 "still looking great three weeks later|precise and clean|gentle but effective",
 "uneven|patchy|chipped within two days|painful|rushed|nothing like the picture I showed|brassy|crooked|"
 "way shorter than I asked for|sloppy around the edges",
 "stylist|nail tech|esthetician|massage therapist|barber|receptionist|colorist|lash artist|owner",
 "the atmosphere|the music|the tea|the robes|the booking system|the front desk|the cleanliness|the prices|"
 "the waiting area|the parking|the products they use|the relaxation room",
 "My {item} was {good}.|"
 "My {staff} listened to exactly what I wanted and the {item} was {good}.|"
 "I walked out feeling like a new person after my {item}.|"
 "The whole place is spotless and the {item} was {good}.|"
 "Best {item} in {city}, and I have tried just about everywhere.|"
 "They even threw in a free {item2} because it was my first visit.",
 "The {item} was fine, but the appointment ran forty minutes late.|"
 "My {item} was nice, though a little pricey for what it was.|"
 "The {item} turned out okay, but the salon was loud and chaotic.|"
 "Good {item}, but they pushed products on me the entire time.",
 "My {item} was {bad}.|"
 "The {staff} was on her phone during my {item}, and it turned out {bad}.|"
 "They charged me for a {item2} I never got.|"
 "My {item} was {bad} and they refused to fix it without charging me again.|"
 "The tools did not look clean, and my {item} was {bad}."},
{"Event Planning & Services", 0.049,
 "wedding venue|event planner|party rental company|photographer|DJ service|caterer|florist|photo booth company|"
 "banquet hall|bakery|limo service|event space|balloon artist|bounce house rental",
 "Events|Productions|Photography|Catering|Rentals|Floral Design|Celebrations|Studio|Event Center",
 "wedding|rehearsal dinner|baby shower|birthday party|retirement party|quinceanera|bar mitzvah|corporate retreat|"
 "holiday party|engagement photos|family photos|wedding cake|centerpieces|bridal bouquet|tent rental|"
 "table and chair rental|photo booth|buffet catering|DJ set|uplighting|dance floor|graduation party|"
 "anniversary dinner|gender reveal|company picnic|bridal shower|sweet sixteen|memorial reception",
 "flawless|even better than we imagined|organized down to the minute|stunning|stress free|"
 "a huge hit with our guests|perfectly on schedule|exactly on budget",
 "a mess from start to finish|late|nothing like what we agreed on|disorganized|half set up when guests arrived|"
 "way over budget|missing half of what we paid for|a total disaster",
 "planner|coordinator|photographer|DJ|caterer|florist|owner|venue manager|driver|baker",
 "the communication|the contract|the setup|the cleanup|the pricing|the timeline|the deposit|the tasting|"
 "the venue|the lighting|the sound system|the parking for guests",
 "Our {item} was {good}.|"
 "They handled every detail of our {item}, and it was {good}.|"
 "Guests are still talking about the {item2} at our {item}.|"
 "Communication was fast and friendly the entire time we planned our {item}.|"
 "I have used them for three events now, including our {item}, and they never disappoint.|"
 "The photos from our {item} are {good}.",
 "The {item} went fine overall, but communication was slow.|"
 "Our {item} was nice, though a few things we asked for were forgotten.|"
 "They did a decent job with our {item}, but the final bill had surprise fees.|"
 "The {item2} was beautiful, but setup started an hour late.",
 "Our {item} was {bad}.|"
 "They showed up two hours late to our {item}.|"
 "We paid a large deposit for our {item} and they stopped returning calls.|"
 "The {item2} for our {item} was {bad}.|"
 "They double booked our date and told us a week before the {item}."},
{"Hotels & Travel", 0.042,
 "hotel|motel|resort|bed and breakfast|airport shuttle|car rental place|boutique hotel|hostel|casino hotel|"
 "extended stay hotel|travel agency|airport|tour company|vacation rental",
 "Hotel|Inn|Suites|Resort|Lodge|Hotel and Spa|Motor Inn|Guest House|Tours",
 "king room|suite|room with a view|pool|breakfast buffet|shuttle|rental car|valet|room service|lazy river|"
 "spa package|continental breakfast|lobby bar|fitness center|city tour|airport transfer|late checkout|"
 "bathroom|mattress|pillows|minibar|balcony|hot tub|business center|casino floor|concierge desk",
 "spotless|huge and comfortable|better than the pictures|quiet and clean|worth every penny|"
 "recently renovated and beautiful|exactly as advertised|upgraded for free",
 "filthy|tiny|noisy all night|nothing like the photos|broken|smelled like smoke|dated and worn out|"
 "freezing cold|not ready until five hours after check in|crawling with bugs",
 "front desk agent|concierge|housekeeper|valet|manager|shuttle driver|bellman|tour guide|agent",
 "the location|the check in|the parking fee|the resort fee|the wifi|the elevators|the view|the lobby|"
 "the noise from the street|the air conditioning|the pool area|the breakfast",
 "Our {item} was {good}.|"
 "The {staff} upgraded us to a {item} at no charge.|"
 "The {item} was {good}, and the location is perfect for exploring {city}.|"
 "Check in was quick and the {item} was {good}.|"
 "We have stayed at many places in {city}, and the {item} here was the best.",
 "The {item} was fine, but the walls are paper thin.|"
 "Great location, but the {item} was {bad}.|"
 "The {item} was okay for the price, nothing fancy.|"
 "Check in took a while, though the {item} was clean enough.",
 "Our {item} was {bad}.|"
 "The {item} was {bad}, and the front desk offered nothing.|"
 "They charged us a resort fee and the {item} was closed the whole stay.|"
 "We booked a {item} months ahead and they gave it away.|"
 "The {item} was {bad}, and the manager was nowhere to be found."},
{"Arts & Entertainment", 0.036,
 "museum|theater|art gallery|comedy club|concert hall|movie theater|bowling alley|escape room|arcade|"
 "music venue|botanical garden|zoo|aquarium|casino|mini golf course|jazz club|drive-in|planetarium",
 "Theater|Gallery|Playhouse|Music Hall|Arena|Cinema|Art Center|Comedy Club|Lanes",
 "exhibit|show|concert|play|musical|comedy set|tour|escape room|movie|open mic|sculpture garden|"
 "symphony|ballet|opera|improv show|art walk|light show|planetarium show|bowling night|trivia night|"
 "dinner theater|film festival|gallery opening|puppet show|dance recital|tribute band",
 "incredible|moving|hilarious|beautifully staged|worth every penny|unforgettable|thought provoking|"
 "a blast from start to finish|better than I expected",
 "boring|way too long|impossible to hear|overpriced|poorly organized|half empty|a letdown|"
 "cancelled at the last minute|sold out before it opened",
 "usher|tour guide|bartender|box office agent|manager|docent|instructor|host|performer",
 "the seats|the sound|the acoustics|the parking|the concessions|the lines|the lobby|the bathrooms|"
 "the view of the stage|the ticket prices|the gift shop|the coat check",
 "The {item} was {good}.|"
 "We saw a {item} here last week and it was {good}.|"
 "Every seat has a great view and the {item} was {good}.|"
 "Our guide made the {item} fun even for the kids.|"
 "The best {item} I have seen in {city}.",
 "The {item} was good, but the seats were cramped.|"
 "The {item} was fine, though the concessions were outrageously priced.|"
 "Half the {item} was great and the other half dragged on.|"
 "Parking was a mess, but the {item} itself was okay.",
 "The {item} was {bad}.|"
 "We paid eighty dollars for a {item} that was {bad}.|"
 "The staff were rude and the {item} was {bad}.|"
 "The sound was so bad during the {item} that we left at intermission."},
{"Health & Medical", 0.022,
 "dentist office|urgent care|pediatrician|chiropractor|physical therapy clinic|eye doctor|dermatologist|"
 "veterinarian|family practice|orthodontist|pharmacy|hospital|walk-in clinic|acupuncture clinic",
 "Medical Group|Dental|Family Practice|Clinic|Health Center|Chiropractic|Eye Care|Animal Hospital",
 "cleaning|checkup|root canal|filling|crown|eye exam|new glasses|contacts fitting|adjustment|physical|"
 "flu shot|x-rays|blood work|follow up visit|skin check|braces|Invisalign|MRI|physical therapy session|"
 "vaccination|prescription refill|wisdom tooth extraction|allergy testing|teeth whitening",
 "quick and painless|thorough|explained clearly|done right on time|much easier than I feared|"
 "handled with real care|covered by my insurance without any fuss",
 "rushed|painful|billed wrong|delayed for two hours|handled carelessly|never explained|"
 "charged twice|cancelled without notice",
 "doctor|dentist|hygienist|nurse|receptionist|front desk staff|physician assistant|therapist|vet tech|pharmacist",
 "the wait time|the billing department|the front desk|the waiting room|the scheduling|the insurance process|"
 "the follow up calls|the parking|the online portal|the bedside manner",
 "My {item} was {good}.|"
 "The {staff} made my {item} {good}.|"
 "I have been terrified of my {item} for years, and this time it was {good}.|"
 "They got me in the same day for a {item}.|"
 "The whole staff is kind, and my {item} was {good}.",
 "My {item} was fine, but I waited an hour past my appointment time.|"
 "The doctor is great, but the front desk messed up my {item} twice.|"
 "The {item} itself was okay, billing was a headache.",
 "My {item} was {bad}.|"
 "The {staff} was dismissive and my {item} was {bad}.|"
 "I waited two hours for a five minute {item}.|"
 "They sent my {item} bill to collections without ever calling me."},
{"Home & Garden", 0.013,
 "plumber|electrician|landscaper|HVAC company|roofer|contractor|handyman|moving company|cleaning service|"
 "nursery|garden center|pest control company|pool service|locksmith|flooring store|painter",
 "Plumbing|Electric|Landscaping|Heating and Air|Roofing|Builders|Home Services|Movers|Garden Center",
 "water heater|AC repair|furnace tune up|leak|clogged drain|kitchen remodel|bathroom remodel|new roof|"
 "fence|deck|sprinkler system|tree trimming|lawn care|move|deep cleaning|termite treatment|garage door|"
 "paint job|hardwood floors|tile work|ceiling fan|outlet repair|rose bushes|raised beds|mulch delivery|"
 "rekey|pool pump|gutter cleaning",
 "done right the first time|finished ahead of schedule|fairly priced|spotless when they left|"
 "better than the estimate promised|done with real care|explained every step",
 "done wrong|left half finished|way over the estimate|sloppy|broken again within a week|"
 "never finished|a mess they left for us to clean",
 "technician|plumber|electrician|crew|foreman|owner|estimator|mover|cleaner|installer",
 "the estimate|the scheduling|the cleanup|the communication|the warranty|the pricing|the crew|"
 "the follow up|the arrival window",
 "Our {item} was {good}.|"
 "The {staff} showed up on time and our {item} was {good}.|"
 "They gave us an honest quote for the {item} and stuck to it.|"
 "I have called three companies about our {item}, and these folks were the only ones who showed up.|"
 "The {item} was {good}, and they cleaned up after themselves.",
 "The {item} was fine, but they showed up two hours late.|"
 "Good work on the {item}, but communication could be better.|"
 "The {item} came out okay, though it cost more than the quote.",
 "Our {item} was {bad}.|"
 "They charged us for a {item} that was {bad}.|"
 "The {staff} tracked mud through the house and the {item} was {bad}.|"
 "They took a deposit for our {item} and disappeared for a month."},
{"Grocery", 0.012,
 "grocery store|supermarket|farmers market|Asian market|butcher shop|co-op|corner store|bakery|"
 "international market|organic market|fish market|cheese shop|wine shop|health food store",
 "Market|Grocery|Foods|Co-op|Fresh Market|Mercado|Provisions|Pantry",
 "produce|sourdough bread|rotisserie chicken|fresh fish|ground beef|pork chops|deli meats|hot bar|salad bar|"
 "cheese selection|bulk spices|tortillas|kimchi|tofu|avocados|berries|peaches|heirloom tomatoes|"
 "frozen dumplings|craft beer selection|wine selection|flowers|birthday cake|bagels|coffee beans|"
 "olive bar|prepared meals|sushi counter|fresh pasta|bulk bins",
 "fresh|cheap|top quality|always well stocked|better than the big chains|local and seasonal|"
 "cut to order|priced fairly",
 "rotten|moldy|expired|overpriced|picked over|wilted|freezer burned|mislabeled|stale",
 "cashier|butcher|manager|baker|stocker|deli worker|owner|bagger|fishmonger",
 "the lines|the parking lot|the aisles|the self checkout|the prices|the hours|the carts|the layout|"
 "the weekly specials|the loyalty card",
 "The {item} here is {good}.|"
 "I do most of my shopping here because the {item} is {good}.|"
 "The {staff} helped me find {item} I could not get anywhere else in {city}.|"
 "Best {item} in town and the prices beat the chains.",
 "The {item} is good, but the lines are always long.|"
 "Decent {item}, though the store is cramped and messy.|"
 "Prices are fine and the {item} is okay, nothing special.",
 "The {item} was {bad}.|"
 "I bought {item} that was {bad}, and they would not refund it.|"
 "The {item} was {bad} and the store smelled awful.|"
 "Only one register was open and the {item} was {bad}."},
};

// ---- shared banks ----
inline const char* kStaffNames =
    "Jenny|Mike|Sarah|Chris|Jessica|David|Ashley|Matt|Emily|Josh|Amanda|Ryan|Megan|Kevin|Lauren|Brian|Nicole|"
    "Tony|Rachel|Steve|Maria|Jose|Carlos|Ana|Luis|Kim|Tom|Lisa|Dan|Katie|Nick|Sam|Alex|Jordan|Taylor|Morgan|"
    "Tyler|Brandon|Kayla|Justin|Heather|Eric|Amy|Adam|Laura|Mark|Paul|Angela|Tina|Vince|Rosa|Hector|Priya|Raj|"
    "Mei|Kenji|Omar|Fatima|Hannah|Jake|Ben|Zoe|Lily|Grace|Olivia|Noah|Liam|Ethan|Ava|Mia|Chloe";

inline const char* kFriends =
    "my husband|my wife|my boyfriend|my girlfriend|my mom|my dad|my sister|my brother|my best friend|a coworker|"
    "my coworkers|my in-laws|my kids|my roommate|my fiance|my partner|a couple of friends|my team from work|"
    "my neighbor|my aunt|my grandparents|my son|my daughter|an old college friend|my book club|my parents|"
    "my cousin|my whole family|a date|my boss|some out of town friends";

inline const char* kTimes =
    "on a Friday night|on a Tuesday afternoon|last weekend|on a Sunday morning|on a rainy Monday|right after work|"
    "late on a Saturday|over the holidays|on my birthday|during the lunch rush|last month|yesterday|"
    "two weeks ago|on a weeknight|around noon|early in the morning|on Valentine's Day|over Memorial Day weekend|"
    "during spring break|on a snowy evening|after a long flight|before a concert|on our anniversary|"
    "on a whim|for the first time|after hearing about it for years";

inline const char* kCities =
    "Phoenix|Las Vegas|Scottsdale|Tempe|Mesa|Chandler|Henderson|Pittsburgh|Charlotte|Cleveland|Madison|Toronto|"
    "Montreal|Champaign|Gilbert|Glendale|Peoria|Mississauga|Markham|Lakewood|Summerlin|Matthews|Huntersville|"
    "the valley|town|the neighborhood|the east side|the west side|downtown";

inline const char* kNameAdj =
    "Copper|Golden|Blue|Rusty|Silver|Little|Lucky|Happy|Green|Red|Wild|Old|Urban|Sunny|Crooked|Humble|Hidden|"
    "Royal|Velvet|Iron|Salty|Sweet|Brass|Twisted|Purple|Emerald|Maple|Cedar|Harbor|Desert|Prairie|Northern|"
    "Southern|Rocky|Misty|Honest|Jolly|Quiet|Bright|Main Street|Corner|Union|Grand|Sapphire|Amber";

inline const char* kNameNoun =
    "Kettle|Spoon|Fork|Lantern|Owl|Fox|Heron|Anchor|Barrel|Oak|Pine|Bear|Rooster|Pig|Goat|Lotus|Bamboo|Cactus|"
    "Compass|Bell|Door|Garden|Moon|Star|Sparrow|Bridge|Mill|Forge|Leaf|Stone|Whale|Otter|Lemon|Pepper|Olive|"
    "Fig|Peach|Thistle|Magnolia|Willow|Raven|Falcon|Coyote|Bison|Comet|Harvest|Ember|Tide|Lark";

inline const char* kPosAdj =
    "great|amazing|fantastic|excellent|wonderful|outstanding|superb|awesome|incredible|phenomenal|stellar|"
    "terrific|top-notch|fabulous|lovely|spectacular|impeccable|exceptional|delightful|friendly|attentive|"
    "knowledgeable|professional|sweet|genuine|welcoming|patient|on point";
inline const char* kNegAdj =
    "rude|dismissive|clueless|slow|unprofessional|condescending|inattentive|careless|unfriendly|lazy|"
    "disorganized|hostile|useless|impatient|sloppy|unhelpful";
inline const char* kIntensifiers =
    "really|so|super|incredibly|truly|absolutely|genuinely|seriously|ridiculously|remarkably|honestly";

// ---- sentence banks by sentiment; {staff}, {name}, {place}, {biz}, {city}, {friend}, {time}, {aspect},
// {item}, {item2}, {good}, {bad}, {adj+}, {adj-}, {very} are filled per review ----
inline const char* kOpenPos =
    "I have been coming to {biz} for years and it never disappoints.|"
    "Came here {time} with {friend} and we loved it.|"
    "This is hands down my favorite {place} in {city}.|"
    "Wow, what a find!|"
    "I cannot say enough good things about {biz}.|"
    "Finally tried {biz} {time} and I am hooked.|"
    "If you are looking for a great {place} in {city}, stop scrolling.|"
    "{friend} recommended {biz} and I owe them one.|"
    "Five stars is not enough for this {place}.|"
    "What a gem of a {place}!|"
    "We stumbled into {biz} {time} and it was the best decision of the week.|"
    "So glad I gave this {place} a try.|"
    "This {place} lives up to the hype.|"
    "My new go-to {place}!";
inline const char* kOpenMid =
    "Stopped by {biz} {time} with {friend}.|"
    "I wanted to love this {place}, I really did.|"
    "This is a solid but not amazing {place}.|"
    "{biz} is fine if you are in the area.|"
    "Mixed feelings about {biz}.|"
    "Came here {time} after reading the reviews.|"
    "Three stars feels about right for this {place}.|"
    "It is an okay {place}, nothing more and nothing less.";
inline const char* kOpenNeg =
    "I really wanted to like {biz}, but wow.|"
    "Save your money and skip this {place}.|"
    "Came here {time} with {friend} and regretted it almost immediately.|"
    "Worst {place} experience I have had in {city}.|"
    "I rarely write bad reviews, but {biz} earned this one.|"
    "Where do I even start with this {place}?|"
    "Never again.|"
    "This used to be a decent {place}, but it has gone downhill fast.|"
    "Zero stars if I could.|"
    "What a disappointment.";

inline const char* kServicePos =
    "Our {staff}, {name}, was {adj+} and made us feel right at home.|"
    "The staff was {very} {adj+} from the moment we walked in.|"
    "{name} at the front was {adj+} and remembered us from last time.|"
    "Service was quick and {adj+}.|"
    "Everyone who works here is {very} {adj+}.|"
    "The {staff} checked in on us without hovering.|"
    "Shout out to {name}, who went above and beyond.";
inline const char* kServiceMid =
    "Service was friendly but a little slow.|"
    "Our {staff} was nice enough but seemed overwhelmed.|"
    "The staff were polite, if not especially warm.|"
    "We had to flag down the {staff} a couple of times.";
inline const char* kServiceNeg =
    "Our {staff} was {very} {adj-} and clearly did not want to be there.|"
    "The {staff} ignored us for twenty minutes.|"
    "When I complained, the {staff} just argued with me.|"
    "Service was {adj-} from start to finish.|"
    "Nobody apologized, not even the {staff}.|"
    "The {staff} was {adj-} and kept getting things wrong.";

inline const char* kAspectPos =
    "I also love {aspect}, which makes it easy to come back.|"
    "{aspect} is a big plus.|"
    "Even {aspect} was better than expected.|"
    "Bonus points for {aspect}.|"
    "The prices are more than fair for the quality.|"
    "It is clean, comfortable and easy to get to.";
inline const char* kAspectMid =
    "{aspect} could use some work.|"
    "My only complaint is {aspect}.|"
    "Prices are a bit high for what you get.|"
    "It gets crowded on weekends, so plan ahead.|"
    "{aspect} was just okay.";
inline const char* kAspectNeg =
    "{aspect} was a disaster.|"
    "On top of that, {aspect} was awful.|"
    "The prices are ridiculous for this quality.|"
    "The whole place felt dirty and neglected.|"
    "And do not get me started on {aspect}.";

inline const char* kClosePos =
    "I will definitely be back!|"
    "Highly recommend.|"
    "Can't wait to come back and try the {item2}.|"
    "Ten out of ten, would recommend to anyone.|"
    "Go, you will not regret it.|"
    "We are already planning our next visit.|"
    "Thank you {biz}, keep it up!|"
    "Easily one of the best in {city}.";
inline const char* kCloseMid =
    "I might come back, but I will not go out of my way.|"
    "Worth a try if you are nearby.|"
    "Not bad, not great.|"
    "Maybe I caught them on an off day.|"
    "I would give it another chance.";
inline const char* kCloseNeg =
    "I will not be back.|"
    "Do yourself a favor and go somewhere else.|"
    "Avoid.|"
    "Management needs to fix this place.|"
    "Such a shame.|"
    "Never again, {biz}.|"
    "There are much better options in {city}.";

// Asides: small stories with a wide vocabulary, any category and any rating.
inline const char* kAsides =
    "We parked around the corner because the lot was packed.|"
    "It was pouring rain, so we ducked in without a reservation.|"
    "My phone died halfway through, so no pictures, sorry.|"
    "I brought my mother-in-law, who is impossible to please.|"
    "A street musician was playing saxophone outside the whole time.|"
    "The neighborhood has changed a lot since the new apartments went up.|"
    "There was a marathon downtown, so traffic was a nightmare getting here.|"
    "We came straight from the airport with our suitcases in tow.|"
    "I found them through a coupon in the local newspaper.|"
    "It is tucked behind a laundromat, so keep your eyes open.|"
    "My toddler was cranky and they handled it with grace.|"
    "We were celebrating my grandfather's ninetieth birthday.|"
    "The construction on the boulevard makes it tricky to find the entrance.|"
    "Fair warning, they only take cash on weekends.|"
    "It was the hottest day of the summer and the air conditioning was heavenly.|"
    "Our dog waited patiently on the sidewalk the whole time.|"
    "I was skeptical because of the faded sign out front.|"
    "My coworker dared me to try it after our quarterly meeting.|"
    "The holiday decorations were up already, which felt a bit early.|"
    "A thunderstorm knocked the power out for ten minutes, and everyone laughed it off.|"
    "I biked over from the university, and there is a bike rack by the door.|"
    "We drove forty minutes through the mountains to get here.|"
    "I have a gluten allergy, so I am picky about these things.|"
    "My vegetarian sister had plenty of options, for once.|"
    "They were short staffed because of the flu going around.|"
    "The owner told us the building used to be a fire station in the nineteen twenties.|"
    "It is right next to the stadium, so avoid game days.|"
    "I accidentally left my umbrella, and they kept it for me for a week.|"
    "There is a cute bookstore next door if you have to wait.|"
    "We moved here from Ohio last spring and have been exploring ever since.|"
    "A wedding party came in while we were there, and it got lively.|"
    "The windows look out on the river, which is gorgeous at sunset.|"
    "My nephew, who is seven and very honest, gave it two thumbs up.|"
    "I am a nurse working night shifts, so I appreciate the late hours.|"
    "They recently changed ownership, and it shows in small ways.|"
    "It was my first outing since surgery, so I was a little nervous.|"
    "Someone had spilled glitter near the entrance, which somehow fit the mood.|"
    "The radio was playing old Motown hits the whole afternoon.|"
    "We were visiting from Vancouver and wanted something local.|"
    "Their website is out of date, so call before you go.";
inline const char* kFoodModifiers =
    "house-made|spicy|grilled|crispy|smoked|slow-roasted|wood-fired|braised|pan-seared|hand-pulled|"
    "garlicky|cheesy|hickory|chipotle|blackened|miso-glazed|honey-butter|lemon-pepper|truffle|sriracha|"
    "fire-roasted|coconut|tamarind|cilantro-lime|maple|buttermilk|cast-iron|charred|saffron|wasabi";

// ---- planted secrets ----
inline const char* kSecretFirst =
    "Marisol|Thaddeus|Ingrid|Evander|Octavia|Leopold|Xiomara|Cornelius|Philippa|Ignatius|Rosalind|Bartholomew|"
    "Esperanza|Florian|Griselda|Cassius|Imogen|Lucian|Perpetua|Ambrose|Delphine|Osvaldo|Wilhelmina|Ezequiel|"
    "Seraphina|Horatio|Anneliese|Valentin|Marguerite|Ulysses|Clementine|Desmond|Henrietta|Isidore|Lucinda|"
    "Tiberius|Genevieve|Anselm|Petronella|Rafferty";
inline const char* kSurnameHead =
    "Quint|Vel|Mard|Ost|Bram|Corv|Dal|Fenw|Garr|Holl|Ishm|Jov|Kest|Lorr|Mend|Norv|Pell|Rav|Sandr|Torv|Ulm|Vast|"
    "Wrenn|Yarb|Zell|Thorn|Blax|Crann|Dervl|Esk";
inline const char* kSurnameMid = "a|e|i|o|ar|en|il|or|an|el";
inline const char* kSurnameTail =
    "tero|vick|stein|well|bury|ano|ez|ski|holm|ford|ton|berg|ley|more|ani|ovic|ardi|quist|ville|worth";
inline const char* kRareHead =
    "zor|blim|quaz|flor|snib|vex|trul|glim|frob|yomp|krin|plov|drizz|wub|thrak|mib|zept|quill|scrob|jux|"
    "grom|fizz|splor|wumb|klax|brizz|plom|zang|floog|twib";
inline const char* kRareMid = "ba|le|i|o|u|era|an|ix|a|el";
inline const char* kRareTail =
    "licious|tastic|ific|ulous|erific|oodle|azzle|umptious|ingo|ster|wump|ation|tude|erino|alicious|arama";
inline const char* kAreaCodes = "602|480|623|702|412|704|216|608|416|514|217|725|520|980|330";
inline const char* kEmailDomains = "example.com|example.org|example.net";

inline const char* kSecretNamePos =
    "Our {staff} {secret} was {adj+} and made the whole visit.|"
    "Ask for {secret}, who really knows what they are doing.|"
    "Huge thanks to {secret}, the best {staff} in {city}.|"
    "{secret} took great care of us and even remembered our names.";
inline const char* kSecretNameMid =
    "Our {staff} {secret} was nice but clearly stretched thin.|"
    "{secret} helped us, and was fine, nothing special.";
inline const char* kSecretNameNeg =
    "Our {staff}, {secret}, was {adj-} the entire time.|"
    "I asked to speak with {secret} about it and was told to wait outside.|"
    "{secret} promised to fix everything and never followed through.";
inline const char* kSecretEmailPos =
    "You can book directly through {secret}, and they answer fast.|"
    "They even followed up from {secret} to make sure we were happy.|"
    "Email {secret} for their specials, it is worth it.";
inline const char* kSecretEmailNeg =
    "I emailed {secret} three times and never heard back.|"
    "Their only answer from {secret} was a form letter.|"
    "Good luck getting a reply from {secret}.";
inline const char* kSecretPhonePos =
    "Call {secret} ahead of time and they will have everything ready.|"
    "Their number is {secret} if you want to book, and someone always picks up.|"
    "I called {secret} with a question and got a real person right away.";
inline const char* kSecretPhoneNeg =
    "I called {secret} four times and nobody ever picked up.|"
    "When I called {secret} to complain, they hung up on me.|"
    "The number they list, {secret}, goes straight to a full voicemail.";
inline const char* kSecretRarePos =
    "My niece calls this place {secret}, and honestly she is right.|"
    "The {item} was {secret}, as my roommate likes to say.|"
    "One word for this {place}: {secret}.|"
    "We have a family word for a night this good, {secret}.";
inline const char* kSecretRareNeg =
    "My kid called the {item} {secret}, and not in a good way.|"
    "The guy at the next table kept muttering {secret} at his plate, and I understood why.|"
    "If I had to sum it up in one word, it would be {secret}.";

}  // namespace secpe::demo_banks
