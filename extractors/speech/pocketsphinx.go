package speech

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// The recogniser's input: 16 kHz mono signed 16-bit little-endian PCM,
// what the US English model was trained on.
const (
	sampleRate     = 16000
	bytesPerSecond = sampleRate * 2
)

// ModelDir is where Debian's pocketsphinx-en-us installs the model.
const ModelDir = "/usr/share/pocketsphinx/model/en-us"

// Memory bounds of the two programs (address space): pocketsphinx maps a
// 30 MB language model and uses about 110 MB; ffmpeg decodes one audio
// stream to a file.
const (
	recogniserMemory = 1 << 30
	decoderMemory    = 1 << 30
	// maxTranscriptOutput bounds pocketsphinx's output: about 40 bytes a
	// word, 10,000 words an hour.
	maxTranscriptOutput = 16 << 20
)

// Pocketsphinx recognises English speech with CMU PocketSphinx
// (pocketsphinx_continuous) and its US English model.
type Pocketsphinx struct {
	Run *extractors.Runner
	// Model is the model directory (ModelDir): en-us/ (acoustic model),
	// en-us.lm.bin (language model), cmudict-en-us.dict (dictionary).
	Model string

	// stopAt says when a run that must end by deadline stops feeding
	// audio; nil is stopBefore (a test stops earlier, to give the stop a
	// wide margin on a busy machine).
	stopAt func(deadline, now time.Time) time.Time
}

var _ Recognizer = (*Pocketsphinx)(nil)

// Engine implements Recognizer.
func (p *Pocketsphinx) Engine() string { return "pocketsphinx" }

// checkModel reports a missing model file, so that the extractor is "not
// available" rather than failing on every file.
func (p *Pocketsphinx) checkModel() error {
	for _, f := range []string{"en-us/mdef", "en-us/means", "en-us.lm.bin", "cmudict-en-us.dict"} {
		if _, err := os.Stat(filepath.Join(p.Model, f)); err != nil {
			return fmt.Errorf("pocketsphinx model: %w (install pocketsphinx-en-us)", err)
		}
	}
	return nil
}

func (p *Pocketsphinx) args() []string {
	return []string{
		"-infile", "/dev/stdin", // raw PCM: the name does not end in .wav, so no header is looked for
		"-time", "yes",
		// No second (flat lexicon) pass: a third less work for about the
		// same words on the LibriVox samples, and the end of an utterance
		// costs little, so a run stopped at its time limit ends quickly.
		"-fwdflat", "no",
		"-samprate", strconv.Itoa(sampleRate),
		"-hmm", filepath.Join(p.Model, "en-us"),
		"-lm", filepath.Join(p.Model, "en-us.lm.bin"),
		"-dict", filepath.Join(p.Model, "cmudict-en-us.dict"),
	}
}

// decodeArgs make ffmpeg write the stream as the recogniser's PCM to out,
// padded with silence where the stream starts late or has gaps, so that a
// byte offset is a time on the file's timeline; -t bounds the duration
// and -fs the file, whatever the stream declares.
func decodeArgs(a Audio, out string, maxBytes int64) []string {
	args := []string{"-nostdin", "-nostats", "-v", "error"}
	args = append(args, av.InputArgs(a.Path)...)
	return append(args,
		"-map", "0:"+strconv.Itoa(a.Stream), "-vn", "-sn", "-dn",
		"-af", "aresample=async=1:first_pts=0",
		"-ac", "1", "-ar", strconv.Itoa(sampleRate), "-c:a", "pcm_s16le",
		"-t", strconv.FormatFloat(a.MaxSeconds, 'f', 3, 64), "-fs", strconv.FormatInt(maxBytes, 10),
		"-f", "s16le", "-y", "file:"+out)
}

// pcm is the decoded audio of a recognition: a temporary file of the
// recogniser's PCM, size bytes of it to read (whole samples), and why it
// ends before the end of the stream ("" when it does not).
type pcm struct {
	file   *os.File
	dir    string
	size   int64
	reason string
}

// Close removes the file.
func (p *pcm) Close() {
	p.file.Close()
	os.RemoveAll(p.dir)
}

// decodePCM decodes a.Stream of a.Path, at most a.MaxSeconds, into a
// temporary file of 16 kHz mono PCM (32 KB a second: 115 MB for an hour),
// stopping at stopAt (zero: no stop) so that the recognition has time
// left. A damaged file whose first second decoded is kept, with reason
// stopDecodeError.
func decodePCM(ctx context.Context, run *extractors.Runner, a Audio, stopAt time.Time) (*pcm, error) {
	maxBytes := int64(a.MaxSeconds*bytesPerSecond) &^ 1
	if maxBytes <= 0 {
		return nil, fmt.Errorf("no audio to recognise: max seconds %v", a.MaxSeconds)
	}
	dir, err := os.MkdirTemp("", "speech-*")
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("temporary directory: %w", err))
	}
	out := &pcm{dir: dir}
	path := filepath.Join(dir, "audio.pcm")
	decodeCtx, cancel := ctx, context.CancelFunc(func() {})
	if !stopAt.IsZero() {
		decodeCtx, cancel = context.WithDeadline(ctx, stopAt)
	}
	_, decErr := run.Run(decodeCtx, extractors.Cmd{Name: "ffmpeg", Args: decodeArgs(a, path, maxBytes), Heavy: true,
		MaxMemory: decoderMemory})
	decodeLate := decodeCtx.Err() != nil
	cancel()
	fail := func(err error) (*pcm, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	switch {
	case ctx.Err() != nil:
		return fail(fmt.Errorf("decode audio: %w", ctx.Err()))
	case decodeLate:
		return fail(extractors.Transient(errors.New("speech recognition: time limit reached while decoding the audio")))
	}
	f, err := os.Open(path)
	if err != nil {
		if decErr != nil {
			return fail(fmt.Errorf("decode audio: %w", decErr))
		}
		return fail(fmt.Errorf("decode audio: %w", err))
	}
	out.file = f
	if fi, err := f.Stat(); err == nil {
		out.size = min(fi.Size(), maxBytes) &^ 1
	}
	if decErr != nil {
		if out.size < bytesPerSecond {
			out.Close()
			return nil, fmt.Errorf("decode audio: %w", decErr)
		}
		// A damaged file whose start decoded: its words are kept.
		out.reason = stopDecodeError
	} else if out.size >= maxBytes-bytesPerSecond/10 {
		out.reason = stopMaxSeconds
	}
	return out, nil
}

// Recognize implements Recognizer in two steps: ffmpeg decodes the
// stream into a temporary PCM file (decodePCM), then Go feeds that file
// to pocketsphinx_continuous, counting what it feeds and closing the
// input early when the time limit draws near. Both programs are Heavy,
// one after the other.
func (p *Pocketsphinx) Recognize(ctx context.Context, a Audio) (*Transcript, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	stopAt := time.Time{}
	if deadline, ok := ctx.Deadline(); ok {
		stop := p.stopAt
		if stop == nil {
			stop = stopBefore
		}
		stopAt = stop(deadline, time.Now())
	}
	audio, err := decodePCM(ctx, p.Run, a, stopAt)
	if err != nil {
		return nil, err
	}
	defer audio.Close()
	decoded, reason := audio.size, audio.reason

	fd := newFeed(io.LimitReader(audio.file, decoded))
	if !stopAt.IsZero() {
		t := time.AfterFunc(time.Until(stopAt), fd.stop)
		defer t.Stop()
	}
	errs := &errorLines{}
	out, recErr := p.Run.Run(ctx, extractors.Cmd{Name: "pocketsphinx_continuous", Args: p.args(), Stdin: fd,
		Stderr: errs, Heavy: true, MaxOutput: maxTranscriptOutput, MaxMemory: recogniserMemory})
	fed, stopped := fd.state()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("speech recognition: %w", ctx.Err())
	case recErr != nil:
		return nil, fmt.Errorf("pocketsphinx failed: %s", errs.summary(recErr))
	case stopped && fed == 0:
		// Nothing was recognised before the time limit: the machine was
		// busy (no slot), not the file at fault.
		return nil, extractors.Transient(errors.New("speech recognition: time limit reached before any audio was recognised"))
	case stopped && fed < decoded:
		reason = stopTimeLimit
	}
	return &Transcript{
		Language:  "en",
		Words:     ParsePocketsphinx(out),
		Seconds:   float64(fed) / bytesPerSecond,
		StoppedBy: reason,
	}, nil
}

// errorLines keeps the last few ERROR and FATAL lines pocketsphinx logs
// among its many INFO lines, to say why it failed.
type errorLines struct {
	mu    sync.Mutex
	part  []byte
	lines []string
}

func (e *errorLines) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.part = append(e.part, p...)
	for {
		i := bytes.IndexByte(e.part, '\n')
		if i < 0 {
			break
		}
		e.keep(string(e.part[:i]))
		e.part = e.part[i+1:]
	}
	if len(e.part) > 4096 {
		e.part = e.part[:0] // an endless line: not a log line worth keeping
	}
	return len(p), nil
}

func (e *errorLines) keep(line string) {
	if !strings.HasPrefix(line, "ERROR") && !strings.HasPrefix(line, "FATAL") {
		return
	}
	if len(line) > 300 {
		line = line[:300]
	}
	e.lines = append(e.lines, strings.ToValidUTF8(strings.TrimSpace(line), "?"))
	if len(e.lines) > 3 {
		e.lines = e.lines[1:]
	}
}

// summary words a failure: the exit status and the error lines, without
// the INFO lines whose numbers differ from run to run (errors are grouped
// by their text).
func (e *errorLines) summary(err error) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	status := "did not run"
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		status = exitErr.String()
	case errors.Is(err, extractors.ErrOutputLimit):
		status = "output over the limit"
	}
	if len(e.lines) == 0 {
		return status
	}
	return status + ": " + strings.Join(e.lines, "; ")
}
