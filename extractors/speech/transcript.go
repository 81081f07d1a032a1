package speech

import (
	"context"
	"math"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// Recognizer turns the audio of a local file into a transcript. The
// offline engine is Pocketsphinx; a provider adapter (an HTTP service
// configured by key) implements the same interface and reports through
// Result, so that every engine's transcripts are stored and searched
// alike.
type Recognizer interface {
	// Engine names the engine in Data ("pocketsphinx").
	Engine() string
	// Recognize transcribes a.Stream of a.Path, at most a.MaxSeconds of
	// it. It honours ctx; when ctx has a deadline it should stop early
	// enough to return what it recognised so far (Transcript.StoppedBy
	// "time_limit") rather than nothing.
	Recognize(ctx context.Context, a Audio) (*Transcript, error)
}

// Audio is what a Recognizer is asked to transcribe.
type Audio struct {
	// Path of the local file.
	Path string
	// Stream is the ffprobe index of the audio stream to read.
	Stream int
	// MaxSeconds bounds the audio recognised, from the start.
	MaxSeconds float64
}

// Transcript is what a Recognizer heard.
type Transcript struct {
	// Language of the words, as a BCP 47 code ("en").
	Language string
	// Words in time order.
	Words []Word
	// Seconds of audio recognised (from the start of the file).
	Seconds float64
	// StoppedBy says why recognition ended before the end of the audio
	// ("max_seconds", "time_limit", "decode_error"); empty when the whole
	// audio was recognised.
	StoppedBy string
	// Engine names the engine that answered when it said (a provider's
	// model); empty: Recognizer.Engine.
	Engine string
}

// Word is one recognised word, times in seconds from the start of the
// file.
type Word struct {
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Confidence is the engine's posterior probability, 0..1.
	Confidence float64 `json:"confidence"`
	// Utterance numbers the stretches of speech the engine cut the audio
	// into (between pauses); a cue never spans two.
	Utterance int `json:"utterance"`
}

// How words are grouped into cues: a cue ends at a pause, at the end of
// an utterance, or when it reaches subtitle length (two lines of about 42
// characters, read in about 6 seconds).
const (
	cuePause    = 0.6
	cueSeconds  = 6.0
	cueMaxChars = 84
)

// Cues groups words into phrases. Words are expected in time order; a
// word starting before the previous ended is moved to start where it
// ended, so that cues never go back in time.
func Cues(words []Word) []extractors.Cue {
	var cues []extractors.Cue
	var cur *extractors.Cue
	var curUtt int
	var prevEnd float64
	for _, w := range words {
		if !validTime(w.Start) || !validTime(w.End) || strings.TrimSpace(w.Text) == "" {
			continue
		}
		start, end := max(w.Start, prevEnd), max(w.End, w.Start, prevEnd)
		prevEnd = end
		text := strings.TrimSpace(w.Text)
		if cur != nil && (w.Utterance != curUtt || start-cur.End >= cuePause ||
			end-cur.Start > cueSeconds || len(cur.Text)+1+len(text) > cueMaxChars) {
			cues = append(cues, *cur)
			cur = nil
		}
		if cur == nil {
			if len(cues) >= extractors.MaxCues {
				break
			}
			cur = &extractors.Cue{Start: start, End: end, Text: text}
			curUtt = w.Utterance
			continue
		}
		cur.Text += " " + text
		cur.End = end
	}
	if cur != nil {
		cues = append(cues, *cur)
	}
	return cues
}

func validTime(t float64) bool { return !math.IsNaN(t) && !math.IsInf(t, 0) && t >= 0 && t <= maxTime }

// maxTime bounds a word time: far beyond any audio recognised (a week).
const maxTime = 7 * 24 * 3600
