package nlp

import "github.com/metaharvest/metaharvest/extractors"

// tokenShape is what tokens writes, and tokens_provider in the same shapes
// (the item summary reads either): declared once, each extractor giving
// the docs it words its own way and what only it writes.
var tokenShape = extractors.Shape{
	{Path: "key_phrases.name", Type: extractors.TypeString, Doc: "key phrase"},
	{Path: "key_phrases.appearances", Type: extractors.TypeNumber, Doc: "times it appears"},
	{Path: "key_phrases.score", Type: extractors.TypeNumber, Doc: "score of the key phrase"},
	{Path: "entities.name", Type: extractors.TypeString, Doc: "person, place or organisation named in the text"},
	{Path: "entities.type", Type: extractors.TypeString, Doc: "person, place or organization"},
	{Path: "entities.appearances", Type: extractors.TypeNumber, Doc: "times it is named"},
	{Path: "sentiment.name", Type: extractors.TypeString, Doc: "positive, negative, neutral or mixed, the likeliest first"},
	{Path: "sentiment.confidence", Type: extractors.TypeNumber, Doc: "0..1"},
	{Path: "language.code", Type: extractors.TypeString, Doc: "code of the text's language"},
	{Path: "language.name", Type: extractors.TypeString, Doc: "language name"},
	{Path: "language.confidence", Type: extractors.TypeNumber, Doc: "0..1"},
	{Path: "sources", Type: extractors.TypeString, Doc: "extractors whose text was analysed"},
	{Path: "characters", Type: extractors.TypeNumber, Doc: "bytes of text analysed (at most 200 KiB)"},
	{Path: "truncated", Type: extractors.TypeBool, Doc: "true when the item had more text than was analysed"},
}
