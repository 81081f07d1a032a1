package nlp

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// ProviderName is the API name of tokens by a provider (extractors/shared/provider,
// task nlp): the same analysis of the same text (Gather), written in the
// same shapes, by a service that knows more languages and makes fewer
// mistakes than the heuristics here. The reference names such extractors
// by their provider's brand and omits them.
const ProviderName = "tokens_provider"

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           ProviderName,
		DisplayName:    "Text Tokens (provider)",
		Family:         extractors.FamilyNLP,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false, // it sends the item's text away, and costs by the character
		Provider:       "nlp",
		After:          TextSources,
		Needs:          TextNeeds,
		Settings:       provider.Settings("NLP_API", "language analysis"),
		Fields: tokenShape.Fields(map[string]string{
			"key_phrases.name":    "key phrase, as first written",
			"key_phrases.score":   "the provider's score of it (0: not given)",
			"entities.name":       "person, place, organisation or other thing named in the text",
			"entities.type":       "person, place, organization or other",
			"language.code":       "BCP 47 code of the text's language",
			"language.name":       "language name, as the provider words it",
			"language.confidence": "0..1 (0: not given)",
			"characters":          "bytes of text sent (at most 200 KiB)",
			"truncated":           "true when the item had more text than was sent",
		},
			extractors.Field{Path: "entities.confidence", Type: extractors.TypeNumber, Doc: "0..1 (0: not given)"},
			extractors.Field{Path: "source", Type: extractors.TypeString, Doc: "the service that answered (its words), else the provider's host"}),
		New: func(env extractors.Env) (extractors.Extractor, error) {
			c, err := provider.FromEnv(env)
			if err != nil {
				return nil, err
			}
			return &providerTokens{client: c}, nil
		},
	})
}

type providerTokens struct{ client *provider.Client }

var _ extractors.Extractor = (*providerTokens)(nil)

// maxNLPEntries refuses an answer too long to be about 200 KiB of text.
const maxNLPEntries = 10000

func (x *providerTokens) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	text := Gather(in.Prior)
	if text.Text == "" {
		return nil, fmt.Errorf("%w: no extracted text", extractors.ErrUnsupported)
	}
	var answer provider.NLPAnswer
	if err := x.client.Call(ctx, "nlp", map[string]any{"text": text.Text}, &answer); err != nil {
		return nil, err
	}
	if n := answer.Size(); n > maxNLPEntries {
		return nil, fmt.Errorf("provider nlp: %d entries, at most %d", n, maxNLPEntries)
	}
	a := answer.Clean()
	data := map[string]any{"sources": text.Sources, "characters": len(text.Text), "truncated": text.Truncated}
	data["source"] = provider.Source(answer.Source)
	if data["source"] == "" {
		data["source"] = x.client.Host()
	}
	if l := a.Language; l != nil {
		lang := map[string]any{"code": l.Code, "confidence": l.Confidence}
		if l.Name != "" {
			lang["name"] = l.Name
		}
		data["language"] = lang
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
			list[i] = map[string]any{"name": e.Name, "type": e.Type, "appearances": e.Appearances, "confidence": e.Confidence}
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
	return &extractors.Result{Data: data}, nil
}
