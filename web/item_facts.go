package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// fact is one of the facts at the top of an item page.
type fact struct{ Label, Value string }

// itemFacts are what a person asks of an item first: its size and format,
// its dimensions and duration or pages, when, with what and where it was
// made, and when it changed and was harvested.
func itemFacts(it models.Item, meta map[string]any) []fact {
	out := []fact{{"Size", humanSize(it.Size)}}
	if it.MimeType != "" {
		out = append(out, fact{"MIME type", it.MimeType})
	}
	if w, h := itemDimensions(meta); w > 0 && h > 0 {
		out = append(out, fact{"Dimensions", fmt.Sprintf("%d × %d", w, h)})
	}
	if d := itemDuration(meta); d > 0 {
		out = append(out, fact{"Duration", humanDuration(d)})
	}
	for _, f := range store.PageCountFields {
		if n, ok := number(lookup(meta, f)); ok && n > 0 {
			out = append(out, fact{"Pages", strconv.Itoa(int(n))})
			break
		}
	}
	if local, ok := lookup(meta, "exiv2.created_local").(string); ok {
		if t, err := time.Parse("2006-01-02T15:04:05", local); err == nil {
			out = append(out, fact{"Taken", t.Format("2006-01-02 15:04")}) // the camera's clock
		}
	} else if t, ok := search.ParseDateValue(str(lookup(meta, "mediainfo.creation_time"))); ok {
		out = append(out, fact{"Recorded", t.UTC().Format("2006-01-02 15:04 UTC")})
	}
	if camera := itemCamera(meta); camera != "" {
		out = append(out, fact{"Camera", camera})
	}
	if place := itemPlace(meta); place != "" {
		out = append(out, fact{"Place", place})
	}
	if it.LastModified != nil {
		out = append(out, fact{"Modified", it.LastModified.UTC().Format("2006-01-02 15:04 UTC")})
	}
	if it.LastHarvested != nil {
		out = append(out, fact{"Harvested", it.LastHarvested.UTC().Format("2006-01-02 15:04 UTC")})
	}
	return out
}

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

// itemPlace names where the item was made: city, region and country of
// the geocoding extractor, a name once.
func itemPlace(meta map[string]any) string {
	var parts []string
	for _, f := range []string{"geocoding.city", "geocoding.region", "geocoding.country.name"} {
		if s := strings.TrimSpace(str(lookup(meta, f))); s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

func itemDuration(meta map[string]any) float64 {
	for _, f := range []string{"mediainfo.duration", "audioinfo.duration", "video_previews.duration", "audio_previews.duration"} {
		if d, ok := number(lookup(meta, f)); ok && d > 0 {
			return d
		}
	}
	return 0
}
