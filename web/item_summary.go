package web

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// The summary at the top of an item page: what a person asks of the item
// first, by kind, in words and units people use, each value a link that
// searches for it where that finds something. It reads the extractors'
// data; a fact no extractor found is left out rather than shown empty.

type summaryGroup struct {
	Title string
	Rows  []summaryRow
}

type summaryRow struct {
	Label string
	Parts []summaryPart // shown joined by " · "
}

// summaryPart is one value: text, a search link (Href), a seek to a time
// of the player (T), or a digest shown short (Code) with a copy button.
type summaryPart struct {
	Text, Href, T string
	Code, Copy    string
	External      bool // Href leaves the platform (a map)
}

// summaryContext is what a summary reads.
type summaryContext struct {
	it       models.Item
	meta     map[string]any
	kind     string // models.TypeVideo ...
	where    string // location / container
	typeName string
	caps     []models.Caption
	errors   int
	declared map[string]extractors.Declared
	persons  *itemPeople // nil without people:read or persons
}

func (u *UI) declared() map[string]extractors.Declared {
	out := map[string]extractors.Declared{}
	for _, f := range u.Extractors.Fields() {
		out[f.Path] = f
	}
	return out
}

// find is a link to the search for field = value when the catalogue
// declares field as a filter value (not long text), else "".
func (s *summaryContext) find(field, value string) string {
	d, ok := s.declared[field]
	if value == "" || len([]rune(value)) > 200 || (ok && d.Type == extractors.TypeText) {
		return ""
	}
	if !ok && !strings.HasPrefix(field, "facet:") {
		return ""
	}
	return "/?f=" + url.QueryEscape(strings.TrimPrefix(field, "facet:")+":"+value)
}

func (s *summaryContext) num(path string) (float64, bool) { return number(lookup(s.meta, path)) }
func (s *summaryContext) text(path string) string {
	return strings.TrimSpace(str(lookup(s.meta, path)))
}

// part is a value that searches for itself through field.
func (s *summaryContext) part(field, text string) summaryPart {
	return summaryPart{Text: text, Href: s.find(field, str(lookup(s.meta, field)))}
}

func row(label string, parts ...summaryPart) summaryRow {
	var kept []summaryPart
	for _, p := range parts {
		if strings.TrimSpace(p.Text) != "" {
			kept = append(kept, p)
		}
	}
	return summaryRow{Label: label, Parts: kept}
}

func plain(text string) summaryPart { return summaryPart{Text: text} }

func (g *summaryGroup) add(r summaryRow) {
	if len(r.Parts) > 0 {
		g.Rows = append(g.Rows, r)
	}
}

// bitRate writes bits a second as people read them.
func bitRate(bps float64) string {
	switch {
	case bps <= 0:
		return ""
	case bps >= 1e6:
		return strconv.FormatFloat(bps/1e6, 'f', 1, 64) + " Mbit/s"
	default:
		return strconv.FormatFloat(math.Round(bps/1e3), 'f', 0, 64) + " kbit/s"
	}
}

// hertz writes a sample rate (44.1 kHz).
func hertz(hz float64) string {
	if hz <= 0 {
		return ""
	}
	return strconv.FormatFloat(hz/1000, 'f', -1, 64) + " kHz"
}

func decimal(f float64, places int) string {
	return strconv.FormatFloat(f, 'f', places, 64)
}

// channelsText names a channel count ("stereo", "5.1") from its layout.
func channelsText(n float64, layout string) string {
	switch {
	case layout != "" && layout != "unknown":
		return layout
	case n == 1:
		return "mono"
	case n == 2:
		return "stereo"
	case n > 2:
		return strconv.Itoa(int(n)) + " channels"
	}
	return ""
}

// itemSummary builds the summary of an item: its kind's group first, then
// the facts of every item.
func (u *UI) itemSummary(s *summaryContext) []summaryGroup {
	var groups []summaryGroup
	switch {
	case s.kind == models.TypeVideo:
		groups = append(groups, s.video())
	case s.kind == models.TypeAudio:
		groups = append(groups, s.audio())
	case s.kind == models.TypeImage:
		groups = append(groups, s.photo())
	case s.kind == models.TypeDocument || s.pages() > 0:
		groups = append(groups, s.document())
	}
	groups = append(groups, s.file())
	return slices.DeleteFunc(groups, func(g summaryGroup) bool { return len(g.Rows) == 0 })
}

func (s *summaryContext) pages() int {
	for _, f := range []string{"pdf.page_count", "document_pages.page_count", "officex.page_count"} {
		if n, ok := s.num(f); ok && n > 0 {
			return int(n)
		}
	}
	return 0
}

func (s *summaryContext) duration() summaryRow {
	if d := itemDuration(s.meta); d > 0 {
		return row("Duration", plain(humanDuration(d)))
	}
	return summaryRow{}
}

func (s *summaryContext) video() summaryGroup {
	g := summaryGroup{Title: "Video"}
	g.add(s.duration())
	w, h := itemDimensions(s.meta)
	picture := row("Picture")
	if w > 0 && h > 0 {
		picture.Parts = append(picture.Parts, summaryPart{Text: fmt.Sprintf("%d × %d", w, h),
			Href: s.find("mediainfo.video.resolution", s.text("mediainfo.video.resolution"))})
	}
	if fps, ok := s.num("mediainfo.video.frame_rate"); ok && fps > 0 {
		p := s.part("mediainfo.video.frame_rate", strconv.FormatFloat(fps, 'f', -1, 64)+" fps")
		if s.text("mediainfo.video.frame_rate_mode") == "VFR" {
			p.Text += " (variable)"
		}
		picture.Parts = append(picture.Parts, p)
	}
	if scan := s.text("mediainfo.video.scan_type"); scan != "" {
		p := s.part("mediainfo.video.scan_type", scan)
		if order := s.text("mediainfo.video.field_order"); scan == "interlaced" && order != "" {
			p.Text += " (" + strings.ToUpper(order) + ")"
		}
		picture.Parts = append(picture.Parts, p)
	}
	g.add(picture)
	codec := row("Codec")
	if f := s.text("mediainfo.video.format"); f != "" {
		codec.Parts = append(codec.Parts, s.part("mediainfo.video.format", f))
	} else if c := s.text("mediainfo.video.codec"); c != "" {
		codec.Parts = append(codec.Parts, s.part("mediainfo.video.codec", c))
	}
	if p := s.text("mediainfo.video.profile"); p != "" {
		text := p
		if l := s.text("mediainfo.video.level"); l != "" {
			text += " @ " + l
		}
		codec.Parts = append(codec.Parts, s.part("mediainfo.video.profile", text))
	}
	if b, ok := s.num("mediainfo.video.bit_rate"); ok {
		codec.Parts = append(codec.Parts, plain(bitRate(b)))
	} else if b, ok := s.num("mediainfo.bit_rate"); ok {
		codec.Parts = append(codec.Parts, plain(bitRate(b)+" overall"))
	}
	g.add(codec)
	colour := row("Colour")
	if c := s.text("mediainfo.video.chroma_subsampling"); c != "" {
		colour.Parts = append(colour.Parts, s.part("mediainfo.video.chroma_subsampling", c))
	}
	if d, ok := s.num("mediainfo.video.bit_depth"); ok && d > 0 {
		colour.Parts = append(colour.Parts, plain(strconv.Itoa(int(d))+"-bit"))
	}
	if p := s.text("mediainfo.video.color_primaries"); p != "" {
		colour.Parts = append(colour.Parts, s.part("mediainfo.video.color_primaries", strings.ToUpper(p)))
	}
	if r := s.text("mediainfo.video.color_range"); r != "" {
		colour.Parts = append(colour.Parts, plain(r+" range"))
	}
	if hdr := s.text("mediainfo.video.hdr"); hdr != "" {
		colour.Parts = append(colour.Parts, s.part("mediainfo.video.hdr", hdr))
	}
	g.add(colour)
	g.add(s.audioStream("mediainfo.audio"))
	g.add(s.loudness())
	g.add(s.qc())
	g.add(s.captions())
	if tc := s.text("mediainfo.timecode"); tc != "" {
		g.add(row("Start timecode", plain(tc)))
	}
	g.add(s.recorded())
	g.add(s.place())
	g.add(s.seen())
	return g
}

// audioStream describes the main audio stream under prefix (mediainfo.audio
// or audioinfo).
func (s *summaryContext) audioStream(prefix string) summaryRow {
	r := row("Audio")
	if f := s.text(prefix + ".format"); f != "" {
		text := f
		if p := s.text(prefix + ".profile"); p != "" {
			text += " " + p
		}
		r.Parts = append(r.Parts, s.part(prefix+".format", text))
	} else if c := s.text(prefix + ".codec"); c != "" {
		r.Parts = append(r.Parts, s.part(prefix+".codec", c))
	}
	n, _ := s.num(prefix + ".channels")
	if ch := channelsText(n, s.text(prefix+".channel_layout")); ch != "" {
		r.Parts = append(r.Parts, s.part(prefix+".channel_layout", ch))
	}
	if hz, ok := s.num(prefix + ".sample_rate"); ok {
		r.Parts = append(r.Parts, s.part(prefix+".sample_rate", hertz(hz)))
	}
	if d, ok := s.num(prefix + ".bit_depth"); ok && d > 0 {
		r.Parts = append(r.Parts, plain(strconv.Itoa(int(d))+"-bit"))
	}
	if b, ok := s.num(prefix + ".bit_rate"); ok {
		r.Parts = append(r.Parts, plain(bitRate(b)))
	}
	if l := s.text(prefix + ".language"); l != "" && l != "und" {
		r.Parts = append(r.Parts, s.part(prefix+".language", languageName(l)))
	}
	return r
}

func (s *summaryContext) loudness() summaryRow {
	r := row("Loudness")
	if v, ok := s.num("audiopeak.integrated_lufs"); ok {
		r.Parts = append(r.Parts, plain(decimal(v, 1)+" LUFS"))
	}
	if v, ok := s.num("audiopeak.true_peak_dbfs"); ok {
		r.Parts = append(r.Parts, plain("true peak "+decimal(v, 1)+" dBTP"))
	}
	if v, ok := s.num("audiopeak.loudness_range_lu"); ok {
		r.Parts = append(r.Parts, plain("range "+decimal(v, 1)+" LU"))
	}
	if len(r.Parts) == 0 {
		if v, ok := s.num("volumedetect.mean_volume"); ok {
			r.Parts = append(r.Parts, plain("mean "+decimal(v, 1)+" dB"))
		}
		if v, ok := s.num("volumedetect.max_volume"); ok {
			r.Parts = append(r.Parts, plain("peak "+decimal(v, 1)+" dB"))
		}
	}
	if silent, ok := lookup(s.meta, "audiopeak.silent").(bool); ok && silent {
		r.Parts = []summaryPart{plain("digital silence")}
	}
	return r
}

// maxQCLinks is how many moments of one QC finding the summary links.
const maxQCLinks = 5

// qc counts the quality-control findings of the extractors that ran, each
// count followed by links to the first moments.
func (s *summaryContext) qc() summaryRow {
	r := row("Quality control")
	for _, q := range []struct{ extractor, list, label string }{
		{"black_scenes", "scenes", "black"}, {"vendor_silence", "silences", "silence"}, {"vendor_color_bars", "bars", "colour bars"},
	} {
		data, ok := s.meta[q.extractor].(map[string]any)
		if !ok {
			continue
		}
		events := list(data[q.list])
		n, ok := number(data["count"])
		if !ok {
			n = float64(len(events))
		}
		if n == 0 {
			r.Parts = append(r.Parts, plain("no "+q.label))
			continue
		}
		r.Parts = append(r.Parts, summaryPart{Text: fmt.Sprintf("%s: %d", q.label, int(n)), Href: s.find(q.extractor+".count", str(data["count"]))})
		for i, ev := range events {
			if i == maxQCLinks {
				break
			}
			if t, ok := number(lookup(ev, "start")); ok {
				r.Parts = append(r.Parts, summaryPart{Text: "at " + timecode(t), Href: itemHref(s.it.ID, "", t), T: seconds(t)})
			}
		}
	}
	return r
}

// captions lists the caption tracks by language, with their cue counts.
func (s *summaryContext) captions() summaryRow {
	r := row("Captions")
	type lang struct {
		code string
		cues int
	}
	var langs []lang
	for _, c := range s.caps {
		if isSpeech(c) {
			continue
		}
		n := len(captionCues(c))
		code := c.Language
		i := slices.IndexFunc(langs, func(l lang) bool { return l.code == code })
		if i < 0 {
			langs = append(langs, lang{code, n})
		} else {
			langs[i].cues += n
		}
	}
	for _, l := range langs {
		name := "unknown language"
		if l.code != "" && l.code != "und" {
			name = languageName(l.code)
		}
		p := summaryPart{Text: fmt.Sprintf("%s (%d cues)", name, l.cues)}
		if l.code != "" {
			p.Href = s.find("facet:caplang", l.code)
		}
		r.Parts = append(r.Parts, p)
	}
	if cc, _ := lookup(s.meta, "captionsv2.closed_captions").(bool); cc {
		r.Parts = append(r.Parts, plain("closed captions (CEA-608/708)"))
	}
	return r
}

// speech names the languages of the speech transcripts.
func (s *summaryContext) speech() summaryRow {
	r := row("Speech")
	cues := 0
	var langs []string
	for _, c := range s.caps {
		if !isSpeech(c) {
			continue
		}
		cues += len(captionCues(c))
		if c.Language != "" && !slices.Contains(langs, c.Language) {
			langs = append(langs, c.Language)
		}
	}
	if cues == 0 {
		return r
	}
	text := fmt.Sprintf("transcribed, %d phrases", cues)
	r.Parts = append(r.Parts, plain(text))
	for _, l := range langs {
		r.Parts = append(r.Parts, plain(languageName(l)))
	}
	return r
}

func (s *summaryContext) recorded() summaryRow {
	if t, ok := search.ParseDateValue(s.text("mediainfo.creation_time")); ok {
		return row("Recorded", plain(t.UTC().Format("2006-01-02 15:04 UTC")))
	}
	return summaryRow{}
}

// place is the geocoded place: its name, its coordinates, and a link to a
// map elsewhere.
func (s *summaryContext) place() summaryRow {
	r := row("Place")
	for _, f := range []string{"geocoding.city", "geocoding.region", "geocoding.country.name"} {
		if v := s.text(f); v != "" && !slices.ContainsFunc(r.Parts, func(p summaryPart) bool { return p.Text == v }) {
			r.Parts = append(r.Parts, s.part(f, v))
		}
	}
	lat, ok1 := s.num("geocoding.coordinates.latitude")
	lon, ok2 := s.num("geocoding.coordinates.longitude")
	if !ok1 || !ok2 {
		lat, ok1 = s.num("exiv2.gps.latitude")
		lon, ok2 = s.num("exiv2.gps.longitude")
	}
	if ok1 && ok2 && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 {
		r.Parts = append(r.Parts, plain(coordinates(lat, lon)), summaryPart{Text: "map",
			Href: fmt.Sprintf("https://www.openstreetmap.org/?mlat=%.5f&mlon=%.5f#map=14/%.5f/%.5f", lat, lon, lat, lon), External: true})
	}
	return r
}

// coordinates writes a position as 39.9156° N, 116.3908° E.
func coordinates(lat, lon float64) string {
	ns, ew := "N", "E"
	if lat < 0 {
		ns, lat = "S", -lat
	}
	if lon < 0 {
		ew, lon = "W", -lon
	}
	return fmt.Sprintf("%.4f° %s, %.4f° %s", lat, ns, lon, ew)
}

// seen lists what recognition found in the item: objects and people.
func (s *summaryContext) seen() summaryRow {
	r := row("Objects and people")
	for i, t := range list(lookup(s.meta, "tags.tags")) {
		if i == 8 {
			break
		}
		if name := str(lookup(t, "name")); name != "" {
			r.Parts = append(r.Parts, summaryPart{Text: name, Href: s.find("tags.tags.name", name)})
		}
	}
	if s.persons != nil {
		// Persons across the archive: the named ones by name, the others
		// counted.
		r.Parts = append(r.Parts, s.persons.named...)
		if n := s.persons.unnamed; n > 0 {
			r.Parts = append(r.Parts, plain(countOf(n, "unnamed person", "unnamed people")))
		}
	} else if people := len(list(lookup(s.meta, "vendor_faces.people"))); people > 0 {
		r.Parts = append(r.Parts, plain(countOf(people, "person", "people")))
	} else if n, ok := s.num("vendor_faces.count"); ok && n > 0 {
		r.Parts = append(r.Parts, plain(fmt.Sprintf("%d faces", int(n))))
	}
	return r
}

// countOf is "1 person" or "3 people".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (s *summaryContext) audio() summaryGroup {
	g := summaryGroup{Title: "Audio"}
	g.add(s.duration())
	if _, ok := s.meta["audioinfo"]; ok {
		g.add(s.audioStream("audioinfo"))
	} else {
		g.add(s.audioStream("mediainfo.audio"))
	}
	g.add(s.loudness())
	g.add(s.qc())
	g.add(s.speech())
	if l := s.text("vendorlanguage.language"); l != "" {
		g.add(row("Language", s.part("vendorlanguage.language", languageName(l))))
	}
	g.add(s.captions())
	g.add(s.recorded())
	return g
}

func (s *summaryContext) photo() summaryGroup {
	g := summaryGroup{Title: "Photo"}
	if w, h := itemDimensions(s.meta); w > 0 && h > 0 {
		dims := row("Dimensions", plain(fmt.Sprintf("%d × %d", w, h)))
		if mp := float64(w) * float64(h) / 1e6; mp >= 0.1 {
			dims.Parts = append(dims.Parts, plain(decimal(mp, 1)+" MP"))
		}
		g.add(dims)
	}
	camera := row("Camera")
	if c := itemCamera(s.meta); c != "" {
		camera.Parts = append(camera.Parts, summaryPart{Text: c, Href: s.find("exiv2.camera.model", s.text("exiv2.camera.model"))})
	}
	g.add(camera)
	if l := s.text("exiv2.lens.model"); l != "" {
		g.add(row("Lens", s.part("exiv2.lens.model", l)))
	}
	exp := row("Exposure")
	if f, ok := s.num("exiv2.exposure.f_number"); ok && f > 0 {
		exp.Parts = append(exp.Parts, plain("f/"+strconv.FormatFloat(f, 'f', -1, 64)))
	}
	if t, ok := s.num("exiv2.exposure.time"); ok && t > 0 {
		exp.Parts = append(exp.Parts, plain(shutter(t)))
	}
	if f, ok := s.num("exiv2.exposure.focal_length"); ok && f > 0 {
		text := strconv.FormatFloat(f, 'f', -1, 64) + " mm"
		if e, ok := s.num("exiv2.exposure.focal_length_35mm"); ok && e > 0 && e != f {
			text += " (" + strconv.FormatFloat(e, 'f', -1, 64) + " mm full-frame equivalent)"
		}
		exp.Parts = append(exp.Parts, plain(text))
	}
	if iso, ok := s.num("exiv2.exposure.iso"); ok && iso > 0 {
		exp.Parts = append(exp.Parts, s.part("exiv2.exposure.iso", "ISO "+strconv.FormatFloat(iso, 'f', -1, 64)))
	}
	if fired, ok := lookup(s.meta, "exiv2.flash.fired").(bool); ok && fired {
		exp.Parts = append(exp.Parts, plain("flash"))
	}
	g.add(exp)
	if local := s.text("exiv2.created_local"); local != "" {
		if t, err := time.Parse("2006-01-02T15:04:05", local); err == nil {
			zone := s.text("exiv2.created_zone")
			text := t.Format("2006-01-02 15:04:05")
			if zone != "" {
				text += " (UTC" + zone + ")"
			} else {
				text += " (camera clock, time zone unknown)"
			}
			g.add(row("Taken", plain(text)))
		}
	}
	g.add(s.place())
	g.add(s.seen())
	for _, f := range []struct{ path, label string }{{"exiv2.title", "Title"}, {"exiv2.creator", "Creator"}, {"exiv2.copyright", "Rights"}} {
		if v := s.text(f.path); v != "" {
			v, _ = truncate(v, 200)
			g.add(row(f.label, s.part(f.path, v)))
		}
	}
	return g
}

// shutter writes an exposure time as cameras show it: 1/125 s, 2 s.
func shutter(sec float64) string {
	if sec < 1 {
		return "1/" + strconv.FormatFloat(math.Round(1/sec), 'f', 0, 64) + " s"
	}
	return strconv.FormatFloat(sec, 'f', -1, 64) + " s"
}

func (s *summaryContext) document() summaryGroup {
	g := summaryGroup{Title: "Document"}
	if n := s.pages(); n > 0 {
		g.add(row("Pages", plain(strconv.Itoa(n))))
	}
	for _, f := range []struct {
		label string
		paths []string
	}{
		{"Title", []string{"pdf.title", "officex.title", "html.title"}},
		{"Author", []string{"pdf.author", "officex.creator"}},
	} {
		for _, p := range f.paths {
			if v := s.text(p); v != "" {
				v, _ = truncate(v, 200)
				g.add(row(f.label, s.part(p, v)))
				break
			}
		}
	}
	if l := s.text("vendorlanguage.language"); l != "" {
		g.add(row("Language", s.part("vendorlanguage.language", languageName(l))))
	} else if l := s.text("vendorlanguage.guess"); l != "" {
		g.add(row("Language", plain(languageName(l)+" (a guess)")))
	}
	if n, ok := s.num("officex.word_count"); ok && n > 0 {
		g.add(row("Words", plain(strconv.Itoa(int(n)))))
	} else {
		for _, p := range []string{"pdf.text", "officex.text", "text.text"} {
			if t := s.text(p); t != "" {
				n := len(strings.Fields(t))
				text := strconv.Itoa(n)
				if b, _ := lookup(s.meta, strings.TrimSuffix(p, ".text")+".text_truncated").(bool); b {
					text = "over " + text
				}
				g.add(row("Words", plain(text)))
				break
			}
		}
	}
	if t, ok := search.ParseDateValue(s.text("pdf.created")); ok {
		g.add(row("Created", plain(t.UTC().Format("2006-01-02"))))
	}
	return g
}

// digests are the checksums the summary shows, short.
var digests = []struct{ path, label string }{{"hashes.md5", "MD5"}, {"hashes.sha1", "SHA-1"}, {"hashes.sha256", "SHA-256"}}

// file is what every item has: its type, size, place in storage,
// checksums, times and errors.
func (s *summaryContext) file() summaryGroup {
	g := summaryGroup{Title: "File"}
	typ := row("Type")
	if s.typeName != "" {
		typ.Parts = append(typ.Parts, summaryPart{Text: s.typeName, Href: s.find("facet:type", s.kind)})
	}
	if s.it.MimeType != "" {
		typ.Parts = append(typ.Parts, summaryPart{Text: s.it.MimeType, Href: s.find("facet:mime", s.it.MimeType)})
	}
	g.add(typ)
	g.add(row("Size", plain(humanSize(s.it.Size))))
	g.add(row("Location", plain(s.where)))
	sums := row("Checksums")
	for _, d := range digests {
		if v := s.text(d.path); v != "" {
			short := v
			if len(short) > 12 {
				short = short[:12] + "…"
			}
			sums.Parts = append(sums.Parts, summaryPart{Text: d.label, Code: short, Copy: v, Href: "/?q=" + url.QueryEscape(v)})
		}
	}
	g.add(sums)
	if s.it.LastModified != nil {
		g.add(row("Modified", plain(s.it.LastModified.UTC().Format("2006-01-02 15:04 UTC"))))
	}
	if s.it.LastHarvested != nil {
		g.add(row("Harvested", plain(s.it.LastHarvested.UTC().Format("2006-01-02 15:04 UTC"))))
	}
	if s.errors > 0 {
		text := fmt.Sprintf("%d extractors failed", s.errors)
		if s.errors == 1 {
			text = "1 extractor failed"
		}
		g.add(row("Errors", summaryPart{Text: text, Href: "#errors"}))
	}
	return g
}
