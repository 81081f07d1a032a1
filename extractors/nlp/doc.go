// Package nlp holds the extractors that read the words an item holds:
// tokens (key phrases, named entities, sentiment and language of all the
// text extracted from the item) and vendorlanguage (the language of the
// item's text or transcript), both local; and tokens_provider, the
// analysis of tokens by a provider (below).
//
// # Input
//
// The text comes from Input.Prior: the "text" field of the document
// extractors, OCR (tesseract) and speech (speech_to_text; the
// "transcript" of speech_to_text_provider), the title, subject,
// description and keywords where they have them, and the subjects of a
// mailbox's messages (Gather, TextSources). At most
// MaxAnalysed (200 KiB) is read per item; Data says how much (characters)
// and whether there was more (truncated). Captions are stored as the
// item's caption records, not in Data: caption text is not read (the
// caption extractors are listed in After so that it is, should they put
// it in Data).
//
// # What is found, and how well
//
//   - language: extractors/shared/langid, github.com/abadojack/whatlanggo
//     v1.0.1 over up to eight 2 KiB samples spread over the text that vote
//     (whatlanggo's own confidence turns negative past a few KiB). 84
//     languages; a single short sentence can be mistaken for a neighbour
//     (Russian for Bulgarian).
//   - key phrases: RAKE, written here (rake.go), with stop word lists for
//     en, fr, es, de, it, pt and nl; none for other languages.
//   - entities (people, places, organisations): a heuristic, written here
//     (entities.go): capitalised phrases typed by titles, suffixes,
//     prepositions, given names and the place names of extractors/shared/gazetteer;
//     untyped phrases are dropped. Latin-script text only.
//   - sentiment: github.com/jonreiter/govader (VADER, English) per
//     sentence, summed into positive, negative, neutral and mixed shares;
//     English text only.
//
// Entities were first tried with github.com/jdkato/prose/v2 v2.0.0, the
// library the issue named. Measured on the first chapter of Twenty
// Thousand Leagues Under the Sea with 29 hand-annotated entities
// (eval_test.go), on the 2-core build machine: prose named 14 right and
// 26 wrong (precision 0.35, recall 0.48; ships and adjectives taken for
// places, "Pacific" for a person), cost 5.7 MB of binary, 1.2-1.5 s and
// 41 MB of heap to load its model, and 0.4 s of CPU for the 5.5 KB
// chapter (about 4 s for 200 KiB). The heuristic named 21 right and 5
// wrong (precision 0.81, recall 0.72; its misses are single names with no
// cue, its errors ships named after people and places), in about 10 ms
// for 35 KB, with no model. prose is not a dependency.
//
// # tokens_provider
//
// The same text (Gather: at most 200 KiB) is sent to a provider
// (extractors/shared/provider, task nlp) configured by NLP_API_URL and
// NLP_API_KEY (without them "not available: nlp provider setting ... not
// set"), and its answer, checked (provider.NLPAnswer.Clean), is written in
// tokens' shapes: key_phrases and entities {name, appearances[, type]},
// sentiment {name, confidence} of positive, negative, neutral and mixed,
// language {code, name, confidence}; entity types are person, place,
// organization, or other for the types a provider has beyond those. It is
// off by default: it sends the item's text away.
package nlp
