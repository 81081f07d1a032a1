package e2e

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people/peopletest"
)

// curatePeople tests people across the archive in the browser (see
// curateSections): the sample video gets two described faces as a
// harvest of vendor_faces stores them, the worker's assigner makes them
// two people; a person named on the People page is found by that name
// in search, and the name is on the video's Faces lane.
func curatePeople(e *curateEnv) {
	t, b, c := e.t, e.b, e.c
	video := e.samples.video
	faces := peopletest.NewFaces(7, 2)
	var rows store.FaceRows
	for i, f := range []struct {
		local string
		at    float64
	}{{"reel-grace", 1}, {"reel-alan", 1}} {
		rows.Item, rows.Extractor, rows.PersonID = append(rows.Item, video), append(rows.Extractor, "vendor_faces"), append(rows.PersonID, f.local)
		rows.Thumbnail, rows.Model, rows.Face = append(rows.Thumbnail, ""), append(rows.Model, "test"), append(rows.Face, int32(i))
		rows.TimeMS, rows.Descriptor = append(rows.TimeMS, int64(f.at*1000)), append(rows.Descriptor, faces.Face(i))
		rows.Left, rows.Top, rows.Width, rows.Height = append(rows.Left, float32(40*i)), append(rows.Top, 10), append(rows.Width, 30), append(rows.Height, 30)
	}
	err := e.p.db.Transaction(func(tx *store.DB) error {
		if err := tx.Exec(`UPDATE items SET metadata = metadata || '{"vendor_faces": {"count": 2, "faces": [
			{"time": 1, "person_id": "reel-grace", "left": 0, "top": 10, "width": 30, "height": 30},
			{"time": 1, "person_id": "reel-alan", "left": 40, "top": 10, "width": 30, "height": 30}]}}' WHERE id = ?`, video).Error; err != nil {
			return err
		}
		return store.InsertFaceDescriptors(tx, rows, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var n int64
		e.p.db.Raw(`SELECT count(*) FROM person_faces WHERE item_id = ? AND person_id IS NOT NULL`, video).Scan(&n)
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker's assigner gave %d of the video's 2 faces a person", n)
		}
		time.Sleep(100 * time.Millisecond)
	}

	b.open("/people")
	card := `document.querySelector(".person-card .name-form")`
	b.waitFor("an unnamed person ready to name", card)
	b.accessible("the People page", e.axe)
	var id string
	b.eval(card+`.closest(".person-card").dataset.personId`, &id)
	b.run("name the person", chromedp.SendKeys(`#name-`+id, "Grace Hopper", chromedp.ByID),
		chromedp.Click(`[data-person-id="`+id+`"] .name-form button`, chromedp.ByQuery))
	b.waitFor("the name on the card", `document.querySelector('[data-person-id="`+id+`"] .person-name').textContent === "Grace Hopper"`)
	if p := c.call("GET", "/api/data/people/"+id, nil, 200)["person"].(map[string]any); p["name"] != "Grace Hopper" || p["is_known"] != true {
		t.Fatalf("the api's person after naming: %v", p)
	}

	// Search finds the video by her name once the indexer has it.
	deadline = time.Now().Add(30 * time.Second)
	for {
		r := c.call("POST", "/api/data/search", map[string]any{"query": "Hopper"}, 200)
		if r["total_hits"].(float64) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search for the new name: %v", r["total_hits"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.open("/?q=Hopper")
	b.waitFor("the video in the results", `document.body.textContent.includes("reel.mp4")`)
	if !strings.Contains(b.text(), "People") {
		t.Errorf("the search page has no People facet")
	}

	b.open("/items/" + url.PathEscape(video))
	lane := `[...document.querySelectorAll('#timeline .lane[data-lane="faces"] .marker-label')].map(l => l.textContent)`
	b.waitFor("the name on the Faces lane", lane+`.includes("Grace Hopper")`)
	var labels []string
	b.eval(lane, &labels)
	if !strings.Contains(fmt.Sprint(labels), "Unnamed person") {
		t.Errorf("the Faces lane: %v", labels)
	}
	b.open("/people/" + url.PathEscape(id))
	b.waitFor("the person's page", `document.getElementById("page-title").textContent === "Grace Hopper"`)
	b.accessible("a person's page", e.axe)

	// Teach a person from a picture on the People page: their page lists
	// the picture; removing it there removes it, and with it the person,
	// who has no face in the archive.
	picture, err := filepath.Abs(filepath.Join("..", "..", "..", "extractors", "faces", "testdata", "facematch-man-1.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	b.open("/people")
	b.run("open the teach form", chromedp.Click(`details.teach-person summary`, chromedp.ByQuery))
	b.run("teach a person", chromedp.SendKeys(`#teach-name`, "Ada Lindqvist", chromedp.ByID),
		chromedp.SetUploadFiles(`#teach-pictures`, []string{picture}, chromedp.ByID),
		chromedp.Click(`#teach-form button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the taught person's page with the picture", `document.getElementById("page-title")?.textContent === "Ada Lindqvist" && document.querySelector("li[data-reference-id]") !== null`)
	b.accessible("a taught person's page", e.axe)
	taught, err := url.PathUnescape(path.Base(b.location()))
	if err != nil {
		t.Fatal(err)
	}
	if refs := c.call("GET", "/api/data/people/"+taught+"/references", nil, 200)["references"].([]any); len(refs) != 1 {
		t.Fatalf("the api's references of the taught person: %v", refs)
	}
	b.run("remove the reference picture", chromedp.Click(`li[data-reference-id] .delete-reference`, chromedp.ByQuery))
	b.waitFor("the picture gone from the page", `document.querySelector("li[data-reference-id]") === null`)
	c.call("GET", "/api/data/people/"+taught, nil, 404)
}
