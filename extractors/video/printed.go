package video

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// printedFrame is one frame as ffmpeg's metadata filter prints it
// (mode=print): a line "frame:N pts:P pts_time:T" followed by one
// "key=value" line per metadata entry of the frame.
type printedFrame struct {
	// Time in seconds; NaN when the frame had none ("NOPTS").
	Time float64
	// Score is the frame's lavfi.scene_score (0 to 1) set by the select
	// filter; 0 when absent or malformed.
	Score float64
}

// maxPrintedLine bounds a line of the metadata file; ffmpeg's are short.
const maxPrintedLine = 4096

// scanPrinted reads a metadata print file and calls fn for each frame, in
// file order, with its metadata read. It stops at fn's first error. Lines
// it does not know are skipped (a newer ffmpeg may print more); a line
// over maxPrintedLine is an error.
func scanPrinted(r io.Reader, fn func(printedFrame) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxPrintedLine)
	var cur *printedFrame
	flush := func() error {
		if cur == nil {
			return nil
		}
		f := *cur
		cur = nil
		return fn(f)
	}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "frame:") {
			if err := flush(); err != nil {
				return err
			}
			cur = &printedFrame{Time: printedTime(line)}
			continue
		}
		if cur == nil {
			continue
		}
		if v, ok := strings.CutPrefix(line, "lavfi.scene_score="); ok {
			if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s <= 1 {
				cur.Score = s
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read ffmpeg metadata: %w", err)
	}
	return flush()
}

// printedTime is the pts_time of a frame line, NaN when absent or not a
// finite, non-negative number.
func printedTime(line string) float64 {
	for _, field := range strings.Fields(line) {
		v, ok := strings.CutPrefix(field, "pts_time:")
		if !ok {
			continue
		}
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(t, 0) || t < 0 {
			return math.NaN()
		}
		return t
	}
	return math.NaN()
}

// frameMillis reads the time of a frame file written by ffmpeg's image2
// muxer with -frame_pts and a 1/1000 time base: "000012480.jpg" is 12.48 s.
func frameMillis(name string) (int64, bool) {
	digits, ok := strings.CutSuffix(name, ".jpg")
	if !ok || len(digits) < 9 || len(digits) > 12 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(digits, 10, 64)
	return ms, err == nil
}
