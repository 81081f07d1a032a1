package nlp

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/langid"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "vendorlanguage",
		DisplayName:    "Language Identification",
		Family:         extractors.FamilyNLP,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		// Local (whatlanggo): no provider and no tool, unlike the
		// placeholder of the reference.
		After: TextSources,
		Fields: []extractors.Field{
			{Path: "language", Type: extractors.TypeString, Doc: "ISO 639-1 code of the language of the item's text or transcript (639-3 when it has no 639-1 code), when the identification is reliable"},
			{Path: "guess", Type: extractors.TypeString, Doc: "the likeliest language when the identification is not reliable (a short text, or a speech transcript alone), in place of language"},
			{Path: "name", Type: extractors.TypeString, Doc: "language name in English"},
			{Path: "confidence", Type: extractors.TypeNumber, Doc: "0..1 (whatlanggo)"},
			{Path: "script", Type: extractors.TypeString, Doc: "writing system (Latin, Cyrillic, Han, Arabic...)"},
			{Path: "reliable", Type: extractors.TypeBool, Doc: "confidence above 0.8, and not from a speech transcript alone"},
			{Path: "source", Type: extractors.TypeString, Doc: "text (documents, OCR, metadata) or speech (only a transcript): " +
				"the speech recogniser here is English-only, so the language of a transcript is English-like whatever was spoken, and is not reliable"},
			{Path: "sources", Type: extractors.TypeString, Doc: "extractors whose text was read"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return vendorLanguage{}, nil },
	})
}

type vendorLanguage struct{}

func (vendorLanguage) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	text := Gather(in.Prior)
	if text.Text == "" {
		return nil, fmt.Errorf("%w: no extracted text", extractors.ErrUnsupported)
	}
	lang, ok := langid.Identify(text.Text)
	if !ok {
		return nil, fmt.Errorf("%w: no language recognised in the text", extractors.ErrUnsupported)
	}
	source := "text"
	if text.SpeechOnly {
		source = "speech"
	}
	reliable := lang.Reliable && !text.SpeechOnly
	data := map[string]any{
		"name":       lang.Name,
		"confidence": lang.Confidence,
		"script":     lang.Script,
		"reliable":   reliable,
		"source":     source,
		"sources":    text.Sources,
	}
	// An unsure guess is no language to filter or count by (the search
	// page's Language facet reads language): it is kept as guess.
	if reliable {
		data["language"] = lang.Code
	} else {
		data["guess"] = lang.Code
	}
	return &extractors.Result{Data: data}, nil
}
