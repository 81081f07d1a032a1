package api

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// The constants mediaTypeSQL is built from cover exactly what Go's
// strings.TrimSpace and strings.ToLower do.
func TestMediaTypeSQLConstantsMatchGo(t *testing.T) {
	t.Parallel()
	from := []rune(goLowerFrom)
	if len(from) != len(goLowerTo) {
		t.Fatalf("goLowerFrom has %d runes, goLowerTo %d bytes", len(from), len(goLowerTo))
	}
	lowered := map[rune]rune{}
	for i, r := range from {
		lowered[r] = rune(goLowerTo[i])
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.IsSpace(r) != strings.ContainsRune(goSpace, r) {
			t.Errorf("U+%04X: unicode.IsSpace is %v but goSpace disagrees", r, unicode.IsSpace(r))
		}
		if r >= utf8.RuneSelf && unicode.ToLower(r) < utf8.RuneSelf && lowered[r] != unicode.ToLower(r) {
			t.Errorf("U+%04X lowers to %q in Go: missing from goLowerFrom/goLowerTo", r, unicode.ToLower(r))
		}
	}
	for r, to := range lowered {
		if unicode.ToLower(r) != to {
			t.Errorf("goLowerFrom maps U+%04X to %q, Go to %q", r, to, unicode.ToLower(r))
		}
	}
}

// mediaTypeCorpus is every MIME type the system knows, the document types
// search lists, and odd spellings of them.
func mediaTypeCorpus(t *testing.T) []string {
	t.Helper()
	c := []string{"", " ", ";", "video", "video/", "Video/MP4", " video/mp4 ", "video/mp4; codecs=avc1", "VIDEO/MP4 ;x",
		"audio/mpeg", "AUDIO/x-wav", "image/jpeg", "Image/PNG;q=1", "image", "imagex/png", "text/plain", "TEXT/HTML; charset=utf-8",
		"text", "application/pdf", "Application/PDF", "application/pdf;version=1.7", "application/pdfx", "application/pdf/x",
		"application/msword", "application/rtf", "application/epub+zip", "application/vnd.ms-excel",
		"application/vnd.ms-powerpoint", "application/json", "application/xml", "application/x-subrip", "message/rfc822",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"application/vnd.openxmlformats-officedocument", "application/vnd.oasis.opendocument.text",
		"application/vnd.oasis.opendocument", "application/zip", "application/octet-stream", "inode/directory",
		"\u0130mage/png", "aud\u0130o/ogg", "appl\u0130cation/pdf", "text/\u212a", "v\u00eddeo/mp4", "vid\u00c9o/mp4",
		"\u00a0video/mp4\u3000", "video/mp4\u0085", "application/json\u2028;x", "\t\n\v\f\rIMAGE/GIF\r\n", "_ideo/mp4", "%udio/x",
		"video%", "application/pdf%", "VİDEO/MP4", "ımage/png", "I\u0307MAGE/png",
	}
	for _, r := range goSpace {
		c = append(c, string(r)+"image/png"+string(r), "application/pdf"+string(r)+";a", "x"+string(r)+"video/mp4")
	}
	if f, err := os.Open("/etc/mime.types"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 0 && !strings.HasPrefix(fields[0], "#") && strings.Contains(fields[0], "/") {
				c = append(c, fields[0], strings.ToUpper(fields[0]), fields[0]+"; charset=x")
			}
		}
	}
	// Random mixtures of the pieces that matter.
	pieces := []string{"video", "audio", "image", "text", "application", "message", "/", "pdf", "rfc822", "vnd.",
		"openxmlformats-officedocument", "oasis.opendocument", ".", ";", " ", "\t", "\u00a0", "\u0130", "\u212a", "I",
		"É", "x", "-", "+", "%", "_", "ms-excel", "json", "epub+zip", "K", "k"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range 1 + rnd.IntN(6) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		c = append(c, b.String())
	}
	return c
}

// The SQL grouping of item types agrees with search.MediaType, the
// function that gives search documents their type.
func TestMediaTypeSQLAgreesWithSearch(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	corpus := mediaTypeCorpus(t)
	var rows []struct {
		Ord  int
		Type string
	}
	if err := db.Raw(`SELECT ord, `+mediaTypeSQL("m")+` AS type FROM unnest(?::text[]) WITH ORDINALITY AS x(m, ord) ORDER BY ord`,
		models.Strings(corpus)).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(corpus) {
		t.Fatalf("%d rows for %d inputs", len(rows), len(corpus))
	}
	seen := map[string]bool{}
	for i, r := range rows {
		want := search.MediaType(corpus[i])
		seen[want] = true
		if r.Type != want {
			t.Errorf("%q: SQL %q, search.MediaType %q", corpus[i], r.Type, want)
		}
	}
	if len(seen) != len(search.MediaTypes) {
		t.Fatalf("corpus reaches only types %v", seen)
	}
}

type typeCountsBody struct {
	Types []typeCountJSON `json:"types"`
}

func TestItemTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-types", nil, nil)
	hidLoc, hidCtr := w.location("loc-types-hidden", []string{"g-types"}, nil)
	gone := time.Now()
	add := func(locID, ctrID, name, mime string, size int64, deleted *time.Time) {
		t.Helper()
		w.create(&models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name, Name: name,
			Size: size, MimeType: mime, Metadata: models.MustJSON(map[string]any{}), DeletedAt: deleted})
	}
	add(loc, ctr, "a.mp4", "video/mp4", 100, nil)
	add(loc, ctr, "b.mov", "Video/QuickTime; codecs=x", 200, nil)
	add(loc, ctr, "c.mp3", "audio/mpeg", 10, nil)
	add(loc, ctr, "d.jpg", "image/jpeg", 5, nil)
	add(loc, ctr, "e.pdf", "application/pdf", 7, nil)
	add(loc, ctr, "f.txt", "text/plain; charset=utf-8", 1, nil)
	add(loc, ctr, "g.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 3, nil)
	add(loc, ctr, "h.zip", "application/zip", 50, nil)
	add(loc, ctr, "i", "", 2, nil)
	add(loc, ctr, "gone.mp4", "video/mp4", 9999, &gone)
	add(hidLoc, hidCtr, "secret.mp4", "video/mp4", 1000, nil)
	add(hidLoc, hidCtr, "secret.png", "image/png", 4, nil)

	visible := []typeCountJSON{{"video", 2, 300}, {"audio", 1, 10}, {"image", 1, 5}, {"document", 3, 11}, {"other", 2, 52}}
	all := []typeCountJSON{{"video", 3, 1300}, {"audio", 1, 10}, {"image", 2, 9}, {"document", 3, 11}, {"other", 2, 52}}
	check := func(tok string, want []typeCountJSON) {
		t.Helper()
		var got typeCountsBody
		e.do("GET", "/api/data/v3/items/types", tok, nil).status(200).decode(&got)
		if !reflect.DeepEqual(got.Types, want) {
			t.Fatalf("types %+v\nwant  %+v", got.Types, want)
		}
	}
	check(e.adminToken, all)
	_, outsider := e.userWithScopes("types-out@example.com", "items:read")
	check(outsider, visible)
	memberID, member := e.userWithScopes("types-in@example.com", "items:read")
	w.create(&models.UserGroup{UserID: memberID, GroupID: "g-types"})
	check(member, all)

	// An empty platform lists every type with zeros.
	e2 := newEnv(t)
	var empty typeCountsBody
	e2.do("GET", "/api/data/v3/items/types", e2.adminToken, nil).status(200).decode(&empty)
	if len(empty.Types) != 5 || empty.Types[0] != (typeCountJSON{Type: "video"}) || empty.Types[4] != (typeCountJSON{Type: "other"}) {
		t.Fatalf("empty platform %+v", empty.Types)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

type duplicatesBody struct {
	Duplicates []duplicateJSON `json:"duplicates"`
	Next       string          `json:"next_page_token"`
	Prev       string          `json:"previous_page_token"`
}

// dupSummary renders a page as "hash-label:count:names" for comparison.
func dupSummary(b duplicatesBody, label map[string]string) []string {
	var out []string
	for _, d := range b.Duplicates {
		names := make([]string, 0, len(d.Items))
		for _, it := range d.Items {
			names = append(names, it.Name)
		}
		if len(names) > 3 {
			names = append(names[:2], fmt.Sprintf("...%d", len(names)))
		}
		out = append(out, fmt.Sprintf("%s:%d:%s", label[d.Hash], d.Count, strings.Join(names, ",")))
	}
	return out
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-dup", nil, nil)
	hidLoc, hidCtr := w.location("loc-dup-hidden", []string{"g-dup"}, nil)
	ctrLoc, hidCtrInLoc := w.location("loc-dup-ctr", nil, []string{"g-dup-ctr"})
	label := map[string]string{}
	for _, l := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		label[sha(l)] = l
	}
	gone := time.Now()
	var items []models.Item
	add := func(locID, ctrID, name, hash string, deleted *time.Time) {
		meta := map[string]any{"hashes": map[string]any{"md5": "x", "sha256": hash}}
		if hash == "-" {
			meta = map[string]any{"store": map[string]any{}}
		}
		items = append(items, models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name,
			Name: name, Size: int64(len(name)), MimeType: "image/jpeg", Metadata: models.MustJSON(meta), DeletedAt: deleted})
	}
	add(loc, ctr, "a2", sha("A"), nil)
	add(loc, ctr, "a1", sha("A"), nil)
	add(loc, ctr, "a3", sha("A"), nil)
	add(loc, ctr, "b1", sha("B"), nil)
	add(loc, ctr, "b2", sha("B"), nil)
	add(loc, ctr, "c1", sha("C"), nil)
	add(hidLoc, hidCtr, "c2", sha("C"), nil) // a group for members only
	add(loc, ctr, "d1", sha("D"), nil)       // alone
	add(loc, ctr, "e1", sha("E"), nil)
	add(loc, ctr, "e2", sha("E"), &gone) // its copy is deleted
	add(ctrLoc, hidCtrInLoc, "f1", sha("F"), nil)
	add(ctrLoc, hidCtrInLoc, "f2", sha("F"), nil) // container hidden, location visible
	add(loc, ctr, "none", "-", nil)
	add(loc, ctr, "empty1", "", nil)
	add(loc, ctr, "empty2", "", nil)
	for k := range 101 { // more copies than a group lists
		add(loc, ctr, fmt.Sprintf("g%03d", k), sha("G"), nil)
	}
	if err := e.db.CreateInBatches(items, 100).Error; err != nil {
		t.Fatal(err)
	}

	const path = "/api/data/v3/duplicates"
	get := func(tok, query string) duplicatesBody {
		t.Helper()
		var b duplicatesBody
		e.do("GET", path+query, tok, nil).status(200).decode(&b)
		return b
	}
	// Groups with equal counts come in hash order.
	two := []string{"B", "C", "F"}
	for i := range two {
		for j := i + 1; j < len(two); j++ {
			if sha(two[j]) < sha(two[i]) {
				two[i], two[j] = two[j], two[i]
			}
		}
	}
	names := map[string]string{"B": "b1,b2", "C": "c1,c2", "F": "f1,f2"}
	var want []string
	want = append(want, "G:101:g000,g001,...100", "A:3:a1,a2,a3")
	for _, l := range two {
		want = append(want, l+":2:"+names[l])
	}

	all := get(e.adminToken, "")
	if got := dupSummary(all, label); !reflect.DeepEqual(got, want) || all.Next != "" || all.Prev != "" {
		t.Fatalf("admin: %v next %q prev %q\nwant %v", got, all.Next, all.Prev, want)
	}
	first := all.Duplicates[1].Items[0]
	if first != (duplicateItemJSON{ItemID: models.ItemID(ctr, "a1"), Name: "a1", LocationID: loc, ContainerID: ctr, Size: 2}) {
		t.Fatalf("item %+v", first)
	}

	// Paging by tokens, both spellings, forwards and back.
	p1 := get(e.adminToken, "?limit=2")
	p2 := get(e.adminToken, "?limit=2&page-token="+p1.Next)
	p3 := get(e.adminToken, "?limit=2&page_token="+p2.Next)
	got := append(append(dupSummary(p1, label), dupSummary(p2, label)...), dupSummary(p3, label)...)
	if !reflect.DeepEqual(got, want) || p1.Prev != "" || p3.Next != "" || p3.Prev == "" {
		t.Fatalf("pages: %v (p1 prev %q, p3 next %q)\nwant %v", got, p1.Prev, p3.Next, want)
	}
	if back := get(e.adminToken, "?limit=2&page-token="+p3.Prev); !reflect.DeepEqual(back, p2) {
		t.Fatalf("previous of page 3: %+v, want page 2", back)
	}
	if past := get(e.adminToken, "?limit=2&page-token="+encodeOffset(10)); len(past.Duplicates) != 0 || past.Next != "" || past.Prev == "" {
		t.Fatalf("past the end: %+v", past)
	}

	// Outsiders group only what they see: no C (one copy hidden) and no F.
	_, outsider := e.userWithScopes("dup-out@example.com", "items:read")
	if got := dupSummary(get(outsider, ""), label); !reflect.DeepEqual(got, []string{want[0], want[1], "B:2:b1,b2"}) {
		t.Fatalf("outsider: %v", got)
	}
	memberID, member := e.userWithScopes("dup-in@example.com", "items:read")
	w.create(&models.UserGroup{UserID: memberID, GroupID: "g-dup"})
	var wantMember []string
	for _, s := range want {
		if !strings.HasPrefix(s, "F:") {
			wantMember = append(wantMember, s)
		}
	}
	if got := dupSummary(get(member, ""), label); !reflect.DeepEqual(got, wantMember) {
		t.Fatalf("member: %v\nwant %v", got, wantMember)
	}

	// Bad limits and tokens.
	// "eA" is base64 of "x"; encodeOffset(-1) a token for a negative offset.
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?page-token=%21%21", "?page-token=eA",
		"?page-token=" + encodeOffset(-1), "?page_token=not-a-token", "?offset=-1"} {
		r := e.do("GET", path+q, e.adminToken, nil)
		if r.Code != 400 || r.errCode() != "validation_failed" {
			t.Errorf("%s: %d %s", q, r.Code, r.Body)
		}
	}
}

func TestInsights(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-ins", nil, nil)
	hidLoc, hidCtr := w.location("loc-ins-hidden", []string{"g-ins"}, nil)
	ctrLoc, hidCtrInLoc := w.location("loc-ins-ctr", nil, []string{"g-ins-ctr"})
	now := time.Now().UTC()
	t1, t2, t3 := now.Add(-3*time.Hour), now.Add(-2*time.Hour), now.Add(-time.Hour)
	add := func(locID, ctrID, name, mime string, size int64, harvested, deleted *time.Time, failed ...string) {
		t.Helper()
		id := models.ItemID(ctrID, name)
		runs := map[string]models.ExtractorRun{"store": {RanAt: now}}
		for _, ex := range failed {
			runs[ex] = models.ExtractorRun{Error: ex + " failed", RanAt: now}
		}
		w.create(&models.Item{ID: id, LocationID: locID, ContainerID: ctrID, Path: name, Name: name, Size: size,
			MimeType: mime, Metadata: models.MustJSON(map[string]any{}), Results: models.MustJSON(runs),
			LastHarvested: harvested, DeletedAt: deleted})
	}
	add(loc, ctr, "a.mp4", "video/mp4", 100, &t1, nil, "exiv2", "mediainfo")
	add(loc, ctr, "b.jpg", "image/jpeg", 20, &t1, nil, "exiv2")
	add(loc, ctr, "c.pdf", "application/pdf", 5, nil, nil, "exiv2", "pdf")
	add(loc, ctr, "gone.jpg", "image/jpeg", 999, &t2, &t2, "exiv2", "tesseract") // deleted: harvest counts, errors do not
	add(hidLoc, hidCtr, "h.mp3", "audio/mpeg", 50, &t3, nil, "mediainfo", "whisper")
	add(ctrLoc, hidCtrInLoc, "k.mp3", "audio/mpeg", 7, &t3, nil, "whisper")

	jobAt := func(id, locID, ctrID string, created time.Time) models.Job {
		t.Helper()
		return w.job(id, locID, ctrID, "", created)
	}
	j1 := jobAt("ins-1", loc, ctr, now.Add(-time.Hour))
	jobAt("ins-2", loc, ctr, now.Add(-23*time.Hour))
	jobAt("ins-old", loc, ctr, now.Add(-25*time.Hour))
	jh := jobAt("ins-hidden", hidLoc, hidCtr, now.Add(-time.Hour))
	jc := jobAt("ins-ctr", ctrLoc, hidCtrInLoc, now.Add(-time.Hour))
	w.ts = now.Add(-time.Hour)
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "bad")
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "")
	w.act(j1, models.ActivityWalk, "", "", "listing failed")
	w.act(j1, models.ActivityHarvestEnd, "x", "", "1 extractor(s) failed: exiv2") // summary row, not counted
	w.act(jh, models.ActivityExtractor, "y", "whisper", "bad")
	w.act(jc, models.ActivityExtractor, "z", "whisper", "bad")
	w.ts = now.Add(-30 * time.Hour)
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "old")

	type body struct {
		TotalFiles int64                 `json:"total_files"`
		TotalSize  int64                 `json:"total_size"`
		ByType     []typeCountJSON       `json:"by_type"`
		ByLocation []locationInsightJSON `json:"by_location"`
		Harvest    harvestInsightJSON    `json:"harvest"`
		TopErrors  []extractorErrorsJSON `json:"top_extractor_errors"`
	}
	get := func(tok string) body {
		t.Helper()
		var b body
		e.do("GET", "/api/data/v3/insights", tok, nil).status(200).decode(&b)
		return b
	}
	round := func(t time.Time) time.Time { return t.Round(time.Millisecond) }

	admin := get(e.adminToken)
	wantAdmin := body{TotalFiles: 5, TotalSize: 182,
		ByType: []typeCountJSON{{"video", 1, 100}, {"audio", 2, 57}, {"image", 1, 20}, {"document", 1, 5}, {"other", 0, 0}},
		ByLocation: []locationInsightJSON{{loc, loc, 3, 125}, {hidLoc, hidLoc, 1, 50}, {ctrLoc, ctrLoc, 1, 7},
			{"uploadstore", "Upload store", 0, 0}},
		Harvest:   harvestInsightJSON{JobsLast24h: 4, ErrorsLast24h: 4, LastHarvest: round(t3)},
		TopErrors: []extractorErrorsJSON{{"exiv2", 3}, {"mediainfo", 2}, {"whisper", 2}, {"pdf", 1}},
	}
	admin.Harvest.LastHarvest = round(admin.Harvest.LastHarvest)
	if !reflect.DeepEqual(admin, wantAdmin) {
		t.Fatalf("admin insights %+v\nwant           %+v", admin, wantAdmin)
	}

	_, outsider := e.userWithScopes("ins-out@example.com", "items:read")
	out := get(outsider)
	wantOut := body{TotalFiles: 3, TotalSize: 125,
		ByType:     []typeCountJSON{{"video", 1, 100}, {"audio", 0, 0}, {"image", 1, 20}, {"document", 1, 5}, {"other", 0, 0}},
		ByLocation: []locationInsightJSON{{loc, loc, 3, 125}, {ctrLoc, ctrLoc, 0, 0}, {"uploadstore", "Upload store", 0, 0}},
		Harvest:    harvestInsightJSON{JobsLast24h: 2, ErrorsLast24h: 2, LastHarvest: round(t2)},
		TopErrors:  []extractorErrorsJSON{{"exiv2", 3}, {"mediainfo", 1}, {"pdf", 1}},
	}
	out.Harvest.LastHarvest = round(out.Harvest.LastHarvest)
	if !reflect.DeepEqual(out, wantOut) {
		t.Fatalf("outsider insights %+v\nwant              %+v", out, wantOut)
	}

	// Nothing harvested: the zero timestamp, as in the data summary.
	e2 := newEnv(t)
	r := e2.do("GET", "/api/data/v3/insights", e2.adminToken, nil).status(200).json()
	if r["harvest"].(map[string]any)["last_harvest"] != "0001-01-01T00:00:00Z" || r["total_files"] != float64(0) ||
		len(r["top_extractor_errors"].([]any)) != 0 {
		t.Fatalf("empty platform %v", r)
	}
}
