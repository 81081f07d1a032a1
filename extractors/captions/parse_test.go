package captions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"

	"github.com/metaharvest/metaharvest/extractors"
)

func cue(start, end float64, text string) extractors.Cue {
	return extractors.Cue{Start: start, End: end, Text: text}
}

func sameCues(t *testing.T, what string, got, want []extractors.Cue) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cues, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: cue %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected cues were read off the files by hand.
func TestParseSampleSRT(t *testing.T) {
	t.Parallel()
	p, err := Parse(context.Background(), nil, "srt.srt", readTestdata(t, "srt.srt"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "srt" || p.Encoding != "utf-8" || p.Skipped != 0 || p.Duration() != 202.671 {
		t.Errorf("parsed %+v", p)
	}
	sameCues(t, "srt.srt", p.Cues, []extractors.Cue{
		cue(136.612, 139.376, "Senator, we're making\nour final approach into Coruscant."),
		cue(139.482, 141.609, "Very good, Lieutenant."),
		cue(193.336, 195.167, "We made it."),
		cue(198.608, 200.371, "I guess I was wrong."),
		cue(200.476, 202.671, "There was no danger at all."),
	})
}

func TestParseSampleVTT(t *testing.T) {
	t.Parallel()
	p, err := Parse(context.Background(), nil, "vtt.vtt", readTestdata(t, "vtt.vtt"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "vtt" || p.Language != "en" || len(p.Cues) != 14 || p.Skipped != 0 {
		t.Fatalf("parsed %+v", p)
	}
	sameCues(t, "vtt.vtt (first, 12th to last)", append(p.Cues[:1:1], p.Cues[11:]...), []extractors.Cue{
		cue(9, 11, "We are in New York City"),
		cue(32, 35.5, "No! No no no no; 'cos 'cos obviously 'cos"),
		cue(32.5, 33.5, "Laughs"),
		cue(35.5, 38, "You know I'm so excited my glasses are falling off here."),
	})
	for _, name := range []string{"vtt.eof.vtt", "vtt.space.vtt", "vtt.tab.vtt"} {
		p, err := Parse(context.Background(), nil, name, readTestdata(t, name))
		if err != nil || p.Format != "vtt" || len(p.Cues) != 0 {
			t.Errorf("%s: %+v %v", name, p, err)
		}
	}
}

// Text that merely looks like SubRip (a "." before the milliseconds, or no
// milliseconds) is not captions, whatever its name.
func TestNotSRT(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"not.srt.txt", "not.srt.2.txt"} {
		b := readTestdata(t, name)
		for _, as := range []string{name, "renamed.srt"} {
			if p, err := Parse(context.Background(), nil, as, b); err == nil || !IsNotFormat(err) {
				t.Errorf("%s as %s: %+v %v, want not SRT", name, as, p, err)
			}
		}
		if _, err := ParseSRT(b); err == nil {
			t.Errorf("%s: ParseSRT accepted it", name)
		}
	}
}

func TestSRTDetails(t *testing.T) {
	t.Parallel()
	in := "\uFEFF1\r\n00:00:01,000 --> 00:00:02,500 X1:10 X2:20\r\n<i>Hello</i> <font color=\"red\">there</font>\r\n{\\an8}top &amp; more\r\n\r\n" +
		"2\r\n00:00:03,000 --> 00:00:02,000\r\nend before start\r\n\r\n" +
		"garbage block\r\nmore\r\n\r\n" +
		"00:00:04,000 --> 00:00:05,001\r\nno number, a < b\r\n\r\n" +
		"5\r\n\r\n" +
		"100:00:00,000 --> 100:00:01,000\r\nlate\r\n"
	p, err := ParseSRT([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	sameCues(t, "details", p.Cues, []extractors.Cue{
		cue(1, 2.5, "Hello there\ntop & more"),
		cue(3, 3, "end before start"),
		cue(4, 5.001, "no number, a < b"),
		cue(360000, 360001, "late"),
	})
	if p.Skipped != 2 {
		t.Errorf("skipped %d, want 2", p.Skipped)
	}
	for _, bad := range []string{"", "\n\n", "hello\n", "1\n00:00:01.000 --> 00:00:02.000\nx\n", "1\n00:61:00,000 --> 00:62:00,000\nx\n",
		"1\n00:00:01,0000 --> 00:00:02,000\nx\n", "1\n0:0:1,000 --> 0:0:2,000\nx\n"} {
		if p, err := ParseSRT([]byte(bad)); err == nil {
			t.Errorf("ParseSRT(%q) = %+v", bad, p)
		}
	}
}

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var out []byte
	if bom {
		if bigEndian {
			out = append(out, 0xFE, 0xFF)
		} else {
			out = append(out, 0xFF, 0xFE)
		}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestEncodings(t *testing.T) {
	t.Parallel()
	src := "1\n00:00:01,000 --> 00:00:02,000\nCafé “déjà” vu – 日本\n"
	for _, c := range []struct {
		name string
		b    []byte
		enc  string
		text string
	}{
		{"utf-8", []byte(src), "utf-8", "Café “déjà” vu – 日本"},
		{"utf-8 bom", append([]byte{0xEF, 0xBB, 0xBF}, src...), "utf-8", "Café “déjà” vu – 日本"},
		{"utf-16le bom", utf16Bytes(src, false, true), "utf-16le", "Café “déjà” vu – 日本"},
		{"utf-16be bom", utf16Bytes(src, true, true), "utf-16be", "Café “déjà” vu – 日本"},
		{"utf-16le", utf16Bytes(src, false, false), "utf-16le", "Café “déjà” vu – 日本"},
		{"utf-16be", utf16Bytes(src, true, false), "utf-16be", "Café “déjà” vu – 日本"},
		// Café “déjà” vu – in Windows-1252: é=E9, “=93, ”=94, à=E0, –=96.
		{"windows-1252", []byte("1\n00:00:01,000 --> 00:00:02,000\nCaf\xe9 \x93d\xe9j\xe0\x94 vu \x96 \x81\n"), "windows-1252", "Café “déjà” vu – \uFFFD"},
	} {
		p, err := ParseSRT(c.b)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Encoding != c.enc || len(p.Cues) != 1 || p.Cues[0].Text != c.text {
			t.Errorf("%s: %s %+v", c.name, p.Encoding, p.Cues)
		}
	}
	if _, err := ParseSRT([]byte("1\n00:00:01,000 --> 00:00:02,000\nnul\x00here\n")); !errors.Is(err, errBinary) {
		t.Errorf("NUL in single-byte text: %v", err)
	}
	// Control characters never reach a cue (Postgres refuses NUL in JSON).
	p, err := ParseSRT(utf16Bytes("1\n00:00:01,000 --> 00:00:02,000\nbell\a tab\there\n", false, true))
	if err != nil || p.Cues[0].Text != "bell tab\there" {
		t.Errorf("control characters: %+v %v", p, err)
	}
}

func TestVTTDetails(t *testing.T) {
	t.Parallel()
	in := "WEBVTT - a title\nKind: captions\nLanguage: pt-BR\n\n" +
		"STYLE\n::cue { color: red }\n\n" +
		"NOTE a comment\nwith --> an arrow\n\n" +
		"intro\n00:00:01.000 --> 00:00:02.000 line:0 position:10%\n<v.loud Ana>Olá <c.yellow>mundo</c> <00:00:01.500>agora\n\n" +
		"01:00:00.123 --> 01:00:01.000\nhours\n\n" +
		"id only\nnot a timing\n\n" +
		"00:00:03.000 --> 00:00:04.000\n&lt;b&gt; is &quot;bold&quot;&nbsp;tag\n"
	p, err := ParseVTT([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Language != "pt-BR" || p.Skipped != 1 {
		t.Errorf("language %q skipped %d", p.Language, p.Skipped)
	}
	sameCues(t, "vtt", p.Cues, []extractors.Cue{
		cue(1, 2, "Olá mundo agora"),
		cue(3, 4, "<b> is \"bold\"\u00a0tag"),
		cue(3600.123, 3601, "hours"),
	})
	for _, bad := range []string{"", "WEBVTTX\n", "1\n00:00:01,000 --> 00:00:02,000\nx\n", "WEBVTT\n00:01.000 --> 00:02.000\nno blank line\n"} {
		if p, err := ParseVTT([]byte(bad)); err == nil {
			t.Errorf("ParseVTT(%q) = %+v", bad, p)
		}
	}
}

func TestASS(t *testing.T) {
	t.Parallel()
	in := "[Script Info]\nTitle: x\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname\nStyle: Default,Arial\n\n" +
		"[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n" +
		"Dialogue: 0,0:00:03.50,0:00:04.00,Default,,0,0,0,,second, with a comma\n" +
		"Comment: 0,0:00:00.00,0:00:09.00,Default,,0,0,0,,not shown\n" +
		"Dialogue: 0,0:00:01.25,0:00:02.07,Default,Bob,0,0,0,,{\\i1}Hello{\\i0}\\Nworld\\hagain\n" +
		"Dialogue: 0,bad,0:00:02.00,Default,,0,0,0,,bad time\n"
	p, err := ParseASS([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "ass" || p.Skipped != 1 {
		t.Errorf("format %s skipped %d", p.Format, p.Skipped)
	}
	sameCues(t, "ass", p.Cues, []extractors.Cue{
		cue(1.25, 2.07, "Hello\nworld again"),
		cue(3.5, 4, "second, with a comma"),
	})
	ssa := "[Script Info]\nScriptType: v4.00\n[Events]\nFormat: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n" +
		"Dialogue: Marked=0,0:00:01.00,0:00:02.00,Default,,0000,0000,0000,,ssa line\n"
	if p, err := ParseASS([]byte(ssa)); err != nil || p.Format != "ssa" || len(p.Cues) != 1 || p.Cues[0].Text != "ssa line" {
		t.Errorf("ssa: %+v %v", p, err)
	}
	if _, err := ParseASS([]byte("[Events]\nDialogue: 0,0:00:01.00,0:00:02.00,,,0,0,0,,x\n")); err == nil {
		t.Error("ASS without [Script Info] accepted")
	}
}

func TestTTML(t *testing.T) {
	t.Parallel()
	in := `<?xml version="1.0" encoding="UTF-8"?>
<tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" xml:lang="de"
    ttp:frameRate="25" ttp:tickRate="10000000">
  <head><styling/></head>
  <body>
    <div>
      <p begin="00:00:01.500" end="00:00:02.250">Guten <span>Tag</span><br/>zweite   Zeile</p>
      <p begin="3s" dur="500ms">offset</p>
      <p begin="00:00:04:05" end="00:00:05:00">frames</p>
      <p begin="60000000t" end="70000000t">ticks</p>
      <p>untimed</p>
    </div>
    <div begin="10s"><p begin="1s" end="2s">nested</p></div>
  </body>
</tt>`
	p, err := ParseTTML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Language != "de" || p.Skipped != 1 {
		t.Errorf("language %q skipped %d", p.Language, p.Skipped)
	}
	sameCues(t, "ttml", p.Cues, []extractors.Cue{
		cue(1.5, 2.25, "Guten Tag\nzweite Zeile"),
		cue(3, 3.5, "offset"),
		cue(4.2, 5, "frames"),
		cue(6, 7, "ticks"),
		cue(11, 12, "nested"),
	})
	for _, bad := range []string{"", "<html/>", "<tt><p begin='1s' end='2s'>x</tt>", "1\n00:00:01,000 --> 00:00:02,000\nx\n"} {
		if p, err := ParseTTML([]byte(bad)); err == nil && len(bad) > 0 {
			t.Errorf("ParseTTML(%q) = %+v", bad, p)
		}
	}
	deep := "<tt>" + strings.Repeat("<div>", 100) + strings.Repeat("</div>", 100) + "</tt>"
	if _, err := ParseTTML([]byte(deep)); err == nil {
		t.Error("100 nested elements accepted")
	}
	// No entity expansion beyond XML's own five.
	bomb := `<?xml version="1.0"?><!DOCTYPE tt [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><tt><body><p begin="1s" end="2s">&b;</p></body></tt>`
	if p, err := ParseTTML([]byte(bomb)); err == nil && len(p.Cues) > 0 && strings.Contains(p.Cues[0].Text, "aaaa") {
		t.Errorf("entities expanded: %+v", p.Cues)
	}
}

func TestSniffByContent(t *testing.T) {
	t.Parallel()
	vtt := []byte("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n")
	if p, err := Parse(context.Background(), nil, "misnamed.srt", vtt); err != nil || p.Format != "vtt" {
		t.Errorf("WebVTT named .srt: %+v %v", p, err)
	}
	if _, err := Parse(context.Background(), nil, "x.scc", []byte(sccSignature+"\n")); err == nil {
		t.Error("SCC accepted without a runner")
	}
	if _, err := Parse(context.Background(), nil, "x.scc", []byte("not scc\n")); err == nil {
		t.Error("SCC without its signature accepted")
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	var sb bytes.Buffer
	for i := range extractors.MaxCues + 1 {
		fmt.Fprintf(&sb, "%s --> %s\nx\n\n", srtClock(int64(i)), srtClock(int64(i+1)))
	}
	if _, err := ParseSRT(sb.Bytes()); !errors.Is(err, ErrTooManyCues) {
		t.Errorf("%d cues: %v", extractors.MaxCues+1, err)
	}
	if _, err := Parse(context.Background(), nil, "big.srt", make([]byte, MaxFileSize+1)); err == nil {
		t.Error("file over MaxFileSize parsed")
	}
	long := "1\n00:00:01,000 --> 00:00:02,000\n" + strings.Repeat("é", maxCueText) + "\n" + strings.Repeat("line\n", 100)
	p, err := ParseSRT([]byte(long))
	if err != nil || len(p.Cues[0].Text) > maxCueText || !strings.HasSuffix(p.Cues[0].Text, "é") {
		t.Errorf("long cue: %d bytes, %v", len(p.Cues[0].Text), err)
	}
}

func TestWriteSRTRoundTrip(t *testing.T) {
	t.Parallel()
	cues := []extractors.Cue{cue(0.5, 1.25, "one\ntwo"), cue(3661.001, 3662.999, "three")}
	out := WriteSRT(cues)
	want := "1\r\n00:00:00,500 --> 00:00:01,250\r\none\r\ntwo\r\n\r\n2\r\n01:01:01,001 --> 01:01:02,999\r\nthree\r\n\r\n"
	if string(out) != want {
		t.Errorf("WriteSRT:\n%q\nwant\n%q", out, want)
	}
	p, err := ParseSRT(out)
	if err != nil {
		t.Fatal(err)
	}
	sameCues(t, "round trip", p.Cues, cues)
}

func TestSidecarLanguage(t *testing.T) {
	t.Parallel()
	for caption, want := range map[string]string{
		"clip.srt": "", "clip.en.srt": "en", "clip.eng.srt": "eng", "clip.EN.vtt": "en", "clip.pt-BR.srt": "pt-BR",
		"clip.en.forced.srt": "en", "clip.sdh.fre.srt": "fre", "clip.mp4.srt": "", "clip.mp4.de.srt": "de", "clip.hi.srt": "hi",
		"clip.en.hi.srt": "en",
	} {
		got, ok := sidecarLanguage("clip.mp4", caption)
		if !ok || got != want {
			t.Errorf("sidecarLanguage(%s) = %q %v, want %q", caption, got, ok, want)
		}
	}
	for _, other := range []string{"clip.part2.srt", "clip.director.cut.srt", "clip..srt", "clip.x.y.z.w.v.srt"} {
		if got, ok := sidecarLanguage("clip.mp4", other); ok {
			t.Errorf("%s taken as a sidecar of clip.mp4 (%q)", other, got)
		}
	}
	for name, want := range map[string]string{"movie.en.srt": "en", "movie.srt": "", "the.end.srt": "", "film.fra.vtt": "fra", "a.zh-Hans.srt": "zh-Hans"} {
		if got := nameLanguage(name); got != want {
			t.Errorf("nameLanguage(%s) = %q, want %q", name, got, want)
		}
	}
	for in, want := range map[string]string{"eng": "eng", "EN": "en", "und": "", "": "", "en_US": "en-US", "english": "", "x1": ""} {
		if got := languageTag(in); got != want {
			t.Errorf("languageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

// Subtitles saved by Windows tools in the code page of their language read
// back in that language, and the file's encoding says which it was.
func TestLegacyCodePageSubtitles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		enc   string
		cm    *charmap.Charmap
		lines [2]string
	}{
		{"windows-1254", charmap.Windows1254, [2]string{"Başka seçeneğim yoktu.", "Yarın sabah İzmir'e gidiyoruz, çantanı hazırla."}},
		{"windows-1251", charmap.Windows1251, [2]string{"Где ты был всю ночь?", "Я ждал тебя на вокзале до самого утра."}},
		{"windows-1250", charmap.Windows1250, [2]string{"Gdzie byłeś całą noc?", "Czekałem na ciebie na dworcu aż do rana."}},
		{"windows-1253", charmap.Windows1253, [2]string{"Πού ήσουν όλη τη νύχτα;", "Σε περίμενα στον σταθμό μέχρι το πρωί."}},
	} {
		src := "1\r\n00:00:01,000 --> 00:00:02,500\r\n" + c.lines[0] + "\r\n\r\n2\r\n00:00:03,000 --> 00:00:05,000\r\n" + c.lines[1] + "\r\n"
		b, err := c.cm.NewEncoder().Bytes([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseSRT(b)
		if err != nil {
			t.Errorf("%s: %v", c.enc, err)
			continue
		}
		if p.Encoding != c.enc || len(p.Cues) != 2 || p.Cues[0].Text != c.lines[0] || p.Cues[1].Text != c.lines[1] {
			t.Errorf("%s: read as %s: %+v", c.enc, p.Encoding, p.Cues)
		}
	}
}
