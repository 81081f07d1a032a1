package av

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Tag returns the tag of that name, whatever its case ("TITLE" in Vorbis
// comments, "title" in MP4): "" when absent.
func Tag(tags map[string]string, name string) string {
	if v, ok := tags[name]; ok {
		return strings.TrimSpace(v)
	}
	for k, v := range tags {
		if strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Language is the stream's language tag as the container writes it (an ISO
// 639-2 code such as "eng" in most), "" when absent or undetermined ("und").
func (s *Stream) Language() string {
	l := Tag(s.Tags, "language")
	if strings.EqualFold(l, "und") {
		return ""
	}
	return l
}

// Title is the stream's title tag ("" when absent).
func (s *Stream) Title() string { return Tag(s.Tags, "title") }

// IsDefault and IsForced read the stream's disposition.
func (s *Stream) IsDefault() bool { return s.Disposition["default"] != 0 }
func (s *Stream) IsForced() bool  { return s.Disposition["forced"] != 0 }

// Rotation is how far the picture is turned clockwise for display: 0, 90,
// 180 or 270 degrees, from the display matrix side data (whose rotation
// ffprobe gives counter-clockwise) or an older "rotate" tag.
func (s *Stream) Rotation() int {
	for _, sd := range s.SideDataList {
		if r, ok := sd["rotation"].(float64); ok && !math.IsNaN(r) && !math.IsInf(r, 0) {
			return normalDegrees(-r)
		}
	}
	if r, err := strconv.ParseFloat(Tag(s.Tags, "rotate"), 64); err == nil && !math.IsNaN(r) && !math.IsInf(r, 0) {
		return normalDegrees(r)
	}
	return 0
}

func normalDegrees(r float64) int {
	d := int(math.Round(math.Mod(r, 360)))
	if d < 0 {
		d += 360
	}
	return d % 360
}

// ChromaSubsampling is the pixel format's chroma subsampling ("4:2:0",
// "4:2:2", "4:4:4", ...); "" for RGB, grey and unknown formats.
func (s *Stream) ChromaSubsampling() string {
	f := s.PixFmt
	switch {
	case f == "":
		return ""
	case strings.HasPrefix(f, "yuv420") || strings.HasPrefix(f, "yuvj420") || strings.HasPrefix(f, "yuva420") ||
		f == "nv12" || f == "nv21" || strings.HasPrefix(f, "p010") || strings.HasPrefix(f, "p012") || strings.HasPrefix(f, "p016"):
		return "4:2:0"
	case strings.HasPrefix(f, "yuv422") || strings.HasPrefix(f, "yuvj422") || strings.HasPrefix(f, "yuva422") ||
		f == "yuyv422" || f == "uyvy422" || f == "yvyu422" || f == "nv16" || strings.HasPrefix(f, "nv20") ||
		strings.HasPrefix(f, "y210") || strings.HasPrefix(f, "y212") || strings.HasPrefix(f, "p210") || strings.HasPrefix(f, "p216"):
		return "4:2:2"
	case strings.HasPrefix(f, "yuv444") || strings.HasPrefix(f, "yuvj444") || strings.HasPrefix(f, "yuva444") ||
		f == "nv24" || f == "nv42" || strings.HasPrefix(f, "p410") || strings.HasPrefix(f, "p416") ||
		strings.HasPrefix(f, "ayuv") || strings.HasPrefix(f, "vuya") || strings.HasPrefix(f, "xv3") || strings.HasPrefix(f, "y410"):
		return "4:4:4"
	case strings.HasPrefix(f, "yuv440") || strings.HasPrefix(f, "yuvj440"):
		return "4:4:0"
	case strings.HasPrefix(f, "yuv411") || strings.HasPrefix(f, "yuvj411") || f == "uyyvyy411":
		return "4:1:1"
	case strings.HasPrefix(f, "yuv410"):
		return "4:1:0"
	}
	return ""
}

var (
	// planarDepth: the depth written after the layout (yuv420p10le,
	// gbrp12le, gray16be, yuva444p16le, ya16be).
	planarDepth = regexp.MustCompile(`^(?:yuvj?a?\d{3}p|gbra?p|gray|ya)(\d{1,2})(?:le|be)$`)
	// packedDepth: the depth written after a family and its layout digit
	// (p010le, p210le, y210le, y410le, x2rgb10le).
	packedDepth = regexp.MustCompile(`^(?:p[0-9]|y2|y4|x2rgb|x2bgr)(\d{2})(?:le|be)?$`)
)

// BitDepth is the bits per sample of a picture: the decoder's
// bits_per_raw_sample when it gives one, else what the pixel format's name
// says; 0 when unknown.
func (s *Stream) BitDepth() int {
	if n := Int(s.BitsPerRawSample); n > 0 && n <= 64 {
		return int(n)
	}
	f := s.PixFmt
	if m := planarDepth.FindStringSubmatch(f); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if m := packedDepth.FindStringSubmatch(f); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	switch {
	case strings.HasPrefix(f, "rgb48") || strings.HasPrefix(f, "bgr48") || strings.HasPrefix(f, "rgba64") || strings.HasPrefix(f, "bgra64"):
		return 16
	case strings.HasPrefix(f, "yuv") || strings.HasPrefix(f, "yuvj") || strings.HasPrefix(f, "nv") ||
		strings.HasPrefix(f, "gbrp") || f == "gray" || f == "rgb24" || f == "bgr24" || f == "rgba" || f == "bgra" ||
		f == "argb" || f == "abgr" || f == "rgb0" || f == "bgr0" || f == "0rgb" || f == "0bgr" || f == "uyvy422" ||
		f == "yuyv422" || f == "pal8" || f == "ya8":
		return 8
	}
	return 0
}

// AudioBitDepth is the bits per sample of a lossless or PCM audio stream
// (0 for lossy codecs, where the decoder's sample format says nothing about
// the source).
func (s *Stream) AudioBitDepth() int {
	if n := Int(s.BitsPerRawSample); n > 0 && n <= 64 {
		return int(n)
	}
	if s.BitsPerSample > 0 && s.BitsPerSample <= 64 && (strings.HasPrefix(s.CodecName, "pcm_") || strings.HasPrefix(s.CodecName, "adpcm")) {
		return s.BitsPerSample
	}
	return 0
}

// ScanType says how the picture is scanned, from the field order the
// decoder found: "progressive", "interlaced" or "" when unknown; order is
// the field shown first of an interlaced picture, "tff" or "bff".
func (s *Stream) ScanType() (scan, order string) {
	switch s.FieldOrder {
	case "progressive":
		return "progressive", ""
	case "tt", "bt": // bt: bottom coded first, top shown first
		return "interlaced", "tff"
	case "bb", "tb":
		return "interlaced", "bff"
	}
	return "", ""
}

// HDR names the high dynamic range format the stream signals: "Dolby
// Vision" (its configuration record), "HDR10" (PQ with mastering display
// metadata), "PQ", "HLG"; "" for standard dynamic range.
func (s *Stream) HDR() string {
	mastering := false
	for _, sd := range s.SideDataList {
		t, _ := sd["side_data_type"].(string)
		switch {
		case strings.HasPrefix(t, "DOVI"):
			return "Dolby Vision"
		case strings.HasPrefix(t, "Mastering display"):
			mastering = true
		}
	}
	switch s.ColorTransfer {
	case "smpte2084":
		if mastering {
			return "HDR10"
		}
		return "PQ"
	case "arib-std-b67":
		return "HLG"
	}
	return ""
}

// Timecode is the start timecode of the file ("10:00:00:00"): a video
// stream's, a timecode track's (QuickTime tmcd), or the container's; "" when
// none is written.
func (p *Probe) Timecode() string {
	if v := p.Video(); v != nil {
		if tc := Tag(v.Tags, "timecode"); tc != "" {
			return tc
		}
	}
	for _, s := range p.Streams {
		if tc := Tag(s.Tags, "timecode"); tc != "" {
			return tc
		}
	}
	return Tag(p.Format.Tags, "timecode")
}

// creationLayouts are the forms of creation_time tags met in files.
var creationLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006:01:02 15:04:05", "2006-01-02"}

// CreationTime is when the container says the file was made (its
// creation_time tag, else the first stream's); zero when absent, unreadable
// or the format's zero date (1904 or 1970 epochs written by encoders that
// knew no date).
func (p *Probe) CreationTime() time.Time {
	raw := Tag(p.Format.Tags, "creation_time")
	for i := 0; raw == "" && i < len(p.Streams); i++ {
		raw = Tag(p.Streams[i].Tags, "creation_time")
	}
	for _, layout := range creationLayouts {
		if t, err := time.Parse(layout, raw); err == nil {
			if t.Year() <= 1970 || t.Year() > 9999 {
				return time.Time{}
			}
			return t.UTC()
		}
	}
	return time.Time{}
}

// Languages lists the languages of the audio and subtitle streams (and of
// video streams that have one), each once, in stream order.
func (p *Probe) Languages() []string {
	var out []string
	seen := map[string]bool{}
	for i := range p.Streams {
		l := p.Streams[i].Language()
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}
