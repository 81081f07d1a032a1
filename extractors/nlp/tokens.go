package nlp

import (
	"context"
	"fmt"

	"github.com/jonreiter/govader"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/gazetteer"
	"github.com/metaharvest/metaharvest/extractors/shared/langid"
)

// Limits of what tokens reports.
const (
	maxKeyPhrases = 20
	maxEntities   = 50
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "tokens",
		DisplayName:    "Text Tokens",
		Family:         extractors.FamilyNLP,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		After:          TextSources,
		Needs:          TextNeeds,
		Fields: tokenShape.Fields(map[string]string{
			"key_phrases.name":     "key phrase (RAKE), as most often written; languages: en, fr, es, de, it, pt, nl",
			"key_phrases.score":    "RAKE score of one appearance (sum of its words' degree over frequency)",
			"entities.appearances": "times it is named (a lone surname counts for the full name)",
			"sentiment.name":       "positive, negative, neutral or mixed, the likeliest first (English text only)",
			"sentiment.confidence": "0..1; the four sum to 1",
			"language.code":        "ISO 639-1 code of the text's language (639-3 when it has no 639-1 code)",
			"language.name":        "language name in English",
			"language.confidence":  "0..1 (whatlanggo)",
		}),
		New: func(env extractors.Env) (extractors.Extractor, error) {
			atlas, err := gazetteer.Default()
			if err != nil {
				return nil, err
			}
			return &tokens{ner: NewRecognizer(atlas), vader: govader.NewSentimentIntensityAnalyzer()}, nil
		},
	})
}

type tokens struct {
	ner   *Recognizer
	vader *govader.SentimentIntensityAnalyzer
}

func (x *tokens) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	text := Gather(in.Prior)
	if text.Text == "" {
		return nil, fmt.Errorf("%w: no extracted text", extractors.ErrUnsupported)
	}
	a := Analyse(ctx, text.Text, x.ner, x.vader)
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	data := a.Data()
	data["sources"] = text.Sources
	data["characters"] = len(text.Text)
	data["truncated"] = text.Truncated
	return &extractors.Result{Data: data}, nil
}

// Analysis is what tokens finds in a text.
type Analysis struct {
	Language   *langid.Language
	KeyPhrases []Phrase
	Entities   []Entity
	Sentiment  []Sentiment
}

// Analyse identifies the language of text, then finds its key phrases
// (languages with a stop word list), entities (Latin script) and sentiment
// (English). It stops early, with what it has, when ctx ends.
func Analyse(ctx context.Context, text string, ner *Recognizer, vader *govader.SentimentIntensityAnalyzer) Analysis {
	var a Analysis
	lang, ok := langid.Identify(text)
	code := ""
	if ok {
		a.Language = &lang
		code = lang.Code
	}
	sents := Sentences(text)
	stop := stopwords[code]
	if stop != nil && ctx.Err() == nil {
		a.KeyPhrases = KeyPhrases(sents, stop, maxKeyPhrases)
	}
	if (!ok || lang.Script == "Latin") && ctx.Err() == nil {
		a.Entities = ner.Entities(sents, stop, maxEntities)
	}
	if code == "en" && ctx.Err() == nil {
		a.Sentiment = Sentiments(vader, sents)
	}
	return a
}

// Data is the analysis as tokens stores it.
func (a Analysis) Data() map[string]any {
	data := map[string]any{}
	if a.Language != nil {
		data["language"] = map[string]any{"code": a.Language.Code, "name": a.Language.Name, "confidence": a.Language.Confidence}
	}
	if len(a.KeyPhrases) > 0 {
		list := make([]any, len(a.KeyPhrases))
		for i, p := range a.KeyPhrases {
			list[i] = map[string]any{"name": p.Name, "appearances": p.Appearances, "score": p.Score}
		}
		data["key_phrases"] = list
	}
	if len(a.Entities) > 0 {
		list := make([]any, len(a.Entities))
		for i, e := range a.Entities {
			list[i] = map[string]any{"name": e.Name, "type": e.Type, "appearances": e.Appearances}
		}
		data["entities"] = list
	}
	if len(a.Sentiment) > 0 {
		list := make([]any, len(a.Sentiment))
		for i, s := range a.Sentiment {
			list[i] = map[string]any{"name": s.Name, "confidence": s.Confidence}
		}
		data["sentiment"] = list
	}
	return data
}
