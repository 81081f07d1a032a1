package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestItemSummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.Extractors = textRegistry(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "trip"))["id"].(string)
	clip := e.insertItem(locID, "trip", "2024/clip.mp4")
	e.db.Exec(`UPDATE items SET size = 1234567 WHERE id = ?`, clip)
	e.db.Exec(`UPDATE items SET results = '{"vendor_faces": {"version": "1.0.0", "error": "", "ran_at": "2024-05-06T07:08:09Z"}}' WHERE id = ?`, clip)
	e.setMetadata(clip, map[string]any{
		"mediainfo": map[string]any{"title": "Holiday clip", "duration": 3725.4, "bit_rate": 1200000,
			"video": map[string]any{"resolution": "1920x1080", "aspect_ratio": "16:9", "frame_rate": 25, "chroma_subsampling": "4:2:0",
				"bit_rate": 1000000, "duration": 3725.4, "codec": "h264"},
			"audio": map[string]any{"codec": "aac", "format": "AAC", "channels": 2, "bit_rate": 128000, "duration": 3725.43}},
		"audiopeak": map[string]any{"true_peak_dbfs": -1.2, "integrated_lufs": -23},
		"exiv2":     map[string]any{"keywords": []string{"Beach", "sunset", "beach"}},
		"tokens": map[string]any{
			"sentiment":   []map[string]any{{"name": "positive", "confidence": 0.7}, {"name": "neutral", "confidence": 0.2}},
			"key_phrases": []map[string]any{{"name": "blue sky", "appearances": 1}, {"name": "sandy beach", "appearances": 3, "score": 4}},
			"entities": []map[string]any{{"name": "Nice", "type": "place", "appearances": 2},
				{"name": "Jane Doe", "type": "person", "appearances": 5}},
		},
		"geocoding": map[string]any{"locations": []map[string]any{{"name": "Nice", "appearances": 1},
			{"name": "Provence-Alpes-Côte d'Azur", "appearances": 1}, {"name": "France", "appearances": 1}}},
		"vendor_faces": map[string]any{
			"people": []map[string]any{
				{"person_id": "p1", "is_known": false, "appearances": 3, "face_img_path": "face-0001.jpg", "face_img_width": 120, "face_img_height": 150},
				{"person_id": "p2", "is_known": false, "appearances": 1, "face_img_path": "face-gone.jpg"},
			},
			"faces": []map[string]any{{"person_id": "p1"}, {"person_id": "p1"}, {"person_id": "p1"}, {"person_id": "p2"}},
		},
	})
	crop := clip[:2] + "/" + clip + "/vendor_faces/face-0001.jpg"
	if err := e.db.Exec(`INSERT INTO artifacts (item_id, path, extractor, kind, width, height) VALUES (?, ?, 'vendor_faces', 'face', 120, 150)`,
		clip, crop).Error; err != nil {
		t.Fatal(err)
	}
	e.insertSegmentPart(clip, "vendor_tags", 1000, map[string]any{"tags": []map[string]any{{"name": "Sea"}, {"name": "sky"}},
		"logos":     []map[string]any{{"name": "Acme"}},
		"locations": map[string]any{"type": "FeatureCollection", "features": []map[string]any{{"type": "Feature", "properties": map[string]any{"name": "Nice"}}}}})
	e.insertSegmentPart(clip, "vendor_tags", 2000, map[string]any{"tags": []map[string]any{{"name": "sea"}}})
	e.insertSegmentPart(clip, "vendor_logos", 2000, map[string]any{"logos": []map[string]any{{"name": "Acme"}, {"name": "Acme"}}})
	e.insertSegmentPart(clip, "vendor_tags", 3000, map[string]any{"tags": []map[string]any{{"name": "Sea"}, {"name": " "}},
		"locations": map[string]any{"type": "Feature", "properties": map[string]any{"name": "Promenade"}}})
	e.insertSegmentPart(clip, "vendor_tags", 4000, map[string]any{"tags": "not a list", "logos": []any{"no name", 3}})
	e.insertSegmentPart(clip, "tesseract", 5000, map[string]any{"ocr": []map[string]any{{"text": "BEACH BAR"}}})
	e.insertCaption("cap-s", clip, "speech_to_text", "speech", "en", 1, []extractors.Cue{{Start: 1, End: 2, Text: "at the beach, the Beach"}})
	e.createKeywordGroup("Seaside", "#0000ff", "beach")
	e.createKeywordGroup("Mountains", "#00ff00", "summit")

	var got struct {
		Summary map[string]json.RawMessage `json:"summary"`
	}
	e.do("GET", "/api/data/v3/summary/items/"+clip, e.adminToken, nil).status(200).decode(&got)
	want := map[string]string{
		"title":     `"Holiday clip"`,
		"sentiment": `[{"name":"positive","confidence":0.7},{"name":"neutral","confidence":0.2}]`,
		"technical": `{"audio":{"channels":2,"codec":"aac","duration_time":"01:02:05","duration":3725.43,"bit_rate":128000,"format":"AAC","true_peak_dbfs":-1.2},` +
			`"video":{"resolution":"1920x1080","aspect_ratio":"16:9","frame_rate":25,"duration_time":"01:02:05","duration":3725.4,"chroma_subsampling":"4:2:0","bit_rate":1000000},` +
			`"size":"1.2 MB","size_bytes":1234567,"file_type":"video","mime_type":"video/mp4"}`,
		"people": `[{"appearances":3,"person":{"person_id":"p1","is_known":false,` +
			`"face_img_path":"` + crop + `","face_img_url":"/api/data/artifacts/` + crop + `","face_img_width":120,"face_img_height":150,` +
			`"face_img_small_path":"` + crop + `","face_img_small_url":"/api/data/artifacts/` + crop + `","face_img_small_width":120,"face_img_small_height":150,` +
			`"num_faces":3,"created_at":"2024-05-06T07:08:09Z","updated_at":"2024-05-06T07:08:09Z"}},` +
			`{"appearances":1,"person":{"person_id":"p2","is_known":false,"face_img_path":"","face_img_url":"","face_img_width":0,"face_img_height":0,` +
			`"face_img_small_path":"","face_img_small_url":"","face_img_small_width":0,"face_img_small_height":0,` +
			`"num_faces":1,"created_at":"2024-05-06T07:08:09Z","updated_at":"2024-05-06T07:08:09Z"}}]`,
		"tags":        `[{"appearances":3,"name":"Sea"},{"appearances":2,"name":"Beach"},{"appearances":1,"name":"sky"},{"appearances":1,"name":"sunset"}]`,
		"logos":       `[{"appearances":2,"name":"Acme"}]`,
		"locations":   `[{"appearances":2,"name":"Nice"},{"appearances":1,"name":"France"},{"appearances":1,"name":"Promenade"},{"appearances":1,"name":"Provence-Alpes-Côte d'Azur"}]`,
		"key_phrases": `[{"appearances":3,"name":"sandy beach"},{"appearances":1,"name":"blue sky"}]`,
		"entities":    `[{"appearances":5,"name":"Jane Doe","type":"person"},{"appearances":2,"name":"Nice","type":"place"}]`,
		"insights":    `[{"name":"Seaside","color":"#0000ff","ocrs":1,"speech_to_texts":2,"captions":0,"texts":0}]`,
	}
	for part, w := range want {
		if !sameJSON(t, got.Summary[part], w) {
			t.Errorf("%s:\n got %s\nwant %s", part, got.Summary[part], w)
		}
	}
	if len(got.Summary) != len(want) {
		t.Errorf("parts: %d, want %d", len(got.Summary), len(want))
	}

	// A file nothing was found in: every part there, empty, and the file
	// name as title.
	notes := e.insertItem(locID, "trip", "notes.txt")
	e.db.Exec(`UPDATE items SET mime_type = 'text/plain', metadata = '{}' WHERE id = ?`, notes)
	e.do("GET", "/api/data/v3/summary/items/"+notes, e.adminToken, nil).status(200).decode(&got)
	want = map[string]string{
		"title": `"notes.txt"`, "sentiment": `[]`, "people": `[]`, "tags": `[]`, "logos": `[]`, "locations": `[]`,
		"key_phrases": `[]`, "entities": `[]`, "insights": `[]`,
		"technical": `{"audio":{},"video":{},"size":"4 B","size_bytes":4,"file_type":"document","mime_type":"text/plain"}`,
	}
	for part, w := range want {
		if !sameJSON(t, got.Summary[part], w) {
			t.Errorf("empty item, %s: got %s, want %s", part, got.Summary[part], w)
		}
	}

	// Odd data (another version of an extractor, a provider's answer) is
	// left out, not a failure.
	odd := e.insertItem(locID, "trip", "odd.wav")
	e.db.Exec(`UPDATE items SET mime_type = 'audio/x-wav', metadata = ?::jsonb WHERE id = ?`,
		`{"audioinfo": {"title": "Odd", "channels": "two", "codec": "pcm_s16le", "duration": 1.5}, "tokens": {"sentiment": "happy", "entities": [1, {"name": 2}]},
		  "vendor_faces": {"people": [{"appearances": 1}, "x"]}, "exiv2": {"keywords": "single"}, "geocoding": []}`, odd)
	e.do("GET", "/api/data/v3/summary/items/"+odd, e.adminToken, nil).status(200).decode(&got)
	want = map[string]string{
		"title": `"Odd"`, "sentiment": `[]`, "people": `[]`, "entities": `[]`, "tags": `[{"appearances":1,"name":"single"}]`,
		"technical": `{"audio":{"codec":"pcm_s16le","duration_time":"00:00:02","duration":1.5},"video":{},"size":"4 B","size_bytes":4,"file_type":"audio","mime_type":"audio/x-wav"}`,
	}
	for part, w := range want {
		if !sameJSON(t, got.Summary[part], w) {
			t.Errorf("odd item, %s: got %s, want %s", part, got.Summary[part], w)
		}
	}

	// Keyword groups are not shown to a caller who may not read them.
	_, itemsOnly := e.userWithScopes("items-only@example.com", "items:read")
	e.do("GET", "/api/data/v3/summary/items/"+clip, itemsOnly, nil).status(200).decode(&got)
	if !sameJSON(t, got.Summary["insights"], `[]`) || !sameJSON(t, got.Summary["logos"], `[{"appearances":2,"name":"Acme"}]`) {
		t.Errorf("without keywords:read: insights %s, logos %s", got.Summary["insights"], got.Summary["logos"])
	}

	// Item rules.
	e.do("GET", "/api/data/v3/summary/items/nope", e.adminToken, nil).status(404)
	outsider := e.hiddenItemUser(locID, "outsider@example.com", "items:read")
	e.do("GET", "/api/data/v3/summary/items/"+clip, outsider, nil).status(403)
	_, noScope := e.userWithScopes("kw@example.com", "keywords:read")
	e.do("GET", "/api/data/v3/summary/items/"+clip, noScope, nil).status(403)
	e.do("DELETE", "/api/data/items/"+notes, e.adminToken, nil).status(200)
	e.do("GET", "/api/data/v3/summary/items/"+notes, e.adminToken, nil).status(404)
}

func sameJSON(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("bad expectation %s: %v", want, err)
	}
	return reflect.DeepEqual(a, b)
}

func TestHumanSizeAndClockTime(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 KB", 1234567: "1.2 MB", 999949: "999.9 KB",
		999960: "1.0 MB", 3_400_000_000: "3.4 GB", 1 << 62: "4.6 EB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
	for s, want := range map[float64]string{0: "00:00:00", 0.4: "00:00:00", 59.6: "00:01:00", 3725.43: "01:02:05", 360000: "100:00:00"} {
		if got := clockTime(s); got != want {
			t.Errorf("clockTime(%v) = %q, want %q", s, got, want)
		}
	}
}
