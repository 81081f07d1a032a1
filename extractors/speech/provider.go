package speech

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// ProviderName is the API name of speech to text by a provider: the
// same work as speech_to_text, by a better engine reached over HTTP
// (extractors/shared/provider, task speech_to_text). The reference names such
// extractors by their provider's brand and omits them.
const ProviderName = "speech_to_text_provider"

// Bounds of the clips sent.
const (
	DefaultClipSeconds = 60
	minClipSeconds     = 10
	// maxClipSeconds keeps a clip (9.6 MB of WAV) well within a request.
	maxClipSeconds = provider.MaxAudioSeconds
	// silentPeak is the highest sample (of 32767) of a clip not sent: below
	// -60 dBFS there is nothing to hear, and a provider charges by the
	// second.
	silentPeak = 32
)

// ProviderFields are what the provider's extractor writes: Fields, the
// transcript under "transcript" rather than "text". Its caption (source
// speech) is read as speech by keyword hits and search; a top-level
// "text" is read as a document's own text, which would count it twice.
var ProviderFields = []extractors.Field{
	{Path: "transcript", Type: extractors.TypeText, Doc: "the transcript, one phrase a line (at most 256 KiB; the caption has all of it)"},
	{Path: "words", Type: extractors.TypeNumber, Doc: "words recognised"},
	{Path: "cues", Type: extractors.TypeNumber, Doc: "phrases of the caption"},
	{Path: "seconds", Type: extractors.TypeNumber, Doc: "seconds of audio recognised, from the start"},
	{Path: "complete", Type: extractors.TypeBool, Doc: "whether the whole audio stream was recognised"},
	{Path: "stopped_by", Type: extractors.TypeString, Doc: "why recognition stopped early: max_seconds, time_limit or decode_error"},
	{Path: "language", Type: extractors.TypeString, Doc: "BCP 47 code of the language heard, as the provider says (else SPEECH_API_LANGUAGE; empty when neither says)"},
	{Path: "engine", Type: extractors.TypeString, Doc: "the service that answered (its words), else the provider's host"},
	{Path: "confidence", Type: extractors.TypeNumber, Doc: "mean word confidence the provider gave, 0..1 (0: not given)"},
	{Path: "stream", Type: extractors.TypeNumber, Doc: "index of the audio stream recognised"},
}

func init() {
	settings := append(provider.Settings("SPEECH_API", "speech to text"), maxSecondsSetting,
		extractors.Setting{Name: "clip_seconds", Env: "SPEECH_API_CLIP_SECONDS", Kind: extractors.KindInt, Default: strconv.Itoa(DefaultClipSeconds),
			Min: minClipSeconds, Max: maxClipSeconds,
			Doc: "seconds of audio sent in one request, clip after clip"},
		extractors.Setting{Name: "language", Env: "SPEECH_API_LANGUAGE", Kind: extractors.KindText,
			Doc: "BCP 47 code of the language spoken (en, pt-BR), sent to the provider as a hint; empty: the provider finds out"},
	)
	extractors.MustRegister(extractors.Info{
		Name:           ProviderName,
		DisplayName:    "Speech to Text (provider)",
		Family:         extractors.FamilySpeech,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false, // it sends the item's sound away, and costs by the second
		Tools:          []string{"ffprobe", "ffmpeg"},
		Provider:       "speech",
		Accept:         extractors.AcceptMIME([]string{"audio/", "video/", "application/ogg", "application/mxf"}),
		Timeout:        timeout,
		Fields:         ProviderFields,
		Settings:       settings,
		New:            newProviderExtractor,
	})
}

func newProviderExtractor(env extractors.Env) (extractors.Extractor, error) {
	c, err := provider.FromEnv(env)
	if err != nil {
		return nil, err
	}
	secs, err := maxSeconds(env)
	if err != nil {
		return nil, err
	}
	clip, err := env.Int("clip_seconds")
	if err != nil {
		return nil, err
	}
	lang := ""
	if v := env.Get("language"); v != "" {
		if lang = provider.Language(v); lang == "" {
			return nil, fmt.Errorf("SPEECH_API_LANGUAGE %q: want a BCP 47 language code (en, pt-BR)", v)
		}
	}
	rec := &Provider{Client: c, Run: env.Runner, ClipSeconds: clip, Language: lang}
	return &providerExtractor{&Extractor{Recognizer: rec, Run: env.Runner, MaxSeconds: secs}}, nil
}

// providerExtractor is Extractor over a Provider, its transcript in Data
// under "transcript" (ProviderFields).
type providerExtractor struct{ *Extractor }

func (x *providerExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	res, err := x.Extractor.Extract(ctx, in)
	if err != nil {
		return nil, err
	}
	res.Data["transcript"] = res.Data["text"]
	delete(res.Data, "text")
	return res, nil
}

// Provider recognises speech with a provider (the speech_to_text task of
// extractors/shared/provider): the stream is decoded as for Pocketsphinx, and
// sent clip after clip of ClipSeconds as WAV, one call each, in order;
// the words of a clip are its utterance, so that no caption cue spans two
// clips. A clip without sound (below -60 dBFS) is not sent. When the time
// limit draws near no further clip is sent, and the words so far are kept
// (StoppedBy "time_limit").
type Provider struct {
	Client      *provider.Client
	Run         *extractors.Runner
	ClipSeconds int
	// Language is a BCP 47 hint sent with every clip ("": none).
	Language string
}

var _ Recognizer = (*Provider)(nil)

// Engine implements Recognizer: the provider's host, when its answers do
// not name their engine.
func (p *Provider) Engine() string { return p.Client.Host() }

// Recognize implements Recognizer.
func (p *Provider) Recognize(ctx context.Context, a Audio) (*Transcript, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	stopAt := time.Time{}
	if deadline, ok := ctx.Deadline(); ok {
		stopAt = stopBefore(deadline, time.Now())
	}
	audio, err := decodePCM(ctx, p.Run, a, stopAt)
	if err != nil {
		return nil, err
	}
	defer audio.Close()

	t := &Transcript{StoppedBy: audio.reason}
	clipBytes := int64(p.ClipSeconds) * bytesPerSecond
	buf := make([]byte, clipBytes)
	done := int64(0)
	for clip := 0; done < audio.size; clip++ {
		if !stopAt.IsZero() && time.Now().After(stopAt) {
			if done == 0 {
				return nil, extractors.Transient(errors.New("speech recognition: time limit reached before any audio was recognised"))
			}
			t.StoppedBy = stopTimeLimit
			break
		}
		n := min(clipBytes, audio.size-done)
		if _, err := audio.file.ReadAt(buf[:n], done); err != nil && err != io.EOF {
			return nil, extractors.Transient(fmt.Errorf("read the decoded audio: %w", err))
		}
		if !silent(buf[:n]) {
			words, err := p.recognizeClip(ctx, buf[:n], float64(done)/bytesPerSecond, t)
			if err != nil {
				return nil, err
			}
			for _, w := range words {
				if len(t.Words) == maxWords {
					break
				}
				w.Utterance = clip
				t.Words = append(t.Words, w)
			}
		}
		done += n
	}
	t.Seconds = float64(done) / bytesPerSecond
	if t.Language == "" {
		t.Language = p.Language
	}
	return t, nil
}

// maxAnswerWords refuses an answer too long to be about one clip.
const maxAnswerWords = provider.MaxWords

// recognizeClip sends one clip of PCM starting at start seconds and
// returns its words in item time; the first language and engine named are
// kept in t.
func (p *Provider) recognizeClip(ctx context.Context, pcm []byte, start float64, t *Transcript) ([]Word, error) {
	dur := float64(len(pcm)) / bytesPerSecond
	media := provider.Media{Type: "audio/wav", Start: &start, Duration: &dur, Data: wav(pcm)}
	input := map[string]any{"media": []provider.Media{media}}
	if p.Language != "" {
		input["language"] = p.Language
	}
	var answer provider.Transcript
	if err := p.Client.Call(ctx, "speech_to_text", input, &answer); err != nil {
		return nil, err
	}
	if len(answer.Words) > maxAnswerWords {
		return nil, fmt.Errorf("provider speech_to_text: %d words for %.0f s of audio, at most %d", len(answer.Words), dur, maxAnswerWords)
	}
	lang, words := answer.Clean(dur)
	if t.Language == "" {
		t.Language = lang
	}
	if t.Engine == "" {
		t.Engine = provider.Source(answer.Source)
	}
	out := make([]Word, len(words))
	for i, w := range words {
		out[i] = Word{Text: w.Text, Start: start + w.Start, End: start + w.End, Confidence: w.Confidence}
	}
	return out, nil
}

// silent reports whether 16-bit little-endian PCM has no sample above
// silentPeak.
func silent(pcm []byte) bool {
	for i := 0; i+1 < len(pcm); i += 2 {
		if v := int16(binary.LittleEndian.Uint16(pcm[i:])); v > silentPeak || v < -silentPeak {
			return false
		}
	}
	return true
}

// wav wraps mono 16 kHz 16-bit PCM in a WAV header.
func wav(pcm []byte) []byte {
	out := make([]byte, 44, 44+len(pcm))
	copy(out, "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(36+len(pcm)))
	copy(out[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:], 16)             // fmt chunk size
	binary.LittleEndian.PutUint16(out[20:], 1)              // PCM
	binary.LittleEndian.PutUint16(out[22:], 1)              // mono
	binary.LittleEndian.PutUint32(out[24:], sampleRate)     // sample rate
	binary.LittleEndian.PutUint32(out[28:], bytesPerSecond) // byte rate
	binary.LittleEndian.PutUint16(out[32:], 2)              // block align
	binary.LittleEndian.PutUint16(out[34:], 16)             // bits per sample
	copy(out[36:], "data")
	binary.LittleEndian.PutUint32(out[40:], uint32(len(pcm)))
	return append(out, pcm...)
}
