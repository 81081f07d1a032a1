package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/store"
)

// person gives the corpus's clip a named person (face at 4 s) and the
// secret file an unnamed one, as the assigner would, and returns the
// named one's id.
func (c *corpus) person() string {
	c.t.Helper()
	for _, stmt := range []string{
		`INSERT INTO persons (id, name, is_known) VALUES ('p-ann', 'Ann <b>Lee</b>', true), ('p-vault', '', false)`,
		`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, local_person, weight, time_ms, first_ms, last_ms,
		 area, thumbnail, described_at) SELECT id, 'vendor_faces', 0, container_id, 'p-ann', 'local-ann', 3, 4000, 4000, 8000, 900,
		 'ab/' || id || '/vendor_faces/faces/0000.jpg', now() FROM items WHERE path = 'trips/clip.mp4'`,
		`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, local_person, area, described_at)
		 SELECT id, 'vendor_faces', 0, container_id, 'p-vault', 'local-v', 400, now() FROM items WHERE path = 'secret_plan.txt'`,
		`UPDATE items SET metadata = metadata || '{"vendor_faces": {"faces": [{"time": 4.0, "person_id": "local-ann"}]}}' WHERE path = 'trips/clip.mp4'`,
	} {
		if err := c.db.Exec(stmt).Error; err != nil {
			c.t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Counted as the assigner counts them.
	if _, err := store.RecountPeople(c.db, []string{"p-ann", "p-vault"}); err != nil {
		c.t.Fatal(err)
	}
	return "p-ann"
}

// TestPeoplePages: the grid and a person's page show what the caller may
// see, names as text; the item page names the person on its faces lane
// and in its facts; search offers a People facet.
func TestPeoplePages(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	ann := c.person()
	c.index(c.clip, c.secret)
	viewer := c.signInAs("viewer@example.com", "people:read", "items:read", "search:read")
	grid := c.page("/people", viewer, http.StatusOK)
	if !strings.Contains(grid, "Ann &lt;b&gt;Lee&lt;/b&gt;") || strings.Contains(grid, "<b>Lee</b>") {
		t.Errorf("the name is not shown as text: %.2000s", grid)
	}
	if strings.Contains(grid, "p-vault") || !strings.Contains(grid, "3 faces in 1 item") {
		t.Errorf("the viewer's grid: %.3000s", grid)
	}
	c.page("/people/p-vault", viewer, http.StatusNotFound)
	person := c.page("/people/"+ann, viewer, http.StatusOK)
	if !strings.Contains(person, "clip.mp4") || !strings.Contains(person, "0:04") || strings.Contains(person, "reject-face") {
		t.Errorf("the person's page for a reader: %.3000s", person)
	}
	writer := c.signInAs("writer@example.com", "people:read", "people:write", "items:read")
	if p := c.page("/people/"+ann, writer, http.StatusOK); !strings.Contains(p, "reject-face") || !strings.Contains(p, "rename-form") {
		t.Errorf("the person's page for a writer has no actions")
	}
	if g := c.page("/people?show=unnamed", writer, http.StatusOK); strings.Contains(g, "p-ann") {
		t.Errorf("unnamed filter lists a named person")
	}
	item := c.page("/items/"+url.PathEscape(c.clip), viewer, http.StatusOK)
	if !strings.Contains(item, `<dt>Objects and people</dt><dd><a href="/people/`+url.PathEscape(ann)+`">Ann &lt;b&gt;Lee&lt;/b&gt;</a></dd>`) {
		t.Errorf("the item's summary does not name the person with a link to their page")
	}
	if !strings.Contains(item, `Ann &lt;b&gt;Lee&lt;/b&gt;`) || strings.Contains(item, "Person local-ann") {
		t.Errorf("the faces lane does not name the person")
	}
	search := c.page("/?q=Lee", viewer, http.StatusOK)
	if !strings.Contains(search, "People") || !strings.Contains(search, "clip.mp4") {
		t.Errorf("search for the name: %.3000s", search)
	}
}

// TestTeachPersonForms: a writer finds the "teach a person from pictures"
// form on the People page and, on a person's page, the reference pictures
// they sent with their status (and why one is not usable) and a form for
// more; a person taught from pictures only is seen by the teacher, no one
// else; a reader gets no form.
func TestTeachPersonForms(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	writer := c.signInAs("teacher@example.com", "people:read", "people:write", "items:read")
	var teacher string
	if err := c.db.Raw(`SELECT id FROM users WHERE email = 'teacher@example.com'`).Scan(&teacher).Error; err != nil || teacher == "" {
		t.Fatalf("teacher: %q %v", teacher, err)
	}
	for _, stmt := range []string{
		`INSERT INTO persons (id, name, is_known) VALUES ('p-ada', 'Ada <i>L</i>', true)`,
		`INSERT INTO person_references (person_id, picture, status, created_by) VALUES ('p-ada', 'people/p-ada/1.jpg', 'pending', '` + teacher + `')`,
		`INSERT INTO person_references (person_id, picture, status, error, created_by) VALUES ('p-ada', 'people/p-ada/2.png', 'failed',
		 'no face was found in the picture', '` + teacher + `')`,
	} {
		if err := c.db.Exec(stmt).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	grid := c.page("/people", writer, http.StatusOK)
	if !strings.Contains(grid, `id="teach-form"`) || !strings.Contains(grid, `name="pictures"`) || !strings.Contains(grid, "Ada &lt;i&gt;L&lt;/i&gt;") {
		t.Errorf("the People page of a writer: %.3000s", grid)
	}
	page := c.page("/people/p-ada", writer, http.StatusOK)
	for _, want := range []string{`id="teach-more-form"`, "Waiting to be described", "Not usable", "no face was found in the picture",
		`href="/api/data/people/p-ada/references/`, "delete-reference"} {
		if !strings.Contains(page, want) {
			t.Errorf("the taught person's page lacks %q", want)
		}
	}
	reader := c.signInAs("reader@example.com", "people:read", "items:read")
	c.page("/people/p-ada", reader, http.StatusNotFound)
	if g := c.page("/people", reader, http.StatusOK); strings.Contains(g, "teach-form") || strings.Contains(g, "p-ada") {
		t.Errorf("a reader's People page offers teaching or shows another's taught person")
	}
}
