package web

import (
	"strings"
)

// fact is a label and its value, as pages list them (storage's location
// page).
type fact struct{ Label, Value string }

// itemDimensions is a picture's or video's size in pixels as it is seen
// (a picture the camera held upright is taller than wide).
func itemDimensions(meta map[string]any) (int, int) {
	for _, f := range []struct{ w, h string }{{"exiv2.width", "exiv2.height"}, {"mediainfo.video.width", "mediainfo.video.height"},
		{"thumbnailer.source.width", "thumbnailer.source.height"}} {
		w, wok := number(lookup(meta, f.w))
		h, hok := number(lookup(meta, f.h))
		if !wok || !hok || w <= 0 || h <= 0 {
			continue
		}
		if f.w == "exiv2.width" {
			if o, _ := number(lookup(meta, "exiv2.orientation")); o >= 5 && o <= 8 {
				w, h = h, w // turned a quarter to be viewed
			}
		}
		if f.w == "thumbnailer.source.width" && lookup(meta, "thumbnailer.picture") != nil {
			continue // a recording's cover or waveform, a document's thumbnail: not the item's size
		}
		return int(w), int(h)
	}
	return 0, 0
}

// itemCamera is the camera's make and model ("Canon EOS 5D", not "Canon
// Canon EOS 5D").
func itemCamera(meta map[string]any) string {
	maker, model := strings.TrimSpace(str(lookup(meta, "exiv2.camera.make"))), strings.TrimSpace(str(lookup(meta, "exiv2.camera.model")))
	if maker == "" || strings.HasPrefix(strings.ToLower(model), strings.ToLower(maker)) {
		return model
	}
	return strings.TrimSpace(maker + " " + model)
}

func itemDuration(meta map[string]any) float64 {
	for _, f := range []string{"mediainfo.duration", "audioinfo.duration", "video_previews.duration", "audio_previews.duration"} {
		if d, ok := number(lookup(meta, f)); ok && d > 0 {
			return d
		}
	}
	return 0
}
