package ocr

// span is a stretch of a video, in seconds from its start.
type span struct{ Start, End float64 }

func (s span) Duration() float64 { return s.End - s.Start }

// maxListed bounds the ranges an analysis lists in its data; counts and
// totals cover all of them.
const maxListed = 1000

// frameEnd is where frame i of vr stops standing for the video: at the
// next frame, the last one at the end of the analysed video (or one
// interval on when the video is not known to go further). Frames are
// sampled, so a range found on them is exact to the spacing of the frames.
func (vr *videoReading) frameEnd(i int) float64 {
	if i+1 < len(vr.Frames) {
		return vr.Frames[i+1].Time
	}
	t := vr.Frames[i].Time
	if vr.Duration > t {
		return vr.Duration
	}
	return t + max(vr.Interval, 0)
}

// run is a stretch of consecutive frames [First, Last].
type run struct{ First, Last int }

// runs groups the frames for which keep holds into runs of consecutive
// frames; gap non-keeping frames may sit inside a run (a credit card
// fading through black between two others).
func (vr *videoReading) runs(keep func(i int) bool, gap int) []run {
	var out []run
	open := false
	var cur run
	misses := 0
	for i := range vr.Frames {
		switch {
		case keep(i) && open:
			cur.Last, misses = i, 0
		case keep(i):
			cur, open, misses = run{i, i}, true, 0
		case open:
			misses++
			if misses > gap {
				out = append(out, cur)
				open = false
			}
		}
	}
	if open {
		out = append(out, cur)
	}
	return out
}

// span is the stretch of video a run of frames stands for.
func (vr *videoReading) span(r run) span {
	return span{Start: vr.Frames[r.First].Time, End: vr.frameEnd(r.Last)}
}

// spanData is one stored range.
func spanData(s span) map[string]any {
	return map[string]any{"start": round3(s.Start), "end": round3(s.End), "duration": round3(s.Duration())}
}

// frameFacts are the facts about the frames every analysis stores, so
// that a reader knows how fine its times are.
func frameFacts(vr *videoReading, data map[string]any) map[string]any {
	data["frames_source"] = vr.Source
	data["frame_interval"] = round3(vr.Interval)
	data["analysed_duration"] = round3(vr.Duration)
	data["frames_read"] = len(vr.Frames)
	return data
}
