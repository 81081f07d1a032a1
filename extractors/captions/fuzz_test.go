package captions

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/extractors"
)

// checkParsed holds for every successful parse: cues the worker can
// store, in time order, with clean bounded text.
func checkParsed(t *testing.T, p *Parsed) {
	t.Helper()
	if len(p.Cues) > extractors.MaxCues {
		t.Fatalf("%d cues", len(p.Cues))
	}
	prev := -1.0
	for _, c := range p.Cues {
		if math.IsNaN(c.Start) || c.Start < 0 || c.End < c.Start || math.IsInf(c.End, 0) {
			t.Fatalf("cue times %v..%v", c.Start, c.End)
		}
		if c.Start < prev {
			t.Fatalf("cues out of order")
		}
		prev = c.Start
		if c.Text == "" || len(c.Text) > maxCueText || !utf8.ValidString(c.Text) || strings.ContainsRune(c.Text, 0) {
			t.Fatalf("cue text %q", c.Text)
		}
		if c.Start != float64(millis(c.Start))/1000 {
			t.Fatalf("start %v is not whole milliseconds", c.Start)
		}
	}
}

func fuzzParser(f *testing.F, parse func([]byte) (*Parsed, error), seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parse(b)
		if err != nil {
			return
		}
		checkParsed(t, p)
	})
}

func FuzzParseSRT(f *testing.F) {
	fuzzParser(f, ParseSRT,
		"1\n00:02:16,612 --> 00:02:19,376\nSenator, we're making\nour final approach into Coruscant.\n\n2\n00:02:19,482 --> 00:02:21,609\nVery good\n",
		"\xef\xbb\xbf00:00:01,000 --> 00:00:00,500 X1:1\n<i>x</i>{\\an8}\n\ngarbage\n\n",
		"1\n00:00:01.000 --> 00:00:02.000\nx\n",
		// ffmpeg's output for a closed caption stream
		"1\n00:00:01,000 --> 00:00:03,000\n<font face=\"Monospace\">{\\an7}HELLO</font>\n\n")
}

func FuzzParseVTT(f *testing.F) {
	fuzzParser(f, ParseVTT,
		"WEBVTT\nLanguage: en\n\n00:09.000 --> 00:11.000\n<v Roger Bingham>We are in New York City\n",
		"WEBVTT\n\nNOTE x\n\nid\n01:00:00.000 --> 01:00:01.000 align:start\n&amp;<c.x>y</c>\n",
		"WEBVTT")
}

func FuzzParseASS(f *testing.F) {
	fuzzParser(f, ParseASS,
		"[Script Info]\nScriptType: v4.00+\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:01.25,0:00:02.07,Default,,0,0,0,,{\\i1}Hi\\Nthere\n",
		"[Script Info]\n[Events]\nDialogue: 0,0:00:01.00,0:00:02.00,x,,0,0,0,,a,b\n")
}

func FuzzParseTTML(f *testing.F) {
	fuzzParser(f, ParseTTML,
		`<tt xml:lang="en" ttp:frameRate="25"><body><div begin="1s"><p begin="00:00:01.500" end="00:00:02:10">a<br/>b</p><p begin="5t" dur="1.5m">c</p></div></body></tt>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><tt><body><p begin="1s" end="2s">x</p></body></tt>`)
}

// FuzzParse covers format sniffing and encoding detection over all the
// pure parsers (SCC needs ffmpeg and is refused without a runner).
func FuzzParse(f *testing.F) {
	f.Add("x.srt", []byte("1\n00:00:01,000 --> 00:00:02,000\nx\n"))
	f.Add("x.vtt", []byte("\xff\xfeW\x00E\x00B\x00V\x00T\x00T\x00"))
	f.Add("x.ass", []byte("[Script Info]\n"))
	f.Add("x.dfxp", []byte("<tt/>"))
	f.Add("x.scc", []byte("Scenarist_SCC V1.0\n\n00:00:01:00\t9420\n"))
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		p, err := Parse(t.Context(), nil, name, b)
		if err != nil {
			return
		}
		checkParsed(t, p)
	})
}

func FuzzSidecarLanguage(f *testing.F) {
	f.Add("clip.mp4", "clip.en.forced.srt")
	f.Add(".mp4", "..srt")
	f.Fuzz(func(t *testing.T, media, caption string) {
		lang, ok := sidecarLanguage(media, caption)
		if !ok && lang != "" {
			t.Fatalf("language %q of a file that is no sidecar", lang)
		}
		_ = nameLanguage(caption)
	})
}

func FuzzSideDataHasA53(f *testing.F) {
	f.Add([]byte("ATSC A53 Part 4 Closed Captions\nH.26[45] User Data Unregistered SEI message\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = sideDataHasA53(b) })
}
