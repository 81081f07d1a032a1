package search

import "sort"

// hitCountPaths maps each hit-count data type of the reference to the
// document paths (extractor names, or dotted paths below them) that hold data
// of that kind. A matching document counts for a type when it has a value at
// or below any of its paths. Provider extractors whose API names are not
// public store their data under the generic names (tags, labels, logos ...).
// Speech is its extractors' data, not the document's "transcript", which
// every caption makes (a caption file is no speech).
var hitCountPaths = map[string][]string{
	"advertising":          {"advertising"},
	"audio_classification": {"vendor_audio_classification", "audio_classification"},
	"caption":              {"captions", "captionsv2", "caption_files"},
	"description":          {"description", "descriptions"},
	"labels":               {"labels", "objects"},
	"locations":            {"geocoding", "locations"},
	"logos":                {"logos"},
	"keyword":              {"keywords"},
	"nsfw":                 {"nsfw", "nsfw_provider"},
	"ocr":                  {"tesseract", "ocr", "slates", "credits"},
	"people":               {"vendor_faces", "people", "faces"},
	"sound":                {"volumedetect", "audiopeak", "vendor_silence", "sound"},
	"speech_to_text":       {"speech_to_text", "speech_to_text_provider"},
	"sport":                {"vendorsports", "sport"},
	"tag":                  {"tags", "objects"},
	"text_content":         {"pdf", "officex", "html", "email", "fdx", "tokens", "tokens_provider", "text_content"},
}

// HitCountTypes lists the data types hit_counts knows, sorted.
func HitCountTypes() []string {
	out := make([]string, 0, len(hitCountPaths))
	for t := range hitCountPaths {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// HitCountPaths returns the document paths of a data type (nil when unknown).
func HitCountPaths(dataType string) []string {
	return append([]string(nil), hitCountPaths[dataType]...)
}
