package nlp

import (
	"encoding/json"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// TextSources are the extractors whose Data may hold text, in the order
// their text is read. Documents, OCR and speech write "text" (a provider's
// speech, "transcript"); documents also a title, subject, description or
// keywords; exiv2 a photo's title, description and keywords. The caption extractors (caption_files,
// captions, captionsv2) store their cues as the item's captions, not in
// Data: their text is not reachable from Input.Prior, and is listed here
// only so that it is read once they put it in Data.
var TextSources = []string{
	"text", "pdf", "officex", "html", "email", "csv", "json", "xml", "fdx", "dbf",
	"archive", "tesseract", "speech_to_text", "speech_to_text_provider", "caption_files", "captions", "captionsv2", "exiv2",
}

// TextNeeds are the text sources that are not API names of the reference:
// a client of the reference cannot know to ask for them, so an analysis of
// text brings them (Info.Needs). Without it a harvest naming tokens and
// the reference's names read no plain-text file (issue 23).
var TextNeeds = []string{"text"}

// textFields are the top-level fields read from each source's Data.
var textFields = []string{"title", "subject", "description", "keywords", "text", "transcript"}

// MaxAnalysed bounds the text an item's analyses read (bytes of UTF-8);
// documents hold at most 256 KiB each, and an item may have several.
const MaxAnalysed = 200 << 10

// Text is the text of an item gathered from the extractors that ran before.
type Text struct {
	Text string
	// Sources lists the extractors the text came from, in reading order.
	Sources []string
	// Truncated is true when there was more than MaxAnalysed.
	Truncated bool
	// SpeechOnly is true when all the text is the transcript of the
	// offline recogniser (speech_to_text), which hears English whatever
	// is spoken; a provider's transcript is in the language spoken.
	SpeechOnly bool
}

// Gather reads the text fields of the TextSources in prior, each distinct
// piece once, separated by blank lines, up to MaxAnalysed bytes (cut on a
// character boundary).
func Gather(prior map[string]json.RawMessage) Text {
	var b strings.Builder
	var out Text
	seen := map[string]bool{}
	full := false
	for _, src := range TextSources {
		raw, ok := prior[src]
		if !ok || full {
			continue
		}
		var data map[string]any
		if json.Unmarshal(raw, &data) != nil {
			continue
		}
		var pieces []string
		for _, f := range textFields {
			pieces = append(pieces, stringsOf(data[f])...)
		}
		if msgs, ok := data["messages"].([]any); ok { // a mailbox: each message's subject
			for _, m := range msgs {
				if o, ok := m.(map[string]any); ok {
					pieces = append(pieces, stringsOf(o["subject"])...)
				}
			}
		}
		used := false
		for _, p := range pieces {
			p = strings.TrimSpace(p)
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			used = true
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			if room := MaxAnalysed - b.Len(); len(p) > room {
				p = doctext.Cut(p, room)
				out.Truncated, full = true, true
			}
			b.WriteString(p)
			if full {
				break
			}
		}
		if used {
			out.Sources = append(out.Sources, src)
		}
	}
	out.Text = strings.ToValidUTF8(b.String(), "")
	out.SpeechOnly = len(out.Sources) == 1 && out.Sources[0] == "speech_to_text"
	return out
}

// stringsOf returns v when it is a string, or the strings of a list.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return []string{strings.Join(out, ", ")}
		}
	}
	return nil
}
