package places

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// Position is where an item was captured, and which extractor said so.
type Position struct {
	Lat, Lon float64
	// Source is "exiv2" (EXIF/XMP GPS, or a phone video's GPS as exiftool
	// reads it) or "ffprobe" (a video's ISO 6709 location tag).
	Source string
}

// locationTags are the container tags that hold an ISO 6709 point, as
// ffprobe names them (QuickTime ©xyz is "location", Apple's metadata key
// the long one).
var locationTags = []string{"location", "location-eng", "com.apple.quicktime.location.iso6709"}

// positionNeeded is PositionOf for the extractors that need a position: a
// cancelled harvest is Transient, and a file without a position is not
// theirs (ErrUnsupported).
func positionNeeded(ctx context.Context, run *extractors.Runner, in *extractors.Input) (Position, error) {
	if err := ctx.Err(); err != nil {
		return Position{}, extractors.Transient(err)
	}
	pos, ok, err := PositionOf(ctx, run, in)
	if err != nil {
		return Position{}, err
	}
	if !ok {
		return Position{}, fmt.Errorf("%w: %w", extractors.ErrUnsupported, errNoPosition)
	}
	return pos, nil
}

// PositionOf returns the GPS position of the item: exiv2's gps.latitude and
// gps.longitude from Prior, else for a video the location tag of its
// container (the shared ffprobe reading). A position of exactly 0, 0 is
// what cameras without a fix write, and counts as none. ok is false when
// the item has no position; err is set only when the harvest was
// interrupted.
func PositionOf(ctx context.Context, run *extractors.Runner, in *extractors.Input) (p Position, ok bool, err error) {
	if p, ok := exiv2Position(in.Prior["exiv2"]); ok {
		return p, true, nil
	}
	if !strings.HasPrefix(in.MIME, "video/") || run == nil {
		return Position{}, false, nil
	}
	probe, err := av.Read(ctx, run, in)
	if err != nil {
		if ctx.Err() != nil {
			return Position{}, false, extractors.Transient(err)
		}
		return Position{}, false, nil // mediainfo records why the file cannot be read
	}
	for k, v := range probe.Format.Tags {
		for _, want := range locationTags {
			if strings.EqualFold(k, want) {
				if lat, lon, err := ParseISO6709(v); err == nil && !(lat == 0 && lon == 0) {
					return Position{Lat: lat, Lon: lon, Source: "ffprobe"}, true, nil
				}
			}
		}
	}
	return Position{}, false, nil
}

func exiv2Position(raw json.RawMessage) (Position, bool) {
	var d struct {
		GPS struct {
			Latitude  *float64 `json:"latitude"`
			Longitude *float64 `json:"longitude"`
		} `json:"gps"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || d.GPS.Latitude == nil || d.GPS.Longitude == nil {
		return Position{}, false
	}
	lat, lon := *d.GPS.Latitude, *d.GPS.Longitude
	if math.IsNaN(lat) || math.IsNaN(lon) || math.Abs(lat) > 90 || math.Abs(lon) > 180 || (lat == 0 && lon == 0) {
		return Position{}, false
	}
	return Position{Lat: lat, Lon: lon, Source: "exiv2"}, true
}

// CaptureTime returns when the item was captured: exiv2's created, else
// mediainfo's creation_time. ok is false when neither is known.
func CaptureTime(prior map[string]json.RawMessage) (t time.Time, source string, ok bool) {
	for _, c := range []struct{ extractor, field string }{{"exiv2", "created"}, {"mediainfo", "creation_time"}} {
		var d map[string]any
		if json.Unmarshal(prior[c.extractor], &d) != nil {
			continue
		}
		s, _ := d[c.field].(string)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.Year() > 1900 {
			return t, c.extractor, true
		}
	}
	return time.Time{}, "", false
}

var errNoPosition = errors.New("no GPS position")
