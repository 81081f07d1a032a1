package doctext

import (
	"strings"
	"unicode"

	"golang.org/x/text/encoding/charmap"
)

// The single-byte encodings Detect tells apart besides Latin-1 and
// Windows-1252: the code pages text files, subtitles and CSV exports of
// Windows tools were written in before UTF-8, by script.
const (
	Windows1250 = "windows-1250" // Central European: Polish, Czech, Slovak, Hungarian, Croatian...
	ISO8859_2   = "iso-8859-2"   // Central European, the ISO layout
	Windows1251 = "windows-1251" // Cyrillic: Russian, Ukrainian, Bulgarian, Serbian...
	KOI8R       = "koi8-r"       // Cyrillic, Russian Unix files
	Windows1253 = "windows-1253" // Greek
	ISO8859_7   = "iso-8859-7"   // Greek, the ISO layout
	Windows1254 = "windows-1254" // Turkish
)

// The non-ASCII letters of the languages written in each code page, lower
// case. A text in the right code page uses letters of one of its
// languages; decoded with a wrong one, its accented letters become letters
// no single language uses together, symbols inside words, or capitals in
// the middle of words.
var (
	westernLanguages = []string{
		"àâæçéèêëîïôœùûüÿ", // French
		"äöüß",             // German
		"áéíñóúü",          // Spanish
		"áâãàçéêíóôõú",     // Portuguese
		"àèéìíîòóùú",       // Italian
		"éëïóöüèá",         // Dutch
		"æøåé",             // Danish, Norwegian
		"åäöé",             // Swedish
		"äöåšž",            // Finnish
		"áðéíóúýþæö",       // Icelandic
		"àçèéíïòóúü",       // Catalan
	}
	centralLanguages = []string{
		"ąćęłńóśźż",         // Polish
		"áčďéěíňóřšťúůýž",   // Czech
		"áäčďéíĺľňóôŕšťúýž", // Slovak
		"áéíóöőúüű",         // Hungarian
		"čćđšž",             // Croatian, Bosnian, Serbian in Latin script
		"čšž",               // Slovenian
		"ăâîşţ",             // Romanian (the cedilla forms these code pages have)
		"äöüß",              // German
	}
	cyrillicLanguages = []string{
		"абвгдеёжзийклмнопрстуфхцчшщъыьэюя", // Russian
		"абвгґдеєжзиіїйклмнопрстуфхцчшщьюя", // Ukrainian
		"абвгдежзийклмнопрстуфхцчшщъьюя",    // Bulgarian
		"абвгдђежзијклљмнњопрстћуфхцчџш",    // Serbian
		"абвгдеёжзійклмнопрстуўфхцчшыьэюя",  // Belarusian
		"абвгдѓежзѕијклљмнњопрстќуфхцчџш",   // Macedonian
	}
	greekLanguages   = []string{"αβγδεζηθικλμνξοπρστυφχψωςάέήίόύώϊϋΐΰ"}
	turkishLanguages = []string{"çğıöşüâîû"}
)

// singleByteCandidates are tried in this order; on a tie the first wins,
// so a text that reads alike in several (German umlauts are at the same
// bytes in Windows-1250 and 1252) is Western, as before these were told
// apart.
var singleByteCandidates = []singleByteCandidate{
	newSingleByteCandidate(Windows1252, charmap.Windows1252, westernLanguages),
	newSingleByteCandidate(Windows1250, charmap.Windows1250, centralLanguages),
	newSingleByteCandidate(ISO8859_2, charmap.ISO8859_2, centralLanguages),
	newSingleByteCandidate(Windows1251, charmap.Windows1251, cyrillicLanguages),
	newSingleByteCandidate(KOI8R, charmap.KOI8R, cyrillicLanguages),
	newSingleByteCandidate(Windows1253, charmap.Windows1253, greekLanguages),
	newSingleByteCandidate(ISO8859_7, charmap.ISO8859_7, greekLanguages),
	newSingleByteCandidate(Windows1254, charmap.Windows1254, turkishLanguages),
}

// singleByteCandidate is a code page with, for each byte, the class of
// the character it decodes to and its script, and for each byte from 0x80
// which of the code page's languages have that character as a letter (a
// bit per language).
type singleByteCandidate struct {
	name   string
	cm     *charmap.Charmap
	class  [256]charClass
	script [256]uint8
	inLang [128]uint32
	langs  int
}

// charClass is what a decoded character is, as score looks at it.
type charClass uint8

const (
	clsLetter    charClass = 1 << iota
	clsUpper               // a capital letter
	clsLower               // a small letter
	clsDigit               // a digit
	clsUndefined           // no character (U+FFFD) or a control code
	clsWordPunct           // wordPunctuation
	clsSigma               // the Greek final sigma
)

func newSingleByteCandidate(name string, cm *charmap.Charmap, langs []string) singleByteCandidate {
	c := singleByteCandidate{name: name, cm: cm, langs: len(langs)}
	for b := 0; b < 256; b++ {
		r := cm.DecodeByte(byte(b))
		var cl charClass
		switch {
		case b >= 0x80 && (r == '\uFFFD' || unicode.IsControl(r)):
			cl = clsUndefined
		case unicode.IsLetter(r):
			cl = clsLetter
			if unicode.IsUpper(r) {
				cl |= clsUpper
			}
			if unicode.IsLower(r) {
				cl |= clsLower
			}
			if r == 'ς' {
				cl |= clsSigma
			}
		case unicode.IsDigit(r):
			cl = clsDigit
		case strings.ContainsRune(wordPunctuation, r):
			cl = clsWordPunct
		}
		c.class[b], c.script[b] = cl, scriptOf(r)
		if b < 0x80 || cl&clsLetter == 0 {
			continue
		}
		for l, letters := range langs {
			if strings.ContainsRune(letters, unicode.ToLower(r)) {
				c.inLang[b-0x80] |= 1 << l
			}
		}
	}
	return c
}

// Scores of what a byte from 0x80 decodes to (see score).
const (
	scoreLetterOfLanguage = 1  // a letter of the language
	scoreForeignLetter    = -3 // a letter the language does not have
	scoreUndefined        = -10
	scoreSymbolInWord     = -5 // "³" in "ma³y": not a character of the text
	scoreSymbolAtWord     = -2 // "¶νεμοι": a symbol against a word
	scoreCapitalInWord    = -1 // "рТЙЧЕФ": capitals inside words
	scoreCapitalAfterLow  = -2 // and right after a small letter
	scoreSigmaInWord      = -5 // the Greek final sigma followed by a letter
	scoreMixedScripts     = -5 // "adэm": letters of two scripts in one word
)

// maxScoredBytes bounds the bytes from 0x80 score reads: a few thousand
// characters tell a code page, and a head of 64 KiB outside ASCII would
// cost tens of milliseconds against every candidate.
const maxScoredBytes = 4096

// wordPunctuation are the characters from 0x80 that text puts against
// words: quotes, apostrophes, dashes, the soft hyphen, "°C", "Brand™".
const wordPunctuation = "’‘´·\u00ad“”„‚«»‹›¿¡°™®©…–—•"

// scriptOf tells Latin, Cyrillic and Greek letters apart (0 for others).
func scriptOf(r rune) uint8 {
	switch {
	case r < 0x80 || unicode.Is(unicode.Latin, r):
		return 1
	case unicode.Is(unicode.Cyrillic, r):
		return 2
	case unicode.Is(unicode.Greek, r):
		return 3
	}
	return 0
}

// score rates how plausible b reads in the code page: the per-character
// penalties plus the letters' score for the best of its languages.
func (c *singleByteCandidate) score(b []byte) int {
	var penalty int
	var letters [128]int // occurrences of each letter from 0x80 that counts
	scored := 0
	for i, x := range b {
		if x < 0x80 {
			continue
		}
		if scored++; scored > maxScoredBytes {
			break
		}
		prev, next := byte(' '), byte(' ')
		if i > 0 {
			prev = b[i-1]
		}
		if i+1 < len(b) {
			next = b[i+1]
		}
		cl, pc, nc := c.class[x], c.class[prev], c.class[next]
		switch {
		case cl&clsUndefined != 0:
			penalty += scoreUndefined
		case cl&clsLetter != 0 && (pc|nc)&clsDigit != 0:
			// "£825" in Windows-1252 is "Ł825" in 1250: a letter against a
			// digit says nothing of a language.
		case cl&clsLetter != 0:
			letters[x-0x80]++
			if cl&clsUpper != 0 && pc&clsLetter != 0 {
				penalty += scoreCapitalInWord
				if pc&clsLower != 0 {
					penalty += scoreCapitalAfterLow
				}
			}
			if cl&clsSigma != 0 && nc&clsLetter != 0 {
				penalty += scoreSigmaInWord
			}
			if (pc&clsLetter != 0 && c.script[prev] != c.script[x]) || (nc&clsLetter != 0 && c.script[next] != c.script[x]) {
				penalty += scoreMixedScripts
			}
		case cl&clsWordPunct != 0:
		case pc&clsLetter != 0 && nc&clsLetter != 0:
			penalty += scoreSymbolInWord
		case pc&clsLetter != 0 || nc&clsLetter != 0:
			penalty += scoreSymbolAtWord
		}
		// A capital after this one: checked here when this byte is the
		// small letter and the capital is ASCII (the loop skips it).
		if next < 0x80 && nc&clsUpper != 0 && cl&clsLower != 0 {
			penalty += scoreCapitalInWord + scoreCapitalAfterLow
		}
	}
	best := 0
	for l := 0; l < c.langs; l++ {
		s := 0
		for x, n := range letters {
			if n == 0 {
				continue
			}
			if c.inLang[x]&(1<<l) != 0 {
				s += n * scoreLetterOfLanguage
			} else {
				s += n * scoreForeignLetter
			}
		}
		if l == 0 || s > best {
			best = s
		}
	}
	return penalty + best
}

// guessSingleByte returns the code page of Detect's candidates whose
// decoding of head reads most like text in one of its languages.
func guessSingleByte(head []byte) string {
	best, bestScore := Windows1252, 0
	for i := range singleByteCandidates {
		c := &singleByteCandidates[i]
		if s := c.score(head); i == 0 || s > bestScore {
			best, bestScore = c.name, s
		}
	}
	return best
}

// singleByteCharmap returns the charmap of a name guessSingleByte returns
// (nil for others).
func singleByteCharmap(name string) *charmap.Charmap {
	for i := range singleByteCandidates {
		if singleByteCandidates[i].name == name {
			return singleByteCandidates[i].cm
		}
	}
	return nil
}
