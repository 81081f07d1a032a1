package web

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jsonleaf"
	"github.com/metaharvest/metaharvest/models"
)

// laneTitles names the lanes under the player, in the order shown.
var laneTitles = []struct{ Name, Title string }{
	{"shots", "Shots"}, {"faces", "Faces"}, {"ocr", "Text on screen"}, {"captions", "Captions"},
	{"speech", "Speech"}, {"qc", "Quality control"}, {"tags", "Tags and logos"}, {"objects", "Objects"}, {"hits", "Search hits"},
}

// lanes reads the timed data of an item: key frames, faces, text on
// screen, captions and speech, QC events, tags and logos, objects (the hits lane is
// the search's, added by the caller). Lanes without markers are left out.
//
// persons names the item's own persons (vendor_faces' person_id) as the
// persons across the archive they are (docs/people.md); nil when the
// caller may not see people.
func (u *UI) lanes(it models.Item, meta map[string]any, arts []models.Artifact, caps []models.Caption, persons map[string]string) []lane {
	by := map[string][]marker{}
	add := func(name string, t, end float64, kind, label string) *marker {
		if len(by[name]) >= maxLaneMarkers || t < 0 {
			return nil
		}
		label, _ = truncate(strings.TrimSpace(label), 120)
		m := marker{Href: itemHref(it.ID, "", t), T: seconds(t), Kind: kind, Label: label, Time: timecode(t)}
		if end > t {
			m.End = seconds(end)
		}
		by[name] = append(by[name], m)
		return &by[name][len(by[name])-1]
	}
	for _, f := range list(lookup(meta, "video_main_frames.frames")) {
		t, ok := number(lookup(f, "time"))
		if !ok {
			continue
		}
		// The key frames' pictures are the filmstrip's: here a mark.
		add("shots", t, 0, "", "Shot at "+timecode(t))
	}
	for _, f := range list(lookup(meta, "vendor_faces.faces")) {
		t, ok := number(lookup(f, "time"))
		if !ok {
			continue
		}
		label := "Face"
		if id := str(lookup(f, "person_id")); id != "" {
			label = "Person " + id
			if name, ok := persons[id]; ok {
				label = name
			}
		}
		add("faces", t, 0, "", label)
	}
	for _, f := range list(lookup(meta, "tesseract.frames")) {
		t, ok := number(lookup(f, "time"))
		text := strings.TrimSpace(str(lookup(f, "text")))
		if ok && text != "" {
			add("ocr", t, 0, "", text)
		}
	}
	for _, c := range caps {
		name := "captions"
		if isSpeech(c) {
			name = "speech"
		}
		for _, q := range captionCues(c) {
			add(name, q.Start, q.End, "", q.Text)
		}
	}
	qc := []struct{ list, kind, label string }{
		{"black_scenes.scenes", "black", "Black"},
		{"vendor_silence.silences", "silence", "Silence"},
		{"vendor_color_bars.bars", "color_bars", "Colour bars"},
	}
	for _, e := range qc {
		for _, ev := range list(lookup(meta, e.list)) {
			start, ok := number(lookup(ev, "start"))
			end, _ := number(lookup(ev, "end"))
			if ok {
				add("qc", start, end, e.kind, e.label)
			}
		}
	}
	for _, part := range []struct{ key, kind, label string }{{"head", "start", "Programme start"}, {"tail", "end", "Programme end"}} {
		if ev, ok := lookup(meta, "vendor_start_end."+part.key).(map[string]any); ok {
			if start, ok := number(ev["start"]); ok {
				end, _ := number(ev["end"])
				add("qc", start, end, part.kind, part.label)
			}
		}
	}
	for _, l := range list(lookup(meta, "tags.labels")) {
		t, ok := number(lookup(l, "start"))
		if !ok {
			t, ok = number(lookup(l, "time"))
		}
		end, _ := number(lookup(l, "end"))
		if name := str(lookup(l, "name")); ok && name != "" {
			add("tags", t, end, "tag", name)
		}
	}
	// Objects found offline: one marker per name and frame (a crowd is
	// one "person"), the most confident first in the data.
	seenObject := map[string]bool{}
	for _, l := range list(lookup(meta, "objects.labels")) {
		t, ok := number(lookup(l, "time"))
		name := str(lookup(l, "name"))
		key := strconv.FormatFloat(t, 'f', 3, 64) + "\x00" + strings.ToLower(name)
		if ok && name != "" && !seenObject[key] {
			seenObject[key] = true
			add("objects", t, 0, "object", name)
		}
	}
	for _, d := range list(lookup(meta, "logos.detections")) {
		t, ok := number(lookup(d, "time"))
		if name := str(lookup(d, "name")); ok && name != "" {
			add("tags", t, 0, "logo", "Logo: "+name)
		}
	}
	var out []lane
	for _, lt := range laneTitles {
		ms := by[lt.Name]
		if len(ms) == 0 {
			continue
		}
		sort.SliceStable(ms, func(i, j int) bool { return secs(ms[i].T) < secs(ms[j].T) })
		out = append(out, lane{Name: lt.Name, Title: lt.Title, Markers: ms})
	}
	return out
}

func secs(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

func isSpeech(c models.Caption) bool {
	return c.Source == "speech" || strings.HasPrefix(c.Extractor, "speech_to_text")
}

func captionCues(c models.Caption) []extractors.Cue {
	var cues []extractors.Cue
	_ = jsonUnmarshal(c.Cues, &cues)
	return cues
}

// transcriptCues are the cues of every caption and speech transcript, in
// time order (each a link to its time).
func transcriptCues(itemID string, caps []models.Caption) []cue {
	var out []cue
	for _, c := range caps {
		for _, q := range captionCues(c) {
			text := strings.TrimSpace(q.Text)
			if text == "" || q.Start < 0 {
				continue
			}
			text, _ = truncate(text, 1000)
			cu := cue{Href: itemHref(itemID, "", q.Start), T: seconds(q.Start), Time: timecode(q.Start), Text: text}
			if q.End > q.Start {
				cu.End = seconds(q.End)
			}
			out = append(out, cu)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return secs(out[i].T) < secs(out[j].T) })
	if len(out) > maxCues {
		out = out[:maxCues]
	}
	return out
}

// captionsText is the text of an item's captions where there is no player
// to seek (a caption file): a cue a line, after its start time.
func captionsText(itemID string, caps []models.Caption) (string, bool) {
	var b strings.Builder
	for _, c := range transcriptCues(itemID, caps) {
		b.WriteString(c.Time)
		b.WriteString("  ")
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	return truncate(b.String(), maxTextRunes)
}

// panels group the item's metadata by extractor family, each family a
// collapsed section: a value a row under the catalogue's label for it
// (else its path in words), each a link that searches for it. What is how
// the platform works rather than what the file is stays in the raw JSON:
// the fields the catalogue marks internal (artifact paths, decoders),
// undeclared paths, and the entries of lists of objects (a stream, a
// frame), which a row counts.
func (u *UI) panels(meta map[string]any) []panel {
	declared := u.declared()
	byFamily := map[extractors.Family][]panelGroup{}
	names := make([]string, 0, len(meta))
	for n := range meta {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		fam := extractors.Family("")
		info, known := u.Extractors.Get(name)
		if known {
			fam = info.Family
		}
		// An extractor that declares no field (json, xml copy a file's
		// own keys) shows every value.
		open := !known || len(info.Fields) == 0
		g := panelGroup{Title: u.displayName(name)}
		emit := func(field, rel, value string, entries int) {
			d, isDeclared := declared[field]
			if d.Internal || !open && !isDeclared && entries <= 0 || internalName(rel) {
				return
			}
			if len(g.Rows) >= maxPanelRows {
				g.More++
				return
			}
			row := metaRow{Label: d.Label, Doc: d.Doc}
			if row.Label == "" {
				row.Label = words(rel)
			}
			row.Value, _ = truncate(value, maxValueRunes)
			switch {
			case entries != 0: // a count of entries, or several values
			case strings.TrimSpace(value) == "":
				// An empty value is no search: a link with no text would
				// have no accessible name.
				row.Value = "(empty)"
			case isDeclared && d.Type != extractors.TypeText && len([]rune(value)) <= 200:
				row.Href = "/?f=" + url.QueryEscape(field+":"+value)
			case len([]rune(value)) <= 100:
				row.Href = "/?q=" + url.QueryEscape(`"`+strings.ReplaceAll(value, `"`, "")+`"`)
			}
			g.Rows = append(g.Rows, row)
		}
		walkMeta(name, meta[name], emit)
		if len(g.Rows) > 0 {
			byFamily[fam] = append(byFamily[fam], g)
		}
	}
	var out []panel
	for _, fam := range append(extractors.Families(), "") {
		gs := byFamily[fam]
		if len(gs) == 0 {
			continue
		}
		title := fam.Name()
		if title == "" {
			title = "Other"
		}
		p := panel{Family: string(fam), Title: title, Groups: gs}
		for _, g := range gs {
			p.Values += len(g.Rows)
		}
		out = append(out, p)
	}
	return out
}

// internalName reports a key that names how the platform works whatever
// the extractor (an artifact's file path).
func internalName(rel string) bool {
	leaf := rel[strings.LastIndex(rel, ".")+1:]
	return leaf == "path" || strings.HasSuffix(leaf, "_path") || leaf == "decoder"
}

// words writes a metadata path for people: "video.frame_rate" is "Video
// frame rate".
func words(rel string) string {
	s := strings.NewReplacer(".", " ", "_", " ").Replace(rel)
	if s == "" {
		return "Value"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// walkMeta calls emit for each value of an extractor's data v: its search
// field, its path below the extractor ("value" for v itself), its value
// as text; a list of scalars is one value (joined, entries the negative
// count of its values), a list of objects one row counting its entries.
func walkMeta(extractor string, v any, emit func(field, rel, value string, entries int)) {
	// The field joins every key with a dot, an empty key too (Path has
	// no dot after an empty key).
	field := func(l jsonleaf.Leaf) string {
		if len(l.Keys) == 0 {
			return extractor
		}
		return extractor + "." + strings.Join(l.Keys, ".")
	}
	list := func(l jsonleaf.Leaf) bool {
		var scalars []string
		objects := 0
		for _, e := range l.Value.([]any) {
			switch e.(type) {
			case map[string]any, []any:
				objects++
			case nil:
			default:
				scalars = append(scalars, str(e))
			}
		}
		if objects > 0 {
			n := strconv.Itoa(objects) + " entries"
			if objects == 1 {
				n = "1 entry"
			}
			emit(field(l), l.Path, n+" (in the raw data)", objects)
		} else if len(scalars) == 1 {
			emit(field(l), l.Path, scalars[0], 0)
		} else if len(scalars) > 1 {
			emit(field(l), l.Path, strings.Join(scalars, ", "), -len(scalars))
		}
		return false // one row, not a row per element
	}
	jsonleaf.Walker{Sorted: true, Array: list}.Walk(v, func(l jsonleaf.Leaf) {
		rel := l.Path
		if rel == "" {
			rel = "value"
		}
		emit(field(l), rel, str(l.Value), 0)
	})
}
