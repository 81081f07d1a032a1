package speech

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// Name is the extractor's API name. The reference names only branded
// providers; clients of the original product call it gms2t, an alias.
const Name = "speech_to_text"

// Limits of one item.
const (
	// DefaultMaxSeconds is the audio recognised per item by default (the
	// first hour): about half an hour of one core.
	DefaultMaxSeconds = 3600
	// timeout is the extractor's time limit. When it draws near the
	// recognition stops and keeps the words so far.
	timeout = 60 * time.Minute
	// maxTextBytes bounds Data.text; the caption keeps every cue.
	maxTextBytes = 256 << 10
)

// Fields are what Result writes in Data, for any engine.
var Fields = []extractors.Field{
	{Path: "text", Type: extractors.TypeText, Doc: "the transcript, one phrase a line (at most 256 KiB; the caption has all of it)"},
	{Path: "words", Type: extractors.TypeNumber, Doc: "words recognised"},
	{Path: "cues", Type: extractors.TypeNumber, Doc: "phrases of the caption"},
	{Path: "seconds", Type: extractors.TypeNumber, Doc: "seconds of audio recognised, from the start"},
	{Path: "complete", Type: extractors.TypeBool, Doc: "whether the whole audio stream was recognised"},
	{Path: "stopped_by", Type: extractors.TypeString, Doc: "why recognition stopped early: max_seconds, time_limit or decode_error"},
	{Path: "language", Type: extractors.TypeString, Doc: "language the engine recognises (en)"},
	{Path: "engine", Type: extractors.TypeString, Doc: "speech engine (pocketsphinx)"},
	{Path: "confidence", Type: extractors.TypeNumber, Doc: "mean word confidence of the engine, 0..1"},
	{Path: "stream", Type: extractors.TypeNumber, Doc: "index of the audio stream recognised"},
}

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           Name,
		DisplayName:    "Speech to Text",
		Family:         extractors.FamilySpeech,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false, // half a core-second per second of audio: enabled per profile
		Tools:          []string{"ffprobe", "ffmpeg", "pocketsphinx_continuous"},
		Accept:         extractors.AcceptMIME([]string{"audio/", "video/", "application/ogg", "application/mxf"}),
		Timeout:        timeout,
		Fields:         Fields,
		Settings:       []extractors.Setting{maxSecondsSetting},
		New:            newExtractor,
	})
}

// maxSecondsSetting bounds the audio recognised by every speech extractor.
var maxSecondsSetting = extractors.Setting{
	Name: "max_seconds", Env: "SPEECH_MAX_SECONDS", Kind: extractors.KindNumber, Default: strconv.Itoa(DefaultMaxSeconds), Min: 1, Max: 24 * 3600,
	Doc: "seconds of audio recognised per item, from the start",
}

// maxSeconds reads maxSecondsSetting.
func maxSeconds(env extractors.Env) (float64, error) {
	return env.Number("max_seconds")
}

func newExtractor(env extractors.Env) (extractors.Extractor, error) {
	secs, err := maxSeconds(env)
	if err != nil {
		return nil, err
	}
	ps := &Pocketsphinx{Run: env.Runner, Model: ModelDir}
	if err := ps.checkModel(); err != nil {
		return nil, err
	}
	return &Extractor{Recognizer: ps, Run: env.Runner, MaxSeconds: secs}, nil
}

// Extractor is speech_to_text over any Recognizer: it picks the audio
// stream (av.Read) and reports the transcript with Result.
type Extractor struct {
	Recognizer Recognizer
	Run        *extractors.Runner
	MaxSeconds float64
}

var _ extractors.Extractor = (*Extractor)(nil)

// Extract implements extractors.Extractor. A file without an audio stream
// is extractors.ErrUnsupported.
func (x *Extractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	_, stream, err := av.ReadAudio(ctx, x.Run, in)
	if err != nil {
		return nil, err
	}
	t, err := x.Recognizer.Recognize(ctx, Audio{Path: in.Path, Stream: stream.Index, MaxSeconds: x.MaxSeconds})
	if err != nil {
		return nil, err
	}
	engine := t.Engine
	if engine == "" {
		engine = x.Recognizer.Engine()
	}
	res := Result(t, engine)
	res.Data["stream"] = stream.Index
	return res, nil
}

// Result is the extractor result of a transcript: Data and, when words
// were heard, one Caption of source "speech".
func Result(t *Transcript, engine string) *extractors.Result {
	cues := Cues(t.Words)
	var conf float64
	for _, w := range t.Words {
		conf += w.Confidence
	}
	if len(t.Words) > 0 {
		conf = math.Round(conf/float64(len(t.Words))*1000) / 1000
	}
	data := map[string]any{
		"text":       transcriptText(cues),
		"words":      len(t.Words),
		"cues":       len(cues),
		"seconds":    math.Round(t.Seconds*1000) / 1000,
		"complete":   t.StoppedBy == "",
		"language":   t.Language,
		"engine":     engine,
		"confidence": conf,
	}
	if t.StoppedBy != "" {
		data["stopped_by"] = t.StoppedBy
	}
	res := &extractors.Result{Data: data}
	if len(cues) > 0 {
		res.Captions = []extractors.Caption{{Source: "speech", Language: t.Language, Format: "speech", Cues: cues}}
	}
	return res
}

// transcriptText is the cues one a line, cut at maxTextBytes on a line
// end.
func transcriptText(cues []extractors.Cue) string {
	var b strings.Builder
	for _, c := range cues {
		if b.Len()+len(c.Text)+1 > maxTextBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}
