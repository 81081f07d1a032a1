package vision

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

// The sidecar speaks JSON lines (deploy/vision/server.js): a ready line
// once the backend is up, then one answer per request, in order.

// Tasks of the sidecar.
const (
	TaskNSFW    = "nsfw"    // nsfwjs's five probabilities of the picture
	TaskObjects = "objects" // Human's centernet: COCO objects with boxes
	TaskFace    = "face"    // Human's blazeface, facemesh, faceres, faceres-deep and face-api's nets on a face crop: faces with descriptors
	TaskDetect  = "detect"  // Human's blazeface alone on a whole picture: faces' boxes and scores
	taskLoad    = "load"
)

// Ready is the sidecar's first line.
type Ready struct {
	Ready   bool     `json:"ready"`
	Backend string   `json:"backend"`
	Tasks   []string `json:"tasks"`
	Loaded  []string `json:"loaded"`
}

// Request is one question to the sidecar: a task on the PPM picture at
// Path (absolute, written by the worker); Model names the nsfwjs model.
type Request struct {
	ID    string   `json:"id"`
	Path  string   `json:"path,omitempty"`
	Task  string   `json:"task"`
	Model string   `json:"model,omitempty"`
	Load  []string `json:"load,omitempty"`
}

// loadKey is what a request needs loaded in the process ("face",
// "objects", "nsfw:MobileNetV2").
func (r Request) loadKey() string {
	if r.Task == TaskNSFW {
		return TaskNSFW + ":" + r.Model
	}
	return r.Task
}

// Answer is the sidecar's answer to one request; which part is set
// depends on the task. Callers check the part they asked for.
type Answer struct {
	ID      *string            `json:"id"`
	Error   string             `json:"error"`
	Scores  map[string]float64 `json:"scores"`
	Objects []Object           `json:"objects"`
	Faces   []Face             `json:"faces"`
	Loaded  []string           `json:"loaded"`
}

// Object is one COCO object the sidecar found: Box is left, top, width,
// height in the pixels of the picture sent.
type Object struct {
	Label string     `json:"label"`
	Score float64    `json:"score"`
	Box   [4]float64 `json:"box"`
}

// Face is one face found in a crop, with its descriptor (base64 of
// facedesc.Dims little-endian float32; see DecodeDescriptor).
type Face struct {
	Box        [4]float64 `json:"box"`
	Score      float64    `json:"score"`
	Descriptor string     `json:"descriptor"`
}

// ParseReady reads the sidecar's ready line: it must offer the tasks the
// worker asks for.
func ParseReady(line []byte) (Ready, error) {
	var r Ready
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("vision sidecar: start line is not JSON: %q", Clip(string(line), 200))
	}
	if !r.Ready {
		return r, fmt.Errorf("vision sidecar: start line %q is not ready", Clip(string(line), 200))
	}
	for _, t := range []string{TaskNSFW, TaskObjects, TaskFace, TaskDetect} {
		found := false
		for _, have := range r.Tasks {
			found = found || have == t
		}
		if !found {
			return r, fmt.Errorf("vision sidecar: task %s not offered (an older server.js?)", t)
		}
	}
	r.Backend = Clip(r.Backend, 32)
	return r, nil
}

// Refusal is a picture the sidecar refused (its error answer): the
// process is fine.
type Refusal struct{ Msg string }

func (e *Refusal) Error() string { return "vision sidecar: " + e.Msg }

// ParseAnswer reads the answer to the request id, or the sidecar's refusal
// as a *Refusal. Any other error means the process is out of step with its
// requests (an answer to another id, a malformed line) and must be killed.
func ParseAnswer(line []byte, id string) (Answer, error) {
	var a Answer
	if err := json.Unmarshal(line, &a); err != nil {
		return Answer{}, fmt.Errorf("vision sidecar: answer is not JSON: %q", Clip(string(line), 200))
	}
	if a.ID == nil || *a.ID != id {
		got := "null"
		if a.ID != nil {
			got = Clip(*a.ID, 64)
		}
		return Answer{}, fmt.Errorf("vision sidecar: answer for request %q, want %q", got, id)
	}
	if a.Error != "" {
		return Answer{}, &Refusal{Msg: Clip(a.Error, 500)}
	}
	for _, o := range a.Objects {
		if !finite(o.Score, o.Box[0], o.Box[1], o.Box[2], o.Box[3]) {
			return Answer{}, errors.New("vision sidecar: an object with a number out of range")
		}
	}
	for _, f := range a.Faces {
		if !finite(f.Score, f.Box[0], f.Box[1], f.Box[2], f.Box[3]) {
			return Answer{}, errors.New("vision sidecar: a face with a number out of range")
		}
	}
	return a, nil
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e7 {
			return false
		}
	}
	return true
}

// ErrLineTooLong is a line over the limit: the process is killed.
var ErrLineTooLong = fmt.Errorf("vision sidecar: %w: line too long", extractors.ErrOutputLimit)

// ReadLine reads one line of at most limit bytes (without the newline).
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, errors.New("vision sidecar: output ended")
		default:
			return nil, fmt.Errorf("vision sidecar: read: %w", err)
		}
	}
}

// Clip bounds a string of untrusted origin put into an error or data.
func Clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
