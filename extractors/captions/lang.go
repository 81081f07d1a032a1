package captions

import (
	"path"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
	"github.com/metaharvest/metaharvest/extractors/shared/langid"
)

// languageTag returns s as a language tag if it looks like one: an ISO
// 639 code of two or three letters, optionally with BCP 47 subtags
// ("en", "eng", "pt-BR", "zh-Hans"); lower-case primary subtag. "und"
// (undetermined) and anything else give "".
func languageTag(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", "-"))
	if s == "" || len(s) > 35 {
		return ""
	}
	parts := strings.Split(s, "-")
	if !letters(parts[0]) || len(parts[0]) < 2 || len(parts[0]) > 3 {
		return ""
	}
	for _, sub := range parts[1:] {
		if len(sub) < 1 || len(sub) > 8 || !alnum(sub) {
			return ""
		}
	}
	parts[0] = strings.ToLower(parts[0])
	if parts[0] == "und" || parts[0] == "mul" || parts[0] == "zxx" || parts[0] == "mis" {
		return ""
	}
	return strings.Join(parts, "-")
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}

// sidecarFlags are the words players put in sidecar names besides the
// language: clip.en.forced.srt, clip.eng.sdh.srt.
var sidecarFlags = map[string]bool{
	"forced": true, "sdh": true, "cc": true, "hi": true, "default": true, "full": true, "sub": true, "subs": true,
	"subtitles": true, "captions": true, "closedcaptions": true,
}

// sidecarLanguage reads the words between the media's base name and the
// caption's extension (clip.en.srt, clip.eng.forced.srt, clip.mp4.srt for
// clip.mp4): ok is false when a word is neither a language tag nor a flag
// nor the media's own extension, which means the file belongs to another
// media file (clip.part2.srt next to clip.mp4 and clip.part2.mp4).
func sidecarLanguage(media, caption string) (lang string, ok bool) {
	base := strings.TrimSuffix(media, path.Ext(media))
	mediaExt := strings.TrimPrefix(path.Ext(media), ".")
	middle := strings.TrimSuffix(strings.TrimPrefix(caption, base), path.Ext(caption))
	if middle == "" {
		return "", true
	}
	words := strings.Split(strings.TrimPrefix(middle, "."), ".")
	if len(words) > 4 {
		return "", false
	}
	if len(words) == 1 && strings.EqualFold(words[0], "hi") {
		return "hi", true // alone, "hi" is Hindi; beside a language, hearing impaired
	}
	for _, w := range words {
		switch {
		case w == "":
			return "", false
		case strings.EqualFold(w, mediaExt), sidecarFlags[strings.ToLower(w)]:
		case knownLanguage(w) && lang == "":
			lang = languageTag(w)
		default:
			return "", false
		}
	}
	return lang, true
}

// nameLanguage is the language a caption file's own name gives
// (movie.en.srt, movie.pt-BR.vtt): the word before the extension, when it
// is a known language code.
func nameLanguage(name string) string {
	stem := strings.TrimSuffix(name, path.Ext(name))
	w := strings.TrimPrefix(path.Ext(stem), ".")
	if knownLanguage(w) {
		return languageTag(w)
	}
	return ""
}

// iso639_1 lists the two-letter codes; iso639_2 the three-letter codes
// caption files and players use most (both B and T forms). Words of file
// names are only taken as languages when listed, so that movie.end.srt is
// not in the language "end".
const (
	iso639_1 = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
		"da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz " +
		"ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt " +
		"lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu " +
		"rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts " +
		"tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"
	iso639_2 = "afr alb amh ara arm aze baq bel ben bos bre bul bur cat ces chi cmn cym cze dan deu dut ell eng " +
		"epo est eus fao fas fil fin fra fre geo ger gla gle glg gre guj heb hin hrv hun hye ice ind isl ita " +
		"jpn kan kat kaz khm kor kur lao lat lav lit ltz mac mal mar may mkd mlt mon mri msa mya nep nld nno " +
		"nob nor pan per pol por pus ron rum rus sin slk slo slv som spa sqi srp swa swe tam tel tgk tgl tha " +
		"tur ukr urd uzb vie wel xho yid yor yue zho zul"
)

var knownCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(iso639_1 + " " + iso639_2) {
		m[c] = true
	}
	return m
}()

// knownLanguage reports whether w is a listed language code, optionally
// with a region or script ("pt-BR", "zh-Hans").
func knownLanguage(w string) bool {
	tag := languageTag(w)
	if tag == "" {
		return false
	}
	primary, _, _ := strings.Cut(tag, "-")
	return knownCodes[primary]
}

// LanguageTag is the language tag s names ("en", "pt-BR", "eng"), or ""
// when s does not look like one or is "und": for a language a user gives.
func LanguageTag(s string) string { return languageTag(s) }

// NameLanguage is the language a caption file's name gives
// (movie.en.srt: "en"), or "".
func NameLanguage(name string) string { return nameLanguage(name) }

// CaptionLanguage is the language of a caption and how sure it is.
type CaptionLanguage struct {
	Code       string
	Confidence float64 // 1 declared, 0 unknown, between: identified
	Identified bool    // from the words of the cues, not declared
}

// identifyText bounds the cue text the language is identified in.
const identifyText = 64 << 10

// LanguageOf is the language of cues: the one their file, name, stream or
// uploader declares (confidence 1); else the one langid identifies in
// their words when it is sure of it (whatlanggo's reliable threshold),
// with its confidence (at most 0.99); else unknown.
func LanguageOf(declared string, cues []extractors.Cue) CaptionLanguage {
	if declared != "" {
		return CaptionLanguage{Code: declared, Confidence: 1}
	}
	var b strings.Builder
	for _, c := range cues {
		if b.Len() >= identifyText {
			break
		}
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	l, ok := langid.Identify(doctext.Cut(b.String(), identifyText))
	if !ok || !l.Reliable {
		return CaptionLanguage{}
	}
	return CaptionLanguage{Code: l.Code, Confidence: min(l.Confidence, 0.99), Identified: true}
}
