package ocr

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// reading makes a video reading of frames every interval seconds, the
// texts given ("" for none).
func readingOf(interval, duration float64, texts ...string) *videoReading {
	vr := &videoReading{Source: fromSampling, Interval: interval, Duration: duration}
	for i, tx := range texts {
		vr.Frames = append(vr.Frames, frameReading{Time: float64(i) * interval, Text: tx, HasText: alnum(tx) >= minFrameChars})
	}
	return vr
}

const slateText = "TITLE: HARBOUR\nSCENE 12 TAKE 3"

func TestFindSlates(t *testing.T) {
	t.Parallel()
	// 0-4 s slate, a programme, a tail slate in the last minute.
	texts := make([]string, 100)
	texts[0], texts[1] = slateText, slateText+"\nDATE 2024-05-17"
	texts[50] = slateText // in the middle: not a slate
	texts[98] = "CLIENT: ACME\nDURATION 30s"
	vr := readingOf(2, 200, texts...)
	got := findSlates(vr, nil)
	want := []slate{
		{span: span{0, 4}, Position: "head", Text: slateText + "\nDATE 2024-05-17", Keywords: []string{"title", "scene", "take", "date"}},
		{span: span{196, 198}, Position: "tail", Text: "CLIENT: ACME\nDURATION 30s", Keywords: []string{"client", "duration"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("slates\n got %+v\nwant %+v", got, want)
	}

	// Credits that name slate words are not slates.
	vr = readingOf(2, 20, "Director of Photography\nJOHN DOE\nProduction Designer\nJANE ROE")
	if got := findSlates(vr, nil); len(got) != 0 {
		t.Errorf("credits taken for a slate: %+v", got)
	}

	// One slate word is enough where vendor_start_end found a still,
	// silent slate, and not elsewhere.
	vr = readingOf(2, 20, "", "", "TITLE HARBOUR", "TITLE HARBOUR", "", "", "TITLE HARBOUR")
	still := stillSlates(json.RawMessage(`{"found":true,"head":[{"kind":"black","start":0,"end":4,"duration":4},
		{"kind":"slate","start":4,"end":8,"duration":4}],"tail":[]}`))
	if !reflect.DeepEqual(still, []span{{4, 8}}) {
		t.Fatalf("still slates %+v", still)
	}
	got = findSlates(vr, still)
	if len(got) != 1 || got[0].span != (span{4, 8}) {
		t.Errorf("slate confirmed by vendor_start_end: %+v", got)
	}
	if got := findSlates(vr, nil); len(got) != 0 {
		t.Errorf("one slate word without a still slate: %+v", got)
	}
	if stillSlates(json.RawMessage(`not json`)) != nil || stillSlates(nil) != nil {
		t.Error("still slates from nothing")
	}
}

func TestFindCredits(t *testing.T) {
	t.Parallel()
	names := "Directed by\nANNA BERG\nMusic by\nLENA HOLM"
	roll := "PETER NOLAN\nMARIA LUND\nOSKAR VIK\nEMMA STONE"
	// A 20-minute video read every 10 s: a caption with names early on
	// (outside the last quarter), credits at the end with a black frame
	// between two cards.
	texts := make([]string, 120)
	texts[10], texts[11] = names, names
	texts[112], texts[113], texts[115], texts[116] = names, roll, roll, "PETER NOLAN\nIDA NORD\nCARL BERG"
	texts[118] = slateText
	vr := readingOf(10, 1200, texts...)
	got := findCredits(vr)
	if len(got) != 1 {
		t.Fatalf("credits %+v", got)
	}
	want := creditRun{span: span{1120, 1170}, Lines: 10,
		Text: "Directed by\nANNA BERG\nMusic by\nLENA HOLM\nPETER NOLAN\nMARIA LUND\nOSKAR VIK\nEMMA STONE\nIDA NORD\nCARL BERG"}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("credits\n got %+v\nwant %+v", got[0], want)
	}
	// A single card is not credits; nor is a slate, nor one long line.
	for _, tx := range []string{slateText, "A single long sentence of narration shown on the screen for a while"} {
		if creditLike(tx) {
			t.Errorf("%q is credit-like", tx)
		}
	}
	if got := findCredits(readingOf(2, 10, "", names, "", "")); len(got) != 0 {
		t.Errorf("one card: %+v", got)
	}
}

func TestTextedSpans(t *testing.T) {
	t.Parallel()
	vr := readingOf(2, 13, "TITLE CARD", "TITLE CARD", "", "", "lower third", "", "END CREDITS")
	texted, texts, textless := textedSpans(vr)
	if !reflect.DeepEqual(texted, []span{{0, 4}, {8, 10}, {12, 13}}) ||
		!reflect.DeepEqual(textless, []span{{4, 8}, {10, 12}}) ||
		!reflect.DeepEqual(texts, []string{"TITLE CARD", "lower third", "END CREDITS"}) {
		t.Errorf("texted %v %q, textless %v", texted, texts, textless)
	}
	d := spansSummary(vr, textless, nil)
	if d["count"] != 2 || d["total_duration"] != 6.0 || d["share"] != round3(6.0/13) {
		t.Errorf("summary %v", d)
	}
	// Nothing read: the whole video is textless.
	_, _, textless = textedSpans(&videoReading{Duration: 7})
	if fmt.Sprint(textless) != "[{0 7}]" {
		t.Errorf("textless of an unread video %v", textless)
	}
}

func TestPlanSamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		duration float64
		max      int
		want     samplePlan
	}{
		{24, 200, samplePlan{Dense: 2, Sparse: 2, Head: 24, TailStart: 24, Limit: 24, MaxFrames: 200}},
		{300, 200, samplePlan{Dense: 2, Sparse: 2, Head: 60, TailStart: 240, Limit: 300, MaxFrames: 200}},
		{7200, 200, samplePlan{Dense: 2, Sparse: 51, Head: 60, TailStart: 7140, Limit: 7200, MaxFrames: 200}},
		{7200, 20, samplePlan{Dense: 10, Sparse: 885, Head: 60, TailStart: 7140, Limit: 7200, MaxFrames: 20}},
		{0, 200, samplePlan{Dense: 2, Sparse: 10, Head: 60, TailStart: maxDecode, Limit: maxDecode, MaxFrames: 200}},
		{99999, 200, samplePlan{Dense: 2, Sparse: 102, Head: 60, TailStart: maxDecode - 60, Limit: maxDecode, MaxFrames: 200}},
	} {
		if got := planSamples(c.duration, c.max); got != c.want {
			t.Errorf("plan(%v, %d) = %+v, want %+v", c.duration, c.max, got, c.want)
		}
	}
}
