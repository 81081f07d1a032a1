package api

import (
	"encoding/json"
	"testing"
)

// Objects found offline are the item summary's tags, with their highest
// confidence and their source: a picture's from the objects data, a
// video's from its segments (one appearance per segment).
func TestItemSummaryObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.Extractors = textRegistry(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "trip"))["id"].(string)
	photo := e.insertItem(locID, "trip", "desk.jpg")
	e.setMetadata(photo, map[string]any{"objects": map[string]any{"source": "human-centernet", "frames_source": "image",
		"names": []string{"laptop", "cup"},
		"tags":  []map[string]any{{"name": "laptop", "appearances": 1, "confidence": 0.36}, {"name": "cup", "appearances": 1, "confidence": 0.45}}}})
	clip := e.insertItem(locID, "trip", "talk.mp4")
	e.setMetadata(clip, map[string]any{"objects": map[string]any{"source": "human-centernet", "frames_source": "video_main_frames",
		"tags": []map[string]any{{"name": "person", "appearances": 2, "confidence": 0.61}}}})
	for ms, conf := range map[int64]float64{0: 0.61, 3400: 0.46} {
		e.insertSegmentPart(clip, "objects", ms, map[string]any{"tags": []map[string]any{{"name": "person", "confidence": conf, "source": "human-centernet"}}})
	}
	var got struct {
		Summary map[string]json.RawMessage `json:"summary"`
	}
	for id, want := range map[string]string{
		photo: `[{"appearances":1,"name":"cup","confidence":0.45,"source":"human-centernet"},{"appearances":1,"name":"laptop","confidence":0.36,"source":"human-centernet"}]`,
		clip:  `[{"appearances":2,"name":"person","confidence":0.61,"source":"human-centernet"}]`,
	} {
		e.do("GET", "/api/data/v3/summary/items/"+id, e.adminToken, nil).status(200).decode(&got)
		if !sameJSON(t, got.Summary["tags"], want) {
			t.Errorf("tags:\n got %s\nwant %s", got.Summary["tags"], want)
		}
	}
}
