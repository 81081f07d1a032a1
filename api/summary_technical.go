package api

import (
	"fmt"
	"math"

	"github.com/metaharvest/metaharvest/models"
)

// The technical part of the item summary: the main audio and video streams
// as mediainfo describes them (audioinfo for audio files mediainfo did not
// read), the true peak audiopeak measured, the size for people and the
// kind of file. Values the extractors did not report are left out (never
// zero), and a file without audio or video has empty objects there.
//
// duration_time is the duration written HH:MM:SS, rounded to the nearest
// second (hours grow past 99); duration beside it is the same in seconds
// with three decimals, for clients that compute with it.

type summaryAudioJSON struct {
	Channels     *int64   `json:"channels,omitempty"`
	Codec        string   `json:"codec,omitempty"`
	DurationTime string   `json:"duration_time,omitempty"`
	Duration     *float64 `json:"duration,omitempty"`
	BitRate      *int64   `json:"bit_rate,omitempty"`
	Format       string   `json:"format,omitempty"`
	TruePeakDBFS *float64 `json:"true_peak_dbfs,omitempty"`
}

type summaryVideoJSON struct {
	Resolution        string   `json:"resolution,omitempty"`
	AspectRatio       string   `json:"aspect_ratio,omitempty"`
	FrameRate         *float64 `json:"frame_rate,omitempty"`
	DurationTime      string   `json:"duration_time,omitempty"`
	Duration          *float64 `json:"duration,omitempty"`
	ChromaSubsampling string   `json:"chroma_subsampling,omitempty"`
	BitRate           *int64   `json:"bit_rate,omitempty"`
}

type summaryTechnicalJSON struct {
	Audio     summaryAudioJSON `json:"audio"`
	Video     summaryVideoJSON `json:"video"`
	Size      string           `json:"size"`
	SizeBytes int64            `json:"size_bytes"`
	FileType  string           `json:"file_type"`
	MimeType  string           `json:"mime_type"`
}

func technicalSummary(meta metaReader, size int64, mime string) summaryTechnicalJSON {
	return summaryTechnicalJSON{Audio: audioSummary(meta), Video: videoSummary(meta), Size: humanSize(size),
		SizeBytes: size, FileType: models.MediaType(mime), MimeType: mime}
}

// metaReader gives the data of each extractor of an item.
type metaReader func(extractor string) map[string]any

func audioSummary(meta metaReader) summaryAudioJSON {
	var out summaryAudioJSON
	mi := meta("mediainfo")
	stream := at(mi, "audio")
	if stream == nil {
		stream = meta("audioinfo") // audioinfo describes the main audio stream at its top level
	}
	if stream != nil {
		out.Codec, out.Format = strAt(stream, "codec"), strAt(stream, "format")
		if n, ok := intAt(stream, "channels"); ok {
			out.Channels = &n
		}
		if n, ok := intAt(stream, "bit_rate"); ok {
			out.BitRate = &n
		}
		d, ok := numAt(stream, "duration")
		if !ok {
			d, ok = numAt(mi, "duration")
		}
		if ok {
			out.Duration, out.DurationTime = durationOf(d)
		}
	}
	if p, ok := numAt(meta("audiopeak"), "true_peak_dbfs"); ok {
		out.TruePeakDBFS = &p
	}
	return out
}

func videoSummary(meta metaReader) summaryVideoJSON {
	var out summaryVideoJSON
	mi := meta("mediainfo")
	v := at(mi, "video")
	if v == nil {
		return out
	}
	out.Resolution, out.AspectRatio = strAt(v, "resolution"), strAt(v, "aspect_ratio")
	out.ChromaSubsampling = strAt(v, "chroma_subsampling")
	if f, ok := numAt(v, "frame_rate"); ok {
		out.FrameRate = &f
	}
	if n, ok := intAt(v, "bit_rate"); ok {
		out.BitRate = &n
	}
	d, ok := numAt(v, "duration")
	if !ok {
		d, ok = numAt(mi, "duration")
	}
	if ok {
		out.Duration, out.DurationTime = durationOf(d)
	}
	return out
}

// durationOf gives seconds (3 decimals) and HH:MM:SS of a duration.
func durationOf(seconds float64) (*float64, string) {
	if seconds < 0 {
		return nil, ""
	}
	d := math.Round(seconds*1000) / 1000
	return &d, clockTime(seconds)
}

// clockTime writes seconds as HH:MM:SS, rounded to the nearest second.
func clockTime(seconds float64) string {
	s := int64(math.Round(seconds))
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// humanSize writes a size in bytes for people, in decimal (SI) units as
// file managers do: "999 B", "1.2 KB", "1.2 MB", "3.4 GB".
func humanSize(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", max(n, 0))
	}
	units := []string{"KB", "MB", "GB", "TB", "PB", "EB"}
	v := float64(n)
	for _, u := range units {
		v /= 1000
		if v < 999.95 || u == units[len(units)-1] {
			return fmt.Sprintf("%.1f %s", v, u)
		}
	}
	return fmt.Sprintf("%d B", n)
}
