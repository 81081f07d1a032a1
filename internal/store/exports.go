package store

import (
	"fmt"

	"gorm.io/gorm"
)

// ClipSource is what an export of a compilation reads of an item besides
// its entry: where the file is and what its media is like, from the
// mediainfo and audioinfo extractors (zero when they did not run).
type ClipSource struct {
	ItemID        string
	Path          string
	LocationKind  string
	LocationName  string
	ContainerName string
	// Duration is mediainfo's duration, else audioinfo's (seconds).
	Duration     float64
	FrameRate    float64
	Timecode     string
	VideoStreams int
	AudioStreams int
}

// metaNumber is a number of an item's metadata at a JSON path, NULL when
// it is not a number.
func metaNumber(path string) string {
	return fmt.Sprintf("CASE WHEN jsonb_typeof(i.metadata #> '%[1]s') = 'number' THEN (i.metadata #>> '%[1]s')::float8 END", path)
}

// ClipSources reads the sources of the given items (visibility is the
// caller's: these are the items of entries it may see).
func ClipSources(db *gorm.DB, itemIDs []string) (map[string]ClipSource, error) {
	out := make(map[string]ClipSource, len(itemIDs))
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []ClipSource
	err := db.Raw(`SELECT i.id AS item_id, i.path, l.kind AS location_kind, l.name AS location_name, c.name AS container_name,
			coalesce(`+metaNumber("{mediainfo,duration}")+`, `+metaNumber("{audioinfo,duration}")+`, 0) AS duration,
			coalesce(`+metaNumber("{mediainfo,video,frame_rate}")+`, 0) AS frame_rate,
			coalesce(CASE WHEN jsonb_typeof(i.metadata #> '{mediainfo,timecode}') = 'string' THEN i.metadata #>> '{mediainfo,timecode}' END, '') AS timecode,
			coalesce(`+metaNumber("{mediainfo,video_stream_count}")+`, 0)::int AS video_streams,
			coalesce(`+metaNumber("{mediainfo,audio_stream_count}")+`,
				CASE WHEN i.metadata -> 'audioinfo' IS NOT NULL THEN 1 END, 0)::int AS audio_streams
		FROM items i JOIN locations l ON l.id = i.location_id JOIN containers c ON c.id = i.container_id
		WHERE i.id IN ?`, itemIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read clip sources: %w", err)
	}
	for _, r := range rows {
		out[r.ItemID] = r
	}
	return out, nil
}
