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

// singleByteCandidate is a code page with, for each byte from 0x80, the
// character it decodes to and which of the code page's languages have
// that character as a letter (a bit per language).
type singleByteCandidate struct {
	name   string
	cm     *charmap.Charmap
	high   [128]rune
	inLang [128]uint32
	langs  int
}

func newSingleByteCandidate(name string, cm *charmap.Charmap, langs []string) singleByteCandidate {
	c := singleByteCandidate{name: name, cm: cm, langs: len(langs)}
	for i := range c.high {
		r := cm.DecodeByte(byte(0x80 + i))
		c.high[i] = r
		for l, letters := range langs {
			if unicode.IsLetter(r) && strings.ContainsRune(letters, unicode.ToLower(r)) {
				c.inLang[i] |= 1 << l
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

// wordPunctuation are the characters from 0x80 that text puts against
// words: quotes, apostrophes, dashes, the soft hyphen, "°C", "Brand™".
const wordPunctuation = "’‘´·\u00ad“”„‚«»‹›¿¡°™®©…–—•"

// scriptOf tells Latin, Cyrillic and Greek letters apart (0 for others).
func scriptOf(r rune) int {
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
	var letterScore [32]int
	at := func(i int) rune {
		if i < 0 || i >= len(b) {
			return ' '
		}
		if b[i] < 0x80 {
			return rune(b[i])
		}
		return c.high[b[i]-0x80]
	}
	for i, x := range b {
		if x < 0x80 {
			continue
		}
		r := c.high[x-0x80]
		prev, next := at(i-1), at(i+1)
		switch {
		case r == '\uFFFD' || unicode.IsControl(r):
			penalty += scoreUndefined
		case unicode.IsLetter(r) && (unicode.IsDigit(prev) || unicode.IsDigit(next)):
			// "£825" in Windows-1252 is "Ł825" in 1250: a letter against a
			// digit says nothing of a language.
		case unicode.IsLetter(r):
			for l := 0; l < c.langs; l++ {
				if c.inLang[x-0x80]&(1<<l) != 0 {
					letterScore[l] += scoreLetterOfLanguage
				} else {
					letterScore[l] += scoreForeignLetter
				}
			}
			if unicode.IsUpper(r) && unicode.IsLetter(prev) {
				penalty += scoreCapitalInWord
				if unicode.IsLower(prev) {
					penalty += scoreCapitalAfterLow
				}
			}
			if r == 'ς' && unicode.IsLetter(next) {
				penalty += scoreSigmaInWord
			}
			if sc := scriptOf(r); (unicode.IsLetter(prev) && scriptOf(prev) != sc) || (unicode.IsLetter(next) && scriptOf(next) != sc) {
				penalty += scoreMixedScripts
			}
		case strings.ContainsRune(wordPunctuation, r):
		case unicode.IsLetter(prev) && unicode.IsLetter(next):
			penalty += scoreSymbolInWord
		case unicode.IsLetter(prev) || unicode.IsLetter(next):
			penalty += scoreSymbolAtWord
		}
		// A capital after this one: checked here when this byte is the
		// small letter and the capital is ASCII (the loop skips it).
		if next < 0x80 && unicode.IsUpper(next) && unicode.IsLower(r) {
			penalty += scoreCapitalInWord + scoreCapitalAfterLow
		}
	}
	best := letterScore[0]
	for l := 1; l < c.langs; l++ {
		best = max(best, letterScore[l])
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
