package api

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/metaharvest/metaharvest/models"
)

func init() {
	for _, ct := range []string{"text/csv", "text/plain", "application/x-ndjson", "application/rdf+xml"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
}

func csvRows(t *testing.T, body []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, body)
	}
	return rows
}

func TestExportCompilation(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	c := e.createCompilation(e.adminToken, "Holiday\nselects", true)
	items := "/api/data/compilations/" + c.CompilationID + "/items"
	e.do("POST", items, e.adminToken, map[string]any{"item_id": e.video, "in_point": 1.5, "out_point": 3}).status(201)
	e.do("POST", items, e.adminToken, map[string]any{"item_id": e.video}).status(201)
	e.do("POST", items, e.adminToken, map[string]any{"item_id": e.pdf}).status(201)
	e.do("POST", items, e.adminToken, map[string]any{"item_id": e.secret}).status(201)
	path := "/api/data/compilations/" + c.CompilationID + "/export"

	res := e.do("GET", path, e.adminToken, nil).status(200)
	if cd := res.Head.Get("Content-Disposition"); cd != `attachment; filename=Holiday-selects.csv` {
		t.Errorf("Content-Disposition %q", cd)
	}
	rows := csvRows(t, res.Body)
	if len(rows) != 5 || rows[1][1] != "holiday_video.mp4" || rows[1][2] != "1.5" || rows[1][3] != "3" ||
		rows[2][3] != "12.5" || rows[3][2] != "" || rows[1][8] != "filesystem://Public archive/media/trips/holiday_video.mp4" {
		t.Fatalf("shot list %q", rows)
	}
	// The other user sees the public compilation without the Vault's item.
	if rows := csvRows(t, e.do("GET", path, e.other, nil).status(200).Body); len(rows) != 4 {
		t.Fatalf("the other user's shot list %q", rows)
	}

	edl := string(e.do("GET", path+"?format=edl", e.adminToken, nil).status(200).Body)
	for _, want := range []string{"TITLE: Holiday selects\n", "FCM: NON-DROP FRAME\n",
		"001  AX       V     C        00:00:01:13 00:00:03:00 01:00:00:00 01:00:01:12\n",
		"002  AX       V     C        00:00:00:00 00:00:12:13 01:00:01:12 01:00:14:00\n",
		"* FROM CLIP NAME: holiday_video.mp4\n"} {
		if !strings.Contains(edl, want) {
			t.Errorf("EDL lacks %q:\n%s", want, edl)
		}
	}
	if strings.Contains(edl, "budget.pdf") {
		t.Errorf("a document in the EDL:\n%s", edl)
	}
	var tl map[string]any
	if err := json.Unmarshal(e.do("GET", path+"?format=otio", e.adminToken, nil).status(200).Body, &tl); err != nil || tl["OTIO_SCHEMA"] != "Timeline.1" {
		t.Fatalf("otio %v %v", tl, err)
	}
	e.do("GET", path+"?format=aaf", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/compilations/nope/export", e.adminToken, nil).status(404)
	mine := e.createCompilation(e.adminToken, "Private", false)
	e.do("GET", "/api/data/compilations/"+mine.CompilationID+"/export?format=edl", e.other, nil).status(404)
}

func TestExportItem(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	res := e.do("GET", "/api/data/items/"+e.video+"/export", e.adminToken, nil).status(200)
	var it itemJSON
	if err := json.Unmarshal(res.Body, &it); err != nil || it.ID != e.video || !strings.Contains(string(it.Metadata), "12.5") {
		t.Fatalf("json export %s %v", res.Body, err)
	}
	if cd := res.Head.Get("Content-Disposition"); cd != "attachment; filename=holiday_video.mp4.json" {
		t.Errorf("Content-Disposition %q", cd)
	}
	e.do("GET", "/api/data/items/"+e.video+"/export?format=xmp", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/items/"+e.video+"/export?format=pdf", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/items/"+e.secret+"/export", e.other, nil).status(403)

	photo := models.Item{ID: "photo1", LocationID: "pub", ContainerID: models.ContainerID("pub", "media"), Path: "p/<b>quay</b>.jpg",
		Name: "<b>quay</b>.jpg", MimeType: "image/jpeg", Size: 10, Metadata: models.MustJSON(map[string]any{
			"exiv2":     map[string]any{"camera": map[string]any{"model": "NIKON D2H"}, "gps": map[string]any{"latitude": 39.9, "longitude": 116.4}},
			"geocoding": map[string]any{"city": "Beijing"}})}
	if err := e.db.Create(&photo).Error; err != nil {
		t.Fatal(err)
	}
	res = e.do("GET", "/api/data/items/photo1/export?format=xmp", e.adminToken, nil).status(200)
	xmp := string(res.Body)
	if !strings.Contains(xmp, "<tiff:Model>NIKON D2H</tiff:Model>") || !strings.Contains(xmp, "<photoshop:City>Beijing</photoshop:City>") ||
		!strings.Contains(xmp, "<exif:GPSLatitude>39,54.000000N</exif:GPSLatitude>") {
		t.Fatalf("xmp:\n%s", xmp)
	}
	if cd := res.Head.Get("Content-Disposition"); cd != "attachment; filename=bquayb.jpg.xmp" {
		t.Errorf("Content-Disposition %q", cd)
	}
}

func TestExportSearch(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	start := time.Now().Add(-time.Second)
	res := e.do("POST", "/api/data/search/export", e.adminToken, map[string]any{}).status(200)
	if ct := res.Head.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if rows := csvRows(t, res.Body); len(rows) != 4 || rows[0][0] != "_id" || rows[0][1] != "name" {
		t.Fatalf("admin's export %q", rows)
	}
	// The other user does not see the Vault: its file is not exported.
	body := string(e.do("POST", "/api/data/search/export?format=csv&fields=name,size", e.other, map[string]any{}).status(200).Body)
	if rows := csvRows(t, []byte(body)); len(rows) != 3 || strings.Join(rows[0], ",") != "name,size" || strings.Contains(body, "secret_plan") {
		t.Fatalf("the other user's export %q", body)
	}
	// GET with the request as JSON, as the search page links it; JSON lines.
	req := url.QueryEscape(`{"query":"holiday"}`)
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/api/data/search/export?format=jsonl&fields=name&request="+req, e.other, nil).status(200).Body)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"name":"holiday_video.mp4"`) {
		t.Fatalf("jsonl %q", lines)
	}
	if got := string(e.do("GET", "/api/data/search/export?max=1", e.adminToken, nil).status(200).Body); strings.Count(got, "\n") != 2 {
		t.Fatalf("max=1: %q", got)
	}
	for _, bad := range []string{"?format=xlsx", "?fields=a%20b", "?max=0", "?request=%7Bnot", "?request=" + url.QueryEscape(`{"filters":{"terms":[{"field":"no_such_field","value":"x"}]}}`)} {
		e.do("GET", "/api/data/search/export"+bad, e.adminToken, nil).status(400)
	}
	// Each export is an audit event.
	var n int64
	e.db.Model(&models.AuditEvent{}).Where("target_kind = ? AND action_key = ? AND time >= ?", "search", "export", start).Count(&n)
	if n != 4 { // the refused ones are none
		t.Errorf("%d search export audit events, want 4", n)
	}
}
