package nsfw

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// The sidecar speaks JSON lines (deploy/nsfw/server.js): a ready line
// once its model is loaded, then one answer per request, in order.

// Categories are nsfwjs's classes, in a fixed order.
var Categories = []string{"drawing", "hentai", "neutral", "porn", "sexy"}

// Scores are the classifier's probabilities of one picture, by category;
// they add up to 1.
type Scores map[string]float64

// Unsafe is the adult-content score of the picture: the probability of
// the adult categories (porn, hentai and sexy), 0 safe to 1 unsafe.
func (s Scores) Unsafe() float64 {
	return math.Min(1, s["porn"]+s["hentai"]+s["sexy"])
}

// Top is the most probable category.
func (s Scores) Top() string {
	best := ""
	for _, c := range Categories {
		if best == "" || s[c] > s[best] {
			best = c
		}
	}
	return best
}

// readyLine is the sidecar's first line.
type readyLine struct {
	Ready   bool   `json:"ready"`
	Model   string `json:"model"`
	Size    int    `json:"size"`
	Backend string `json:"backend"`
}

// request is one question to the sidecar.
type request struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// answer is the sidecar's answer to one request.
type answer struct {
	ID     *string            `json:"id"`
	Scores map[string]float64 `json:"scores"`
	Error  string             `json:"error"`
}

// ParseReady reads the sidecar's ready line: it must name the model asked
// for and a picture size the worker can make.
func ParseReady(line []byte, model string) (readyLine, error) {
	var r readyLine
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("nsfw sidecar: start line is not JSON: %q", clip(string(line), 200))
	}
	switch {
	case !r.Ready:
		return r, fmt.Errorf("nsfw sidecar: start line %q is not ready", clip(string(line), 200))
	case r.Model != model:
		return r, fmt.Errorf("nsfw sidecar: model %q loaded, %q asked for", clip(r.Model, 64), model)
	case r.Size < minSide || r.Size > maxSide:
		return r, fmt.Errorf("nsfw sidecar: picture size %d, want %d to %d", r.Size, minSide, maxSide)
	}
	r.Backend = clip(r.Backend, 32)
	return r, nil
}

// errAnswer is a picture the sidecar refused (its error answer): the
// process is fine.
type errAnswer struct{ msg string }

func (e *errAnswer) Error() string { return "nsfw sidecar: " + e.msg }

// ParseAnswer reads the answer to the request id: its scores, or the
// sidecar's refusal as an *errAnswer. Any other error means the process is
// out of step with its requests (an answer to another id, a malformed
// line) and must be killed.
func ParseAnswer(line []byte, id string) (Scores, error) {
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, fmt.Errorf("nsfw sidecar: answer is not JSON: %q", clip(string(line), 200))
	}
	if a.ID == nil || *a.ID != id {
		got := "null"
		if a.ID != nil {
			got = clip(*a.ID, 64)
		}
		return nil, fmt.Errorf("nsfw sidecar: answer for request %q, want %q", got, id)
	}
	if a.Error != "" {
		return nil, &errAnswer{msg: clip(a.Error, 500)}
	}
	if len(a.Scores) != len(Categories) {
		return nil, fmt.Errorf("nsfw sidecar: %d scores, want %d", len(a.Scores), len(Categories))
	}
	var sum float64
	out := make(Scores, len(Categories))
	for _, c := range Categories {
		v, ok := a.Scores[c]
		if !ok || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("nsfw sidecar: score %s %v", c, v)
		}
		out[c] = v
		sum += v
	}
	// A softmax adds up to 1; the sidecar rounds each to 6 decimals.
	if math.Abs(sum-1) > 0.01 {
		return nil, fmt.Errorf("nsfw sidecar: scores add up to %v", sum)
	}
	return out, nil
}

// errLineTooLong is a line over the limit: the process is killed.
var errLineTooLong = fmt.Errorf("nsfw sidecar: %w: line too long", extractors.ErrOutputLimit)

// readLine reads one line of at most limit bytes (without the newline).
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, errors.New("nsfw sidecar: output ended")
		default:
			return nil, fmt.Errorf("nsfw sidecar: read: %w", err)
		}
	}
}

// clip bounds a string of untrusted origin put into an error or data.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
