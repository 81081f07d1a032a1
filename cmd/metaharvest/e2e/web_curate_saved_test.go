package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// curateSaved tests the saved screens in the browser (see curateSections):
// save a search, find it on /saved, rename, open and delete it; select two
// results and set a custom field on both, then filter by it; add two
// selected results to a compilation, and a moment from the moments page.
func curateSaved(e *curateEnv) {
	e.t.Helper()
	b, c, s := e.b, e.c, e.samples

	// Search a word and save the search.
	b.open("/")
	b.run("search "+textWord,
		chromedp.WaitVisible(`#q`, chromedp.ByQuery),
		chromedp.SendKeys(`#q`, textWord+"\r", chromedp.ByQuery),
	)
	b.waitFor("results for "+textWord, fmt.Sprintf(`location.search.includes(%q) && document.body.innerText.includes("notes.txt")`, textWord))
	b.run("save the search",
		chromedp.Click(`details.savesearch summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`#save-name`, chromedp.ByQuery),
		chromedp.SendKeys(`#save-name`, "Field notes", chromedp.ByQuery),
		chromedp.Click(`#save-search button[type=submit]`, chromedp.ByQuery),
	)
	b.waitFor("saved", `document.getElementById("save-status").innerText.includes("Saved as “Field notes”")`)
	list := c.call("GET", "/api/data/saved-searches", nil, 200)["saved_searches"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["params"] != "q="+textWord {
		e.t.Fatalf("saved searches after saving: %v", list)
	}
	id := list[0].(map[string]any)["saved_search_id"].(string)
	// The same name again: the api's refusal is shown beside the name.
	b.run("save it again",
		chromedp.SendKeys(`#save-name`, "Field notes", chromedp.ByQuery),
		chromedp.Click(`#save-search button[type=submit]`, chromedp.ByQuery),
	)
	b.waitFor("the name is taken", `document.querySelector('#save-search [role="alert"]').innerText.includes("Field notes") &&
		document.getElementById("save-name").getAttribute("aria-invalid") === "true"`)
	if got := c.call("GET", "/api/data/saved-searches", nil, 200)["saved_searches"].([]any); len(got) != 1 {
		e.t.Fatalf("a second search of the same name: %v", got)
	}

	// It is on /saved: rename it there.
	b.run("go to the saved searches", chromedp.Click(`header a[href="/saved"]`, chromedp.ByQuery))
	b.waitFor("the saved list", `location.pathname === "/saved" && document.body.innerText.includes("Field notes")`)
	e.check("saved-list")
	b.run("rename",
		setValue(`#name-`+id, ""),
		chromedp.SendKeys(`#name-`+id, "Pier notes", chromedp.ByQuery),
		chromedp.Click(`#rename-`+id+` button[type=submit]`, chromedp.ByQuery),
	)
	b.waitFor("renamed", `document.getElementById("saved-status").innerText.includes("Renamed to “Pier notes”") &&
		document.querySelector("#saved-`+id+` h2 a").innerText === "Pier notes"`)
	if got := c.call("GET", "/api/data/saved-searches", nil, 200)["saved_searches"].([]any); len(got) != 1 || got[0].(map[string]any)["name"] != "Pier notes" {
		e.t.Fatalf("after the rename: %v", got)
	}
	// Open it: the results page with the same words.
	b.run("open the saved search", chromedp.Click(`#saved-`+id+` h2 a`, chromedp.ByQuery))
	b.waitFor("the saved search's results", fmt.Sprintf(`location.pathname === "/" && new URLSearchParams(location.search).get("q") === %q &&
		document.getElementById("q").value === %q && document.getElementById("results-title").innerText.startsWith("1 result")`, textWord, textWord))
	// Delete it.
	b.open("/saved")
	b.run("delete", chromedp.Click(`#saved-`+id+` button.delete`, chromedp.ByQuery))
	b.waitFor("deleted", `document.getElementById("saved-status").innerText.includes("Deleted “Pier notes”") && !document.getElementById("saved-`+id+`")`)
	if got := c.call("GET", "/api/data/saved-searches", nil, 200)["saved_searches"].([]any); len(got) != 0 {
		e.t.Fatalf("after the delete: %v", got)
	}
	b.clean("saved searches")

	// Select the PDF and the text file and set a custom field on both.
	field := c.call("POST", "/api/data/v3/fields", map[string]any{"name": "Checked by", "data_type": "string"}, 201)["id"].(string)
	selectTwo := func() {
		b.open("/?sort=name")
		b.waitFor("the checkboxes", `!document.getElementById("select-ui").hidden && document.querySelectorAll("input.pick-box").length > 2`)
		b.run("select two", chromedp.Click(`#pick-`+s.pdf, chromedp.ByQuery), chromedp.Click(`#pick-`+s.txt, chromedp.ByQuery))
		b.waitFor("two selected", `!document.getElementById("selection").hidden && document.getElementById("sel-count").innerText === "2 results selected"`)
	}
	selectTwo()
	b.run("open set a field", chromedp.Click(`button[data-panel="act-field"]`, chromedp.ByQuery))
	b.waitFor("the fields", fmt.Sprintf(`!!document.querySelector('#sel-field option[value=%q]')`, field))
	b.run("choose the field and a value",
		setValue(`#sel-field`, field),
		chromedp.SendKeys(`#sel-value`, "Marta", chromedp.ByQuery),
	)
	e.check("select-toolbar")
	b.run("set the field", chromedp.Click(`#act-field button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the field is set", `document.getElementById("sel-status").innerText.includes("Set “Checked by” to “Marta” on 2 results")`)
	for _, item := range []string{s.pdf, s.txt} {
		v := c.call("GET", "/api/data/v3/fielddata/"+item+"/field/"+field, nil, 200)
		if !strings.Contains(fmt.Sprint(v), "Marta") {
			e.t.Fatalf("the field of %s: %v", item, v)
		}
	}
	// Filter by it on the search page: exactly those two.
	deadline := time.Now().Add(30 * time.Second)
	facet := fmt.Sprintf(`a[href="/?f=%s&sort=name"]`, url.QueryEscape("fields."+field+":Marta"))
	for {
		b.open("/?sort=name")
		var found bool
		b.eval(fmt.Sprintf(`!!document.querySelector(%q)`, facet), &found)
		if found {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no facet for the field after 30 s: %.2000s", b.text())
		}
		time.Sleep(300 * time.Millisecond)
	}
	b.run("filter by the field", chromedp.Click(facet, chromedp.ByQuery))
	b.waitFor("filtered", `document.getElementById("results-title").innerText.startsWith("2 results") && document.body.innerText.includes("Checked by: Marta")`)
	var shown []string
	b.eval(`[...document.querySelectorAll("input.pick-box")].map(b => b.value).sort()`, &shown)
	want := []string{s.pdf, s.txt}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	if fmt.Sprint(shown) != fmt.Sprint(want) {
		e.t.Fatalf("filtered by the field: %v, want %v", shown, want)
	}

	// Add two selected results to a compilation.
	comp := c.call("POST", "/api/data/compilations", map[string]any{"name": "Picked <b>files</b>", "public": false}, 201)["compilation_id"].(string)
	selectTwo()
	b.run("open add to a compilation", chromedp.Click(`button[data-panel="act-compilation"]`, chromedp.ByQuery))
	b.waitFor("the compilations", fmt.Sprintf(`!!document.querySelector('#sel-compilation option[value=%q]')`, comp))
	b.run("choose and add", setValue(`#sel-compilation`, comp), chromedp.Click(`#act-compilation button[type=submit]`, chromedp.ByQuery))
	b.waitFor("added", `document.getElementById("sel-status").innerText.includes("Added 2 results to “Picked <b>files</b>”")`)
	items := c.call("GET", "/api/data/compilations/"+comp, nil, 200)["items"].([]any)
	got := map[string]bool{}
	for _, it := range items {
		got[it.(map[string]any)["item_id"].(string)] = true
	}
	if len(items) != 2 || !got[s.pdf] || !got[s.txt] {
		e.t.Fatalf("the compilation's items: %v", items)
	}
	b.clean("multi-select")

	// A moment from the moments page, with its in and out points.
	b.open("/moments?q=" + captionWord)
	b.waitFor("a moment", `document.querySelectorAll("button.add-moment:not([hidden])").length > 0`)
	b.run("add the moment", chromedp.Click(`button.add-moment[data-name="reel.mp4"]`, chromedp.ByQuery))
	b.waitFor("the dialog", fmt.Sprintf(`document.getElementById("moment-dialog").open && !!document.querySelector('#moment-compilation option[value=%q]')`, comp))
	e.check("saved-moment-dialog")
	b.run("choose and add the moment", setValue(`#moment-compilation`, comp), chromedp.Click(`#moment-form button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the moment added", `!document.getElementById("moment-dialog").open && document.getElementById("moment-status").innerText.includes("Added reel.mp4")`)
	items = c.call("GET", "/api/data/compilations/"+comp, nil, 200)["items"].([]any)
	var moment map[string]any
	for _, it := range items {
		if m := it.(map[string]any); m["item_id"] == s.video {
			moment = m
		}
	}
	if len(items) != 3 || moment == nil || moment["in_point"] == nil || moment["out_point"].(float64) <= moment["in_point"].(float64) {
		e.t.Fatalf("the compilation after adding the moment: %v", items)
	}
	b.clean("moments")

	// Harvest the text file again from its search result.
	b.open("/?q=" + textWord)
	b.waitFor("the checkbox", `!document.getElementById("select-ui").hidden`)
	b.run("select and harvest", chromedp.Click(`#pick-`+s.txt, chromedp.ByQuery), chromedp.Click(`#act-harvest`, chromedp.ByQuery))
	b.waitFor("harvest started", `document.getElementById("sel-status").innerText.includes("Started 1 harvest.")`)
	jobs := c.call("GET", "/api/control/harvest?state=all", nil, 200)["jobs"].([]any)
	if len(jobs) == 0 || jobs[0].(map[string]any)["item_id"] != s.txt {
		e.t.Fatalf("the newest job is not the text file's harvest: %v", jobs)
	}
	b.clean("harvest again")
}

// setValue sets a control's value as a person's choice does: with its
// input and change events.
func setValue(selector, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.value = %q;
		el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`,
		selector, value), nil)
}
