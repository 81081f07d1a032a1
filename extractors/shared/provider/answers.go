package provider

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// The results of the tasks beside the labelling ones (see the package doc
// for their JSON), and what of them is kept: every value a provider
// answers is checked here before an extractor stores it, so that an answer
// out of range, too long or of the wrong shape becomes nothing (or a
// recorded error) rather than bad data.

// Bounds of what is kept of an answer.
const (
	// MaxWords bounds the words of one speech_to_text answer: a minute of
	// fast speech is about 200.
	MaxWords = 20000
	// MaxLogos bounds the logos of one answer.
	MaxLogos = 500
	// MaxPhrases and MaxEntities bound the lists of an nlp answer.
	MaxPhrases  = 50
	MaxEntities = 200
	// maxWordText bounds one word (a provider may give a short phrase).
	maxWordText = 100
	// maxSource bounds the name of the service an answer says it comes
	// from.
	maxSource = 64
)

// Source is the service an answer says it comes from ("source": its words,
// cut to 64 characters); "" when it says nothing.
func Source(s string) string { return CleanText(s, maxSource) }

// Transcript is the result of speech_to_text.
type Transcript struct {
	// Language is the BCP 47 code of what was heard ("en", "pt-BR").
	Language string `json:"language"`
	Words    []Word `json:"words"`
	Source   string `json:"source"`
}

// Word is one word heard, times in seconds from the start of the clip.
type Word struct {
	Text       string   `json:"text"`
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
	Confidence *float64 `json:"confidence"`
}

// TimedWord is a word worth storing: its times are set and checked.
type TimedWord struct {
	Text       string
	Start, End float64
	Confidence float64 // 0 when not given
}

// Clean returns the language (a BCP 47 code, or "") and the words worth
// storing, in time order: a text (printable, at most 100 characters),
// start and end given, finite, not negative, within duration seconds (a
// second more for the provider's rounding, then brought within it; 0: not
// known), end not before start, a confidence within 0..1 when given; at
// most MaxWords.
func (t Transcript) Clean(duration float64) (string, []TimedWord) {
	var out []TimedWord
	bound, clamp := 0.0, math.Inf(1) // no bound when the duration is not known
	if duration > 0 {
		bound, clamp = duration+1, duration
	}
	for _, w := range t.Words {
		text := CleanText(w.Text, maxWordText)
		if text == "" || w.Start == nil || w.End == nil || !okTime(w.Start, bound) || !okTime(w.End, bound) || *w.End < *w.Start {
			continue
		}
		conf := 0.0
		if w.Confidence != nil {
			if !(*w.Confidence >= 0 && *w.Confidence <= 1) {
				continue
			}
			conf = *w.Confidence
		}
		out = append(out, TimedWord{Text: text, Start: min(*w.Start, clamp), End: min(*w.End, clamp), Confidence: conf})
		if len(out) == MaxWords {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return Language(t.Language), out
}

var bcp47 = regexp.MustCompile(`^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8}){0,3}$`)

// Language is s when it is a BCP 47 language code (a two or three letter
// language, then up to three subtags), its language lower-cased; else "".
func Language(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 35 || !bcp47.MatchString(s) {
		return ""
	}
	lang, rest, _ := strings.Cut(s, "-")
	if rest == "" {
		return strings.ToLower(lang)
	}
	return strings.ToLower(lang) + "-" + rest
}

// Recognition is the result of recognition: labels (objects, scenes,
// activities: the tags of an item) and people recognised by name, each at
// the time of the picture it was seen in.
type Recognition struct {
	Labels []Label `json:"labels"`
	People []Label `json:"people"`
	Source string  `json:"source"`
}

// Clean returns the labels and people worth storing (Labels.Clean each).
func (r Recognition) Clean(maxTime float64) (labels, people []Label) {
	return Labels{Labels: r.Labels}.Clean(maxTime), Labels{Labels: r.People}.Clean(maxTime)
}

// Size returns the number of entries of the answer, to refuse one too long
// to be an answer to what was sent.
func (r Recognition) Size() int { return len(r.Labels) + len(r.People) }

// LogoAnswer is the result of logos.
type LogoAnswer struct {
	Logos  []Logo `json:"logos"`
	Source string `json:"source"`
}

// Logo is one logo found in a picture.
type Logo struct {
	Name       string   `json:"name"`
	Confidence *float64 `json:"confidence"`
	Time       *float64 `json:"time"`
	// Box is where, as fractions (0..1) of the picture's width and height
	// from its top left corner.
	Box *Box `json:"box"`
}

// Box is a rectangle in fractions of a picture.
type Box struct {
	Left   float64 `json:"left"`
	Top    float64 `json:"top"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// boxSlack tolerates a provider's rounding at the picture's edges.
const boxSlack = 0.001

// ok says whether the box lies in the picture and is not empty.
func (b *Box) ok() bool {
	for _, v := range []float64{b.Left, b.Top, b.Width, b.Height} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1+boxSlack {
			return false
		}
	}
	return b.Width > 0 && b.Height > 0 && b.Left+b.Width <= 1+boxSlack && b.Top+b.Height <= 1+boxSlack
}

// Quadrilateral is the box's corners, clockwise from the top left, each
// [x, y] in fractions of the picture.
func (b *Box) Quadrilateral() [][]float64 {
	r := func(v float64) float64 { return math.Round(min(v, 1)*1e4) / 1e4 }
	l, t, rt, bt := r(b.Left), r(b.Top), r(b.Left+b.Width), r(b.Top+b.Height)
	return [][]float64{{l, t}, {rt, t}, {rt, bt}, {l, bt}}
}

// Size words the box's share of the picture as the reference's logo sizes:
// tiny (under 1%), small (under 5%), medium (under 20%), large.
func (b *Box) Size() string {
	switch a := b.Width * b.Height; {
	case a < 0.01:
		return "tiny"
	case a < 0.05:
		return "small"
	case a < 0.20:
		return "medium"
	}
	return "large"
}

// Clean returns the logos worth storing: a name, a confidence within 0..1
// (absent: 0), a time within maxTime seconds (0: no bound); a box that is
// not inside the picture is dropped, not the logo. At most MaxLogos, the
// most confident first.
func (a LogoAnswer) Clean(maxTime float64) []Logo {
	var out []Logo
	for _, l := range a.Logos {
		l.Name = CleanText(l.Name, maxLabelName)
		if l.Name == "" || (l.Confidence != nil && !(*l.Confidence >= 0 && *l.Confidence <= 1)) || !okTime(l.Time, maxTime) {
			continue
		}
		if l.Box != nil && !l.Box.ok() {
			l.Box = nil
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return conf(out[i].Confidence) > conf(out[j].Confidence) })
	if len(out) > MaxLogos {
		out = out[:MaxLogos]
	}
	return out
}

func conf(c *float64) float64 {
	if c == nil {
		return 0
	}
	return *c
}

// NSFWAnswer is the result of nsfw: one verdict per picture sent, in the
// order sent.
type NSFWAnswer struct {
	Results []NSFWResult `json:"results"`
	Source  string       `json:"source"`
}

// NSFWResult is the verdict on one picture.
type NSFWResult struct {
	// NSFWScore is the probability of adult content, 0 safe to 1 unsafe.
	NSFWScore *float64 `json:"nsfw_score"`
	// Categories are probabilities by category; only the categories the
	// caller knows are kept.
	Categories map[string]*float64 `json:"categories"`
}

// NSFWVerdict is a verdict worth storing.
type NSFWVerdict struct {
	// OK is false when the provider gave no usable score for the picture.
	OK         bool
	Score      float64
	Categories map[string]float64 // nil when none was given
}

// Clean returns one verdict per picture of the n sent: a score within 0..1
// (else the picture has no verdict, OK false), and of the categories those
// named in known (compared in lower case) with a probability within 0..1.
// An answer with another number of results is an error: its verdicts
// cannot be matched to the pictures.
func (a NSFWAnswer) Clean(n int, known []string) ([]NSFWVerdict, error) {
	if len(a.Results) != n {
		return nil, fmt.Errorf("%d results for %d pictures", len(a.Results), n)
	}
	out := make([]NSFWVerdict, n)
	for i, r := range a.Results {
		if r.NSFWScore == nil || !(*r.NSFWScore >= 0 && *r.NSFWScore <= 1) {
			continue
		}
		v := NSFWVerdict{OK: true, Score: *r.NSFWScore}
		for name, p := range r.Categories {
			name = strings.ToLower(strings.TrimSpace(name))
			if p == nil || !(*p >= 0 && *p <= 1) || !contains(known, name) {
				continue
			}
			if v.Categories == nil {
				v.Categories = map[string]float64{}
			}
			v.Categories[name] = *p
		}
		out[i] = v
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NLPAnswer is the result of nlp.
type NLPAnswer struct {
	Language   *LanguageAnswer   `json:"language"`
	Sentiment  []SentimentAnswer `json:"sentiment"`
	KeyPhrases []PhraseAnswer    `json:"key_phrases"`
	Entities   []EntityAnswer    `json:"entities"`
	Source     string            `json:"source"`
}

// LanguageAnswer is the language of the text, as answered.
type LanguageAnswer struct {
	Code       string   `json:"code"`
	Name       string   `json:"name"`
	Confidence *float64 `json:"confidence"`
}

// SentimentAnswer is one sentiment's share, as answered.
type SentimentAnswer struct {
	Name       string   `json:"name"`
	Confidence *float64 `json:"confidence"`
}

// PhraseAnswer is a key phrase, as answered.
type PhraseAnswer struct {
	Name        string   `json:"name"`
	Appearances *float64 `json:"appearances"`
	Score       *float64 `json:"score"`
}

// EntityAnswer is a named thing, as answered.
type EntityAnswer struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Appearances *float64 `json:"appearances"`
	Confidence  *float64 `json:"confidence"`
}

// Size returns the number of entries of the answer.
func (a NLPAnswer) Size() int { return len(a.Sentiment) + len(a.KeyPhrases) + len(a.Entities) }

// NLP is an nlp answer worth storing, in the shapes of the tokens
// extractor.
type NLP struct {
	Language   *NLPLanguage
	Sentiment  []NLPSentiment
	KeyPhrases []NLPPhrase
	Entities   []NLPEntity
}

// NLPLanguage is the language of the text.
type NLPLanguage struct {
	Code, Name string
	Confidence float64
}

// NLPSentiment is the share of one sentiment.
type NLPSentiment struct {
	Name       string // positive, negative, neutral, mixed
	Confidence float64
}

// NLPPhrase is a key phrase.
type NLPPhrase struct {
	Name        string
	Appearances int
	Score       float64 // 0 when not given
}

// NLPEntity is a named thing.
type NLPEntity struct {
	Name        string
	Type        string // person, place, organization, other
	Appearances int
	Confidence  float64 // 0 when not given
}

// Sentiments are the sentiment names kept, as the item summary shows them.
var Sentiments = []string{"positive", "negative", "neutral", "mixed"}

// entityTypes folds the entity types providers use into person, place,
// organization; any other type is "other".
var entityTypes = map[string]string{
	"person": "person", "people": "person", "per": "person", "persontype": "person",
	"place": "place", "location": "place", "loc": "place", "gpe": "place", "city": "place", "country": "place",
	"organization": "organization", "organisation": "organization", "org": "organization", "company": "organization",
}

// maxAppearances bounds a count a provider gives: far more than 200 KiB of
// text can hold.
const maxAppearances = 1e6

// Clean returns what is worth storing: a language with a code (Language),
// sentiments of the four known names with a confidence within 0..1 (each
// name once, the likeliest first), key phrases and entities with a name
// (at most 200 characters), appearances a whole number from 1 (absent: 1;
// repeated names add up), the most frequent first, at most MaxPhrases and
// MaxEntities.
func (a NLPAnswer) Clean() NLP {
	var out NLP
	if l := a.Language; l != nil {
		if code := Language(l.Code); code != "" && (l.Confidence == nil || (*l.Confidence >= 0 && *l.Confidence <= 1)) {
			out.Language = &NLPLanguage{Code: code, Name: CleanText(l.Name, 64), Confidence: round4(conf(l.Confidence))}
		}
	}
	seen := map[string]bool{}
	for _, s := range a.Sentiment {
		name := strings.ToLower(strings.TrimSpace(s.Name))
		if !contains(Sentiments, name) || seen[name] || s.Confidence == nil || !(*s.Confidence >= 0 && *s.Confidence <= 1) {
			continue
		}
		seen[name] = true
		out.Sentiment = append(out.Sentiment, NLPSentiment{Name: name, Confidence: round4(*s.Confidence)})
	}
	sort.SliceStable(out.Sentiment, func(i, j int) bool { return out.Sentiment[i].Confidence > out.Sentiment[j].Confidence })

	phraseAt := map[string]int{}
	for _, p := range a.KeyPhrases {
		name := CleanText(p.Name, maxLabelName)
		n, ok := appearances(p.Appearances)
		if name == "" || !ok {
			continue
		}
		score := 0.0
		if p.Score != nil && !math.IsNaN(*p.Score) && !math.IsInf(*p.Score, 0) && *p.Score >= 0 {
			score = round4(min(*p.Score, maxAppearances))
		}
		key := strings.ToLower(name)
		if i, dup := phraseAt[key]; dup {
			out.KeyPhrases[i].Appearances = min(out.KeyPhrases[i].Appearances+n, maxAppearances)
			out.KeyPhrases[i].Score = max(out.KeyPhrases[i].Score, score)
			continue
		}
		phraseAt[key] = len(out.KeyPhrases)
		out.KeyPhrases = append(out.KeyPhrases, NLPPhrase{Name: name, Appearances: n, Score: score})
	}
	sort.SliceStable(out.KeyPhrases, func(i, j int) bool { return out.KeyPhrases[i].Appearances > out.KeyPhrases[j].Appearances })
	if len(out.KeyPhrases) > MaxPhrases {
		out.KeyPhrases = out.KeyPhrases[:MaxPhrases]
	}

	entityAt := map[string]int{}
	for _, e := range a.Entities {
		name := CleanText(e.Name, maxLabelName)
		n, ok := appearances(e.Appearances)
		if name == "" || !ok || (e.Confidence != nil && !(*e.Confidence >= 0 && *e.Confidence <= 1)) {
			continue
		}
		typ, known := entityTypes[strings.ToLower(strings.TrimSpace(e.Type))]
		if !known {
			typ = "other"
		}
		key := typ + "\x00" + strings.ToLower(name)
		if i, dup := entityAt[key]; dup {
			out.Entities[i].Appearances = min(out.Entities[i].Appearances+n, maxAppearances)
			out.Entities[i].Confidence = max(out.Entities[i].Confidence, round4(conf(e.Confidence)))
			continue
		}
		entityAt[key] = len(out.Entities)
		out.Entities = append(out.Entities, NLPEntity{Name: name, Type: typ, Appearances: n, Confidence: round4(conf(e.Confidence))})
	}
	sort.SliceStable(out.Entities, func(i, j int) bool { return out.Entities[i].Appearances > out.Entities[j].Appearances })
	if len(out.Entities) > MaxEntities {
		out.Entities = out.Entities[:MaxEntities]
	}
	return out
}

// appearances reads a count: absent is 1; a whole number from 1 (at most
// maxAppearances) is itself; anything else is refused.
func appearances(v *float64) (int, bool) {
	if v == nil {
		return 1, true
	}
	if !(*v >= 1 && *v <= maxAppearances) || *v != math.Trunc(*v) {
		return 0, false
	}
	return int(*v), true
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
