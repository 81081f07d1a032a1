package ocr

// The texted/textless rule, shared by vendor_texted and vendor_textless:
// a frame is texted when it has text (its kept words hold at least four
// letters or digits: captions, lower thirds, titles, credits, slates);
// texted ranges are runs of consecutive texted frames, each standing for
// the time from its first frame to the frame after its last; textless
// ranges are the rest of the analysed video. Broadcasters look for the
// textless stretches to cut a textless version or to lay other text over.

// textedSpans returns the texted ranges with their text (the distinct texts
// of their frames, at most 512 bytes) and the textless ranges.
func textedSpans(vr *videoReading) (texted []span, texts []string, textless []span) {
	cur := 0.0
	for _, r := range vr.runs(func(i int) bool { return vr.Frames[i].HasText }, 0) {
		s := vr.span(r)
		if s.Start > cur {
			textless = append(textless, span{cur, s.Start})
		}
		cur = s.End
		texted = append(texted, s)
		t := newTextBuilder(512)
		last := ""
		for i := r.First; i <= r.Last; i++ {
			if f := vr.Frames[i]; f.Text != last {
				t.add("\n", f.Text)
				last = f.Text
			}
		}
		texts = append(texts, t.String())
	}
	end := vr.Duration
	if n := len(vr.Frames); n > 0 {
		end = max(end, vr.frameEnd(n-1))
	}
	if end > cur {
		textless = append(textless, span{cur, end})
	}
	return texted, texts, textless
}

// spansSummary is what vendor_texted and vendor_textless store besides the
// frame facts: the ranges (the first maxListed), their count, total
// duration and share of the analysed video.
func spansSummary(vr *videoReading, rs []span, texts []string) map[string]any {
	total := 0.0
	list := make([]any, 0, min(len(rs), maxListed))
	for i, r := range rs {
		total += r.Duration()
		if i < maxListed {
			d := spanData(r)
			if texts != nil {
				d["text"] = texts[i]
			}
			list = append(list, d)
		}
	}
	share := 0.0
	if vr.Duration > 0 {
		share = min(1, total/vr.Duration)
	}
	return map[string]any{"count": len(rs), "total_duration": round3(total), "share": round3(share), "ranges": list}
}
