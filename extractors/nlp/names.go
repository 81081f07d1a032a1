package nlp

import "strings"

// The word lists of the entity heuristics (entities.go), in lower case.

// titles come before a person's name ("President Emmanuel Macron"); the
// name is what follows them.
var titles = setOf(strings.Fields(`mr mrs ms miss mx dr prof professor sir dame lord lady president
	senator governor mayor chancellor minister premier king queen prince princess pope cardinal bishop
	archbishop rabbi imam reverend rev judge colonel col captain commodore
	capt lieutenant lt sergeant sgt commander admiral officer detective inspector sheriff ambassador
	chairman chairwoman coach vice prime deputy
	congressman congresswoman monsieur madame mademoiselle m mme mlle herr frau señor señora don doña`)...)

// orgSuffixes end the names of organisations.
var orgSuffixes = setOf(strings.Fields(`inc incorporated corp corporation co company companies ltd limited llc
	llp plc gmbh ag sa sas sarl spa bv nv ab oy as kk group holdings partners associates bank university
	college institute institution school academy foundation trust association society federation union
	council committee commission agency authority board bureau department ministry office service services
	party league club team fc united organization organisation network press times post journal news
	tribune herald gazette magazine records studios studio pictures films entertainment media labs
	laboratories hospital clinic museum gallery library church cathedral airlines airways motors systems
	technologies technology software industries enterprises consulting capital fund police army navy
	court parliament senate congress assembly government administration`)...)

// orgHeads start organisation names followed by "of" ("Bank of England").
var orgHeads = setOf(strings.Fields(`bank university college institute school academy ministry department
	board council church museum federation union league society association office house court
	commonwealth order`)...)

// orgFirst start organisation names in other languages ("Compagnie
// Nationale", "Banco Santander").
var orgFirst = setOf(strings.Fields(`compagnie société societe banque banco banca université universidad
	università universität universiteit institut instituto istituto fundación fondation stiftung
	ministère ministerio ministero gesellschaft groupe grupo gruppo editorial éditions verlag`)...)

// placeSuffixes end place names ("Hudson River", "Elysee Palace").
var placeSuffixes = setOf(strings.Fields(`river lake mountain mountains mount hills hill valley island islands
	isle peninsula bay gulf sea ocean coast beach desert forest park square street avenue road boulevard
	lane bridge airport station harbour harbor port canal falls county province state region district
	city town village palace castle tower cathedral abbey plaza heights springs`)...)

// placeHeads start place names ("Mount Everest", "Lake Geneva").
var placeHeads = setOf(strings.Fields(`mount mt lake cape gulf bay isle port fort lac mont monte rio sierra
	costa playa`)...)

// ofHeads may be followed by "of" inside a name.
var ofHeads = func() map[string]bool {
	m := setOf(strings.Fields(`republic kingdom state states commonwealth gulf bay sea isle islands cape
		city university bank institute department ministry board council museum college school academy
		church federation union league society association office house court duke duchess queen king
		prince princess president secretary order`)...)
	return m
}()

// connectors may stand inside a name between capitalised words.
var connectors = setOf("of", "de", "del", "della", "di", "da", "do", "dos", "das", "du", "des", "la", "le",
	"van", "von", "der", "den", "ter", "bin", "ibn", "al", "el", "&")

// knownAcronyms are organisations written as acronyms.
var knownAcronyms = setOf(strings.Fields(`un eu nato fbi cia nsa nasa esa bbc cnn nbc cbs abc pbs npr
	who imf wto oecd opec unesco unicef unhcr fifa uefa ioc ibm hp amd ibm bmw vw nhs mit ucla nyu cern
	interpol icrc msf aclu naacp sec fda epa faa ftc fcc irs doj dod mi5 mi6 kgb fsb gop anc ira plo
	afp ap reuters asean nafta mercosur`)...)

// notOrgAcronyms are words in capitals that name no organisation.
var notOrgAcronyms = setOf(strings.Fields(`i ii iii iv v vi vii viii ix x xi xii ok tv dvd cd usb gps pdf
	html xml json csv api url uri http https www faq am pm id ps nb eta diy hr it pr vip asap rsvp ai ufo
	dna rna ceo cfo cto coo vp md phd mba ba bsc msc ma mp dj gdp gnp vat tax covid hiv aids uk us usa uae
	ussr eu usd eur gbp jpy km kg mb gb tb kb hz fps hd uhd sd hdr rgb cmyk jpeg jpg png gif mp3 mp4 avi
	mov wav srt vtt a b c d e f g h j k l m n o p q r s t u w y z re fw fwd cc bcc no nr tel fax st`)...)

// placeAcronyms are places written as acronyms.
var placeAcronyms = map[string]string{"uk": "United Kingdom", "us": "United States", "usa": "United States",
	"uae": "United Arab Emirates", "ussr": "Soviet Union", "drc": "Democratic Republic of the Congo"}

// extraPlaces are places the gazetteer does not hold (continents, seas,
// regions across borders).
var extraPlaces = []string{"America", "England", "Scotland", "Wales", "Northern Ireland", "Europe", "Asia", "Africa", "North America", "South America", "Latin America",
	"Central America", "Antarctica", "Oceania", "Australasia", "Middle East", "Near East", "Far East",
	"Caribbean", "Scandinavia", "Balkans", "Baltics", "Siberia", "Sahara", "Himalayas", "Alps", "Andes",
	"Rockies", "Mediterranean", "Atlantic", "Pacific", "Arctic", "Silicon Valley", "Wall Street",
	"Gaza", "West Bank", "Kashmir", "Tibet", "Crimea", "Catalonia", "Bavaria", "Tuscany", "Provence",
	"Normandy", "Brittany", "Lapland", "Patagonia", "Amazonia", "Sahel", "Maghreb", "Levant", "Persian Gulf",
	"Hong Kong", "Macau", "Taiwan", "Puerto Rico", "Greenland"}

// genericPlaceWords are names of regions in the gazetteer that are common
// words: never a place on their own.
var genericPlaceWords = setOf(strings.Fields(`central north south east west northern southern eastern western
	capital federal centre center coast highlands lakes valley delta upper lower greater new saint santa
	san interior islands island mountain river metropolitan city district region province state territory
	national royal grand la le el al of the`)...)

// givenNames are common first names across languages: a capitalised pair
// starting with one is a person.
var givenNames = setOf(strings.Fields(`aaron abdul abigail adam adrian ahmed aisha alan albert alberto
	alejandro alex alexander alexandra alexandre alfred ali alice alicia amanda amber amelia amy ana andrea
	andreas andrew andré andy angela angelika ann anna anne annie anthony antoine antonio arjun arthur ashley
	barack barbara ben benjamin bernard betty bill billy bob bobby boris brandon brenda brian bruce bruno
	carl carla carlos carmen carol caroline catherine charles charlie charlotte chen chris christian
	christina christine christopher claire claude claudia colin craig cynthia dan daniel daniela david
	deborah denis dennis diana diane diego dmitri dominic donald donna doris dorothy douglas edward elena
	elizabeth ellen emily emma emmanuel eric erik eva evelyn fatima felix fernando fiona florian frances
	francesca francesco francis francisco françois frank franz fred frederick gabriel gabriela gary george
	georg gerald gerhard gloria grace greg gregory hans hannah harold harry heather heinz helen helena
	henry hiroshi hugo ian igor ingrid isaac isabel isabella ivan jack jacob jacques james jan jane janet
	jason javier jean jeff jeffrey jennifer jeremy jerry jessica jim jimmy joan joe johann johannes john
	jonathan jorge jose josé joseph joshua josé juan judith julia julian julie justin karen karl kate
	katherine kathleen keith kelly kenneth kevin kim klaus kumar larry laura lauren lee leo leon linda lisa
	liu lorenzo louis louise lucas lucy luis luke manuel marc marco margaret maria marie mario mark martha
	martin mary matthew maurice max maria mei melissa michael michel michelle miguel mike mohammed
	muhammad nancy natalia natalie nathan nicholas nicola nicolas nikolai noah olga oliver olivia omar
	oscar pablo pamela patricia patrick paul paula pedro peter philip philippe pierre priya rachel rafael
	rahul raj ralph ray raymond rebecca richard rick rita robert roberto robin roger ronald rosa rose ruth
	ryan sam samantha samuel sandra sara sarah scott sean sebastian sergei sharon simon sofia sophie
	stefan stephanie stephen steve steven susan tanaka teresa thomas tim timothy tom tony ursula vanessa
	victor victoria vincent vladimir walter wang wei william wolfgang xavier yuki yusuf zhang angela
	olaf emmanuel xi narendra vladimir recep joe kamala rishi keir giorgia olaf justin jacinda shinzo
	fumio volodymyr elon jeff bill mark warren satya sundar tim`)...)

// knownOrganizations are organisations whose names carry no sign of being
// one (no suffix, no acronym).
var knownOrganizations = setOf(
	"microsoft", "google", "alphabet", "apple", "amazon", "meta", "facebook", "instagram", "whatsapp",
	"twitter", "netflix", "tesla", "spacex", "intel", "nvidia", "oracle", "cisco", "adobe", "salesforce",
	"samsung", "sony", "panasonic", "toyota", "honda", "nissan", "volkswagen", "mercedes-benz", "daimler",
	"siemens", "bosch", "philips", "nokia", "ericsson", "huawei", "alibaba", "tencent", "baidu", "xiaomi",
	"boeing", "airbus", "lockheed martin", "exxonmobil", "chevron", "shell", "walmart", "ikea", "nestlé",
	"nestle", "unilever", "coca-cola", "pepsico", "mcdonald's", "starbucks", "nike", "adidas", "disney",
	"warner bros", "paramount", "universal", "spotify", "uber", "airbnb", "paypal", "visa", "mastercard",
	"goldman sachs", "morgan stanley", "jpmorgan", "hsbc", "barclays", "deutsche bank", "ubs", "reuters",
	"bloomberg", "wikipedia", "mozilla", "linux foundation", "red hat", "canonical", "debian", "openai",
	"greenpeace", "amnesty international", "red cross", "world bank", "european commission",
	"european union", "united nations", "european parliament", "white house", "kremlin", "pentagon",
	"scotland yard", "the guardian", "new york times", "washington post", "le monde")

// nameStarters are common words that begin names of places and
// organisations ("West India", "New York", "Great Britain").
var nameStarters = setOf(strings.Fields(`north south east west northern southern eastern western central upper
	lower greater new old saint santa san great`)...)
