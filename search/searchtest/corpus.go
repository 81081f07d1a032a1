package searchtest

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Group ids of the corpus. Location "newsroom" needs GroupA, container
// "exclusive" GroupB, location "legal" GroupB, container "stills" GroupC.
const (
	GroupA = "0000000000000000000000000000000a"
	GroupB = "0000000000000000000000000000000b"
	GroupC = "0000000000000000000000000000000c"
)

// Marker words: each appears only where the corpus puts it, and is far (in
// edit distance) from every other word, so that typo-tolerant engines agree.
const (
	MarkerCaption   = "quokka"      // transcript.text of some videos (their captions), tesseract.text of some images
	MarkerName      = "zeppelin"    // file names
	MarkerHidden    = "marzipan"    // only in documents a GroupA user cannot see
	MarkerField     = "kumquat"     // pdf.text and speech_to_text.text
	MarkerAccented  = "Çağlayanşüt" // pdf.text of some documents: found as "caglayansut" and "ÇAĞLAYANŞÜT" too
	MarkerSegment   = "walrus"      // segment OCR text
	MarkerSegHidden = "narwhal"     // segment OCR text of hidden items only
)

var vocabulary = strings.Fields(`river mountain city night market train forest ocean studio
interview concert garden bridge harbor desert winter summer festival crowd street camera light
shadow storm sunset morning island village castle museum library stadium kitchen factory airport
beach canyon valley meadow glacier`)

var adjectives = strings.Fields(`red blue green quiet loud bright dark old new early`)

type location struct {
	id, kind, name string
	groups         []string
}

type container struct {
	id, name string
	loc      *location
	groups   []string
	weight   int
}

var (
	locArchive = &location{"loc-archive", "filesystem", "archive", nil}
	locNews    = &location{"loc-news", "s3", "newsroom", []string{GroupA}}
	locLegal   = &location{"loc-legal", "filesystem", "legal", []string{GroupB}}
	locUploads = &location{"loc-uploads", "uploadstore", "uploads", nil}

	containers = []*container{
		{"c-footage", "footage", locArchive, nil, 30},
		{"c-stills", "stills", locArchive, []string{GroupC}, 10},
		{"c-daily", "daily", locNews, nil, 25},
		{"c-exclusive", "exclusive", locNews, []string{GroupB}, 10},
		{"c-contracts", "contracts", locLegal, nil, 10},
		{"c-inbox", "inbox", locUploads, nil, 15},
	}
)

type format struct {
	ext, mime, typ string
}

var formats = map[string][]format{
	models.TypeVideo:    {{"mp4", "video/mp4", models.TypeVideo}, {"mov", "video/quicktime", models.TypeVideo}},
	models.TypeAudio:    {{"mp3", "audio/mpeg", models.TypeAudio}, {"wav", "audio/wav", models.TypeAudio}},
	models.TypeImage:    {{"jpg", "image/jpeg", models.TypeImage}, {"png", "image/png", models.TypeImage}},
	models.TypeDocument: {{"pdf", "application/pdf", models.TypeDocument}, {"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", models.TypeDocument}, {"txt", "text/plain", models.TypeDocument}},
	models.TypeOther:    {{"zip", "application/zip", models.TypeOther}, {"bin", "application/octet-stream", models.TypeOther}},
}

// Corpus is a generated set of documents and segments, with JSON-native
// values only (map[string]any, []any, string, float64, bool) so that the
// reference evaluation reads them the way an engine does. Extracted data
// has the shape the extractors declare (their Info.Fields: mediainfo,
// captions, vendor_faces, speech_to_text, exiv2, tesseract, nsfw, pdf,
// hashes), the captions' text is under "transcript" as the document
// builder puts it, and labels and tags are the generic names provider
// data is stored under.
type Corpus struct {
	Now      time.Time
	Docs     []search.Document
	Segments []search.Segment
	byID     map[string]search.Document
}

// Doc returns the document with that id.
func (c *Corpus) Doc(id string) search.Document { return c.byID[id] }

// NewCorpus generates n documents (and segments for a third of the videos)
// deterministically from seed. Dates are placed relative to now, away from
// the boundaries the suite queries (1 hour, 7 days, 30 days, +30 minutes).
func NewCorpus(n int, seed uint64, now time.Time) *Corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	c := &Corpus{Now: now.UTC().Truncate(time.Second), byID: map[string]search.Document{}}
	totalWeight := 0
	for _, ct := range containers {
		totalWeight += ct.weight
	}
	for i := 0; i < n; i++ {
		w := r.IntN(totalWeight)
		var ct *container
		for _, x := range containers {
			if w < x.weight {
				ct = x
				break
			}
			w -= x.weight
		}
		doc := c.document(r, i, ct)
		c.Docs = append(c.Docs, doc)
		c.byID[doc.ID()] = doc
		if doc[search.FieldType] == models.TypeVideo && i%3 == 0 {
			c.Segments = append(c.Segments, segments(r, doc, ct)...)
		}
	}
	return c
}

// cameraZone is the zone of the cameras' clocks in the corpus.
var cameraZone = time.FixedZone("+02:00", 2*60*60)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func sentence(r *rand.Rand, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = pick(r, vocabulary)
	}
	return strings.Join(w, " ")
}

// withMarker puts a marker word in the middle of a sentence.
func withMarker(s, marker string) string {
	w := strings.Fields(s)
	mid := len(w) / 2
	return strings.Join(append(w[:mid:mid], append([]string{marker}, w[mid:]...)...), " ")
}

func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return hex.EncodeToString(b)
}

func anyList(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// lastModified spreads instants over three years, keeping 10 minutes away
// from now-1h, now-7d, now-30d and now+30m.
func (c *Corpus) lastModified(r *rand.Rand) (time.Time, bool) {
	now := c.Now
	switch x := r.IntN(100); {
	case x < 2:
		return time.Time{}, false
	case x < 7: // within the last hour
		return now.Add(-time.Duration(10+r.IntN(40)) * time.Minute), true
	case x < 9: // in the near future, before +30m
		return now.Add(time.Duration(2+r.IntN(15)) * time.Minute), true
	case x < 11: // further in the future
		return now.Add(time.Duration(2+r.IntN(48)) * time.Hour), true
	case x < 25: // between 1h10m and 6d23h ago
		return now.Add(-time.Duration(70+r.IntN(7*24*60-90)) * time.Minute), true
	case x < 40: // between 7d+1h and 29d ago
		return now.Add(-7*24*time.Hour - time.Duration(60+r.IntN(22*24*60-60))*time.Minute), true
	default: // 31 days to 3 years ago
		return now.Add(-31*24*time.Hour - time.Duration(r.Int64N(int64(3*365*24*time.Hour)))).Truncate(time.Second), true
	}
}

func (c *Corpus) document(r *rand.Rand, i int, ct *container) search.Document {
	var typ string
	switch x := r.IntN(100); {
	case x < 30:
		typ = models.TypeVideo
	case x < 45:
		typ = models.TypeAudio
	case x < 75:
		typ = models.TypeImage
	case x < 95:
		typ = models.TypeDocument
	default:
		typ = models.TypeOther
	}
	f := pick(r, formats[typ])
	hidden := len(ct.loc.groups) > 0 && !contains(ct.loc.groups, GroupA) || len(ct.groups) > 0 && !contains(ct.groups, GroupA)

	first := pick(r, adjectives)
	if i%41 == 7 {
		first = MarkerName
	}
	name := fmt.Sprintf("%s_%s_%05d.%s", first, pick(r, vocabulary), i, f.ext)
	path := fmt.Sprintf("%d/%s", 2019+r.IntN(6), name)
	doc := search.Document{
		search.FieldID:              fmt.Sprintf("d%05d", i),
		search.FieldName:            name,
		search.FieldMimeType:        f.mime,
		search.FieldLocationID:      ct.loc.id,
		search.FieldLocationKind:    ct.loc.kind,
		search.FieldLocationName:    ct.loc.name,
		search.FieldContainerID:     ct.id,
		search.FieldContainerName:   ct.name,
		search.FieldStoreURL:        search.StoreURL(ct.loc.kind, ct.loc.name, ct.name, path),
		search.FieldType:            f.typ,
		search.FieldExtension:       f.ext,
		search.FieldLocationGroups:  anyList(ct.loc.groups...),
		search.FieldContainerGroups: anyList(ct.groups...),
		"hashes": map[string]any{
			"md5": randHex(r, 16), "sha256": randHex(r, 32),
		},
	}
	if t, ok := c.lastModified(r); ok {
		doc[search.FieldLastModified] = t.Format(time.RFC3339)
	}
	var size float64
	switch typ {
	case models.TypeVideo:
		size = float64(1e7 + r.Int64N(5e9))
		video := map[string]any{
			"codec":      pick(r, []string{"h264", "hevc", "prores", "vp9"}),
			"width":      float64(pick(r, []int{1280, 1920, 3840})),
			"height":     float64(pick(r, []int{720, 1080, 2160})),
			"frame_rate": pick(r, []float64{23.976, 25, 29.97, 50}),
		}
		if r.IntN(10) != 0 {
			video["duration"] = math.Round((10+r.Float64()*7190)*100) / 100
		}
		doc["mediainfo"] = map[string]any{
			"video": video,
			"audio": map[string]any{"channels": float64(pick(r, []int{2, 6})), "codec": "aac"},
		}
		if r.IntN(10) < 3 {
			text := sentence(r, 8+r.IntN(8))
			if i%4 == 0 {
				text = withMarker(text, MarkerCaption)
			}
			if hidden && i%2 == 0 {
				text = withMarker(text, MarkerHidden)
			}
			doc["captions"] = map[string]any{"tracks": 1.0, "languages": anyList("eng"), "formats": anyList("mov_text"),
				"cues": float64(1 + len(strings.Fields(text))/4)}
			doc[search.FieldTranscript] = map[string]any{"text": text, "languages": anyList("en"), "sources": anyList("captions")}
		}
		if r.IntN(10) < 2 {
			people := []any{}
			for _, id := range []string{pick(r, []string{"ada", "grace", "linus", "ken"}), pick(r, []string{"barbara", "dennis"})} {
				people = append(people, map[string]any{"person_id": id, "is_known": true, "appearances": 1.0})
			}
			doc["vendor_faces"] = map[string]any{"count": float64(len(people)), "people": people}
		}
		if r.IntN(10) < 4 {
			doc["labels"] = map[string]any{"names": anyList(pick(r, vocabulary), pick(r, vocabulary))}
		}
	case models.TypeAudio:
		size = float64(1e6 + r.Int64N(2e8))
		doc["mediainfo"] = map[string]any{"audio": map[string]any{
			"duration": math.Round((5+r.Float64()*3600)*100) / 100,
			"channels": float64(pick(r, []int{1, 2})),
			"codec":    pick(r, []string{"mp3", "pcm"}),
		}}
		if r.IntN(10) < 4 {
			text := sentence(r, 10)
			if i%3 == 0 {
				text = withMarker(text, MarkerField)
			}
			doc["speech_to_text"] = map[string]any{"text": text, "language": "en", "words": float64(len(strings.Fields(text)))}
		}
	case models.TypeImage:
		size = float64(1e5 + r.Int64N(3e7))
		camera := map[string]any{
			"make":  pick(r, []string{"canon", "nikon", "sony", "fujifilm"}),
			"model": "m" + fmt.Sprint(r.IntN(50)),
		}
		// The camera clock, two hours ahead of UTC: created is the instant
		// with its zone, created_local the clock without one.
		clock := time.Date(2018+r.IntN(6), time.Month(1+r.IntN(12)), 1+r.IntN(28),
			r.IntN(24), r.IntN(60), r.IntN(60), 0, cameraZone)
		exif := map[string]any{
			"camera":        camera,
			"created":       clock.Format(time.RFC3339),
			"created_local": clock.Format("2006-01-02T15:04:05"),
			"created_zone":  "+02:00",
		}
		if r.IntN(10) == 0 {
			// A string where numbers are expected (data of another
			// version of the extractor): engines keep both kinds apart.
			exif["exposure"] = map[string]any{"iso": "unknown"}
		} else {
			exif["exposure"] = map[string]any{"iso": float64(pick(r, []int{100, 200, 400, 800, 1600, 3200}))}
		}
		doc["exiv2"] = exif
		if r.IntN(10) < 3 {
			text := sentence(r, 6)
			if i%5 == 0 {
				text = withMarker(text, MarkerCaption)
			}
			doc["tesseract"] = map[string]any{"text": text}
		}
		if r.IntN(2) == 0 {
			score := math.Round(r.Float64()*1000) / 1000
			doc["nsfw"] = map[string]any{"nsfw": score > 0.8, "nsfw_score": score}
		}
		if r.IntN(2) == 0 {
			doc["labels"] = map[string]any{"names": anyList(pick(r, vocabulary))}
		}
	case models.TypeDocument:
		size = float64(1e3 + r.Int64N(5e7))
		text := sentence(r, 20+r.IntN(30))
		if i%3 == 1 {
			text = withMarker(text, MarkerField)
		}
		if i%4 == 2 {
			text = withMarker(text, MarkerAccented)
		}
		if hidden {
			text = withMarker(text, MarkerHidden)
		}
		doc["pdf"] = map[string]any{"page_count": float64(1 + r.IntN(300)), "text": text, "title": sentence(r, 3)}
	default:
		size = float64(r.Int64N(1e9))
	}
	doc[search.FieldSize] = size
	if r.IntN(5) == 0 {
		tags := []any{}
		for k := 0; k < 1+r.IntN(3); k++ {
			tags = append(tags, map[string]any{"name": pick(r, vocabulary), "confidence": math.Round(r.Float64()*100) / 100})
		}
		doc["tags"] = map[string]any{"items": tags}
	}
	return doc
}

func segments(r *rand.Rand, doc search.Document, ct *container) []search.Segment {
	hidden := len(ct.loc.groups) > 0 && !contains(ct.loc.groups, GroupA) || len(ct.groups) > 0 && !contains(ct.groups, GroupA)
	var out []search.Segment
	t := 0.0
	for k := 0; k < 3; k++ {
		ocr := sentence(r, 5)
		if k == 1 && r.IntN(2) == 0 {
			ocr = withMarker(ocr, MarkerSegment)
		}
		if hidden && k == 2 {
			ocr = withMarker(ocr, MarkerSegHidden)
		}
		desc := search.SegmentDescription{Text: sentence(r, 6), Confidence: math.Round(r.Float64()*100) / 100, Source: "vendor"}
		seg := search.Segment{
			ID:     fmt.Sprintf("%s-s%d", doc.ID(), k),
			ItemID: doc.ID(),
			Time:   t,
			Summary: search.SegmentSummary{
				Tags:         []search.SegmentTag{{Name: pick(r, vocabulary), Confidence: 0.9, Source: "vendor"}},
				Description:  &desc,
				Descriptions: []search.SegmentDescription{desc},
				OCR:          []search.SegmentText{{Text: ocr, Source: "tesseract"}},
			},
			LocationGroups:  append([]string{}, ct.loc.groups...),
			ContainerGroups: append([]string{}, ct.groups...),
		}
		if r.IntN(4) == 0 {
			seg.Summary.NSFW = &search.SegmentNSFW{Source: "vendor", NSFW: false, NSFWScore: 0.1}
		}
		// The item's captions, linked to its first segment as
		// search.BuildSegments links them (no randomness drawn: the rest
		// of the corpus stays as it was).
		if tr, ok := doc[search.FieldTranscript].(map[string]any); ok && k == 0 {
			text, _ := tr["text"].(string)
			seg.Summary.Transcript = []search.SegmentTranscript{{Text: text, Source: "embedded", Language: "en", Start: t, End: t + 4}}
		}
		out = append(out, seg)
		t += math.Round((5+r.Float64()*60)*1000) / 1000
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
