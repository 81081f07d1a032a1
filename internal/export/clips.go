package export

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Clip is one entry of a compilation as an editing tool needs it: the
// item, the moment of it (In and Out, seconds) or the whole item, and what
// is known of its media.
type Clip struct {
	ItemID string
	Name   string
	// Source says where the file is: its store URL
	// (kind://location/container/path), which a person relinks from.
	Source string
	// In and Out are a moment's points in seconds; both nil for the whole
	// item.
	In, Out *float64
	// Duration is the item's length in seconds (0: unknown, or not a
	// recording).
	Duration float64
	// FrameRate is its video's frames a second (0: no video, or unknown).
	FrameRate float64
	// StartTimecode is its first frame's timecode as the file tags it
	// ("01:00:00:00"); "" when it has none.
	StartTimecode string
	HasVideo      bool
	HasAudio      bool
}

// Span is the part of the item the clip stands for, in seconds: the
// moment, else the whole item; false when it has no known length (a
// picture, a document).
func (c Clip) Span() (in, out float64, ok bool) {
	if c.In != nil && c.Out != nil && *c.Out > *c.In {
		return *c.In, *c.Out, true
	}
	if c.Duration > 0 {
		return 0, c.Duration, true
	}
	return 0, 0, false
}

// rate is the clip's own frame rate (DefaultRate without video).
func (c Clip) rate() Rate { return RateOf(c.FrameRate) }

// startFrame is the clip's first frame's number at r from its start
// timecode (0 without one).
func (c Clip) startFrame(r Rate) int64 {
	if c.StartTimecode == "" {
		return 0
	}
	own := c.rate()
	n, ok := own.ParseTimecode(c.StartTimecode)
	if !ok {
		return 0
	}
	if own == r {
		return n
	}
	return r.Frames(own.Seconds(n))
}

// Sequence is a compilation to export: its title and its clips in order.
type Sequence struct {
	ID, Title string
	Clips     []Clip
}

// rate is the sequence's: the first video clip's, else DefaultRate.
func (s Sequence) rate() Rate {
	for _, c := range s.Clips {
		if c.HasVideo && c.FrameRate > 0 {
			return c.rate()
		}
	}
	return DefaultRate
}

// oneLine makes untrusted text one line of printable characters: an EDL
// line or comment that a name cannot break or add to.
func oneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max])
	}
	return s
}

// cell is a CSV value a spreadsheet shows as text: one that starts like a
// formula (=, +, -, @, a tab or a carriage return) gets a leading quote.
func cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

func secs(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64) }

// ShotListColumns are the columns of ShotList.
var ShotListColumns = []string{"position", "name", "in", "out", "duration", "timecode_in", "timecode_out", "frame_rate", "source", "item_id"}

// ShotList writes the sequence as CSV, a clip a row: in, out and duration
// in seconds (empty for an item of no known length), the source timecodes
// of in and out at the clip's own rate when it has video (its start
// timecode added), its source and item id.
func ShotList(w io.Writer, s Sequence) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ShotListColumns); err != nil {
		return err
	}
	for i, c := range s.Clips {
		row := []string{strconv.Itoa(i + 1), cell(c.Name), "", "", "", "", "", "", cell(c.Source), c.ItemID}
		if in, out, ok := c.Span(); ok {
			row[2], row[3], row[4] = secs(in), secs(out), secs(out-in)
			if c.HasVideo && c.FrameRate > 0 {
				r := c.rate()
				start := c.startFrame(r)
				row[5], row[6] = r.Timecode(start+r.Frames(in)), r.Timecode(start+r.Frames(out))
				row[7] = secs(r.FPS)
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// RecordStart is where an exported sequence starts on the timeline
// (01:00:00:00, as editing tools start theirs).
const RecordStart = 3600.0

// EDL writes the sequence as a CMX 3600 edit decision list at the rate of
// its first video clip (25 fps without one): an event a clip, cut after
// cut from RecordStart, each with its clip name and source file as
// comments; moments as their in and out points, whole items from their
// first frame to their last. Source timecodes count from the clip's start
// timecode when the file has one. Clips of no known length (pictures,
// documents) are left out. Event numbers have three digits up to 999 and
// more after it.
func EDL(w io.Writer, s Sequence) error {
	r := s.rate()
	fcm := "NON-DROP FRAME"
	if r.Drop {
		fcm = "DROP FRAME"
	}
	title := oneLine(s.Title, 70)
	if title == "" {
		title = "Untitled"
	}
	b := &strings.Builder{}
	fmt.Fprintf(b, "TITLE: %s\nFCM: %s\n", title, fcm)
	rec := r.Frames(RecordStart)
	n := 0
	for _, c := range s.Clips {
		in, out, ok := c.Span()
		if !ok {
			continue
		}
		start := c.startFrame(r)
		srcIn, srcOut := start+r.Frames(in), start+r.Frames(out)
		if srcOut <= srcIn {
			srcOut = srcIn + 1 // a moment shorter than a frame is one frame
		}
		n++
		track := "V"
		switch {
		case c.HasVideo && c.HasAudio:
			track = "AA/V"
		case !c.HasVideo && c.HasAudio:
			track = "AA"
		}
		fmt.Fprintf(b, "\n%03d  AX       %-5s C        %s %s %s %s\n", n, track,
			r.Timecode(srcIn), r.Timecode(srcOut), r.Timecode(rec), r.Timecode(rec+srcOut-srcIn))
		fmt.Fprintf(b, "* FROM CLIP NAME: %s\n", oneLine(c.Name, 200))
		if src := oneLine(c.Source, 1000); src != "" {
			fmt.Fprintf(b, "* SOURCE FILE: %s\n", src)
		}
		rec += srcOut - srcIn
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// OpenTimelineIO's schema objects, in the order its own writer puts their
// keys.

type otioRationalTime struct {
	Schema string  `json:"OTIO_SCHEMA"`
	Rate   float64 `json:"rate"`
	Value  float64 `json:"value"`
}

type otioTimeRange struct {
	Schema    string           `json:"OTIO_SCHEMA"`
	Duration  otioRationalTime `json:"duration"`
	StartTime otioRationalTime `json:"start_time"`
}

type otioExternalReference struct {
	Schema         string         `json:"OTIO_SCHEMA"`
	Metadata       map[string]any `json:"metadata"`
	Name           string         `json:"name"`
	AvailableRange *otioTimeRange `json:"available_range"`
	TargetURL      string         `json:"target_url"`
}

type otioClip struct {
	Schema         string                `json:"OTIO_SCHEMA"`
	Metadata       map[string]any        `json:"metadata"`
	Name           string                `json:"name"`
	SourceRange    otioTimeRange         `json:"source_range"`
	Effects        []any                 `json:"effects"`
	Markers        []any                 `json:"markers"`
	Enabled        bool                  `json:"enabled"`
	MediaReference otioExternalReference `json:"media_reference"`
}

type otioTrack struct {
	Schema      string         `json:"OTIO_SCHEMA"`
	Metadata    map[string]any `json:"metadata"`
	Name        string         `json:"name"`
	SourceRange *otioTimeRange `json:"source_range"`
	Effects     []any          `json:"effects"`
	Markers     []any          `json:"markers"`
	Enabled     bool           `json:"enabled"`
	Children    []any          `json:"children"`
	Kind        string         `json:"kind,omitempty"`
}

type otioTimeline struct {
	Schema          string           `json:"OTIO_SCHEMA"`
	Metadata        map[string]any   `json:"metadata"`
	Name            string           `json:"name"`
	GlobalStartTime otioRationalTime `json:"global_start_time"`
	Tracks          otioTrack        `json:"tracks"`
}

func rt(rate float64, value int64) otioRationalTime {
	return otioRationalTime{Schema: "RationalTime.1", Rate: rate, Value: float64(value)}
}

func tr(rate float64, start, dur int64) otioTimeRange {
	return otioTimeRange{Schema: "TimeRange.1", Duration: rt(rate, dur), StartTime: rt(rate, start)}
}

// OTIO writes the sequence as an OpenTimelineIO timeline (JSON, schema
// Timeline.1): one track (Video, or Audio when no clip has video) of
// Clip.1 objects, each a moment or a whole item at the clip's own rate,
// its media an ExternalReference to its source with the file's whole range
// as available_range. Times count from the clip's start timecode; the
// timeline starts at RecordStart. Clips of no known length are left out.
// The metadata of the timeline and of each clip carry the platform's ids
// under "metaharvest".
func OTIO(w io.Writer, s Sequence) error {
	seqRate := s.rate()
	kind := "Audio"
	var children []any
	for _, c := range s.Clips {
		if c.HasVideo {
			kind = "Video"
		}
		in, out, ok := c.Span()
		if !ok {
			continue
		}
		r := c.rate()
		if !c.HasVideo {
			r = seqRate
		}
		start := c.startFrame(r)
		inF, outF := start+r.Frames(in), start+r.Frames(out)
		if outF <= inF {
			outF = inF + 1
		}
		ref := otioExternalReference{Schema: "ExternalReference.1", Metadata: map[string]any{}, TargetURL: c.Source}
		if c.Duration > 0 {
			avail := tr(r.FPS, start, r.Frames(c.Duration))
			ref.AvailableRange = &avail
		}
		children = append(children, otioClip{
			Schema: "Clip.1", Name: c.Name,
			Metadata:       map[string]any{"metaharvest": map[string]any{"item_id": c.ItemID}},
			SourceRange:    tr(r.FPS, inF, outF-inF),
			Effects:        []any{},
			Markers:        []any{},
			Enabled:        true,
			MediaReference: ref,
		})
	}
	if children == nil {
		children = []any{}
	}
	track := otioTrack{Schema: "Track.1", Metadata: map[string]any{}, Name: kind[:1] + "1", Effects: []any{}, Markers: []any{},
		Enabled: true, Children: children, Kind: kind}
	tl := otioTimeline{
		Schema:          "Timeline.1",
		Metadata:        map[string]any{"metaharvest": map[string]any{"compilation_id": s.ID}},
		Name:            s.Title,
		GlobalStartTime: rt(seqRate.FPS, seqRate.Frames(RecordStart)),
		Tracks: otioTrack{Schema: "Stack.1", Metadata: map[string]any{}, Name: "tracks", Effects: []any{}, Markers: []any{},
			Enabled: true, Children: []any{track}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	return enc.Encode(tl)
}
