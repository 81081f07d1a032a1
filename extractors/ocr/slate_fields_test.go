package ocr

import (
	"maps"
	"testing"
)

func TestParseSlateFields(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]map[string]string{
		"TITLE: HARBOUR\n\nSCENE 12 TAKE 3\n\nDATE: 2024-05-17\nDURATION: 30s": {
			"title": "HARBOUR", "scene": "12", "take": "3", "date": "2024-05-17", "duration": "30s"},
		"TITLE:Harbour Lights\nCLIENT - Acme Foods | PRODUCT: Oat Bars\nCLOCK NO. ACM/123/030\nASPECT RATIO 16:9": {
			"title": "Harbour Lights", "client": "Acme Foods", "product": "Oat Bars", "clock_number": "ACM/123/030", "aspect_ratio": "16:9"},
		// A name alone on its line takes the next line.
		"DIRECTOR\nAnna Berg\nROLL A004": {"director": "Anna Berg", "roll": "A004"},
		// Abbreviations need a colon, a full stop or a number.
		"SC. 4 TK 2 DIR: J. Smith": {"scene": "4", "take": "2", "director": "J. Smith"},
		"TC sc dir":                {},
		// The first value of a field is kept.
		"TITLE: ONE\nTITLE: TWO": {"title": "ONE"},
		"":                       {},
		"just words on a card":   {},
	} {
		got := ParseSlateFields(text)
		if !maps.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}

func TestDurationSeconds(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]float64{
		"30s": 30, "30 sec": 30, "30 SECONDS": 30, `30"`: 30, "0:30": 30, "00:00:30:00": 30, "00:01:30;12": 90,
		"1'30": 90, `1'30"`: 90, "1m30s": 90, "2 min": 120, "1h 2m": 3720, "30": 30, "12.5s": 12.5,
	} {
		if got, ok := DurationSeconds(v); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "soon", "0:75", "HARBOUR", "30 parsecs", "1:2:3:4:5"} {
		if got, ok := DurationSeconds(v); ok {
			t.Errorf("%q read as %v", v, got)
		}
	}
}

func TestISODate(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"2024-05-17": "2024-05-17", "17 MAY 2024": "2024-05-17", "May 17, 2024": "2024-05-17", "17/05/2024": "2024-05-17",
		"05/17/2024": "2024-05-17", "17.05.24": "2024-05-17", "17-May-2024": "2024-05-17",
	} {
		if got, ok := ISODate(v); !ok || got != want {
			t.Errorf("%q: %q %v, want %s", v, got, ok, want)
		}
	}
	for _, v := range []string{"01/02/2024", "31/02/2024", "tomorrow", "", "2024-13-01"} {
		if got, ok := ISODate(v); ok {
			t.Errorf("%q read as %s", v, got)
		}
	}
}

func FuzzParseSlateFields(f *testing.F) {
	f.Add("TITLE: HARBOUR\nSCENE 12 TAKE 3\nDATE: 2024-05-17\nDURATION: 30s")
	f.Add("DIRECTOR\nAnna Berg\nSC. 4 TK 2")
	f.Add("TITLE:\xff\nCLOCK NO 1'30\"")
	f.Fuzz(func(t *testing.T, text string) {
		for k, v := range ParseSlateFields(text) {
			if v == "" || len(v) > maxFieldValue || !utf8Valid(v) && utf8Valid(text) {
				t.Fatalf("field %s = %q", k, v)
			}
			DurationSeconds(v)
			ISODate(v)
		}
		if s, ok := DurationSeconds(text); ok && (s < 0 || s != s) {
			t.Fatalf("duration %v", s)
		}
	})
}
