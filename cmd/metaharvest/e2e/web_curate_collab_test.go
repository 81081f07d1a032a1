package e2e

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/chromedp/chromedp"
)

// curateCollab tests the collab screens in the browser (see curateSections):
// on the video's page a time-coded comment in markdown (its marker on the
// timeline, edited, its history), a custom field set and cleared; a
// compilation of two moments of the video made from the item page (and
// moments taken from timeline markers), reordered with the keyboard's buttons and played in order.
func curateCollab(e *curateEnv) {
	t, b, c := e.t, e.b, e.c
	video := e.samples.video
	field := c.call("POST", "/api/data/v3/fields", map[string]any{"name": "Rights holder", "description": "Who licenses it",
		"data_type": "string"}, 201)["id"].(string)
	player := `document.getElementById("player")`
	seekTo := func(s float64) {
		t.Helper()
		b.eval(fmt.Sprintf(`(() => { const p = %s; p.pause(); p.currentTime = %v; return true; })()`, player, s), new(any))
		b.waitFor(fmt.Sprintf("the player at %v s", s), fmt.Sprintf(`!%[1]s.seeking && Math.abs(%[1]s.currentTime - %[2]v) < 0.05`, player, s))
	}

	// A comment at 1.2 s, with markdown and a script in it.
	b.open("/items/" + url.PathEscape(video))
	b.waitFor("the player's metadata", player+`.readyState >= 1`)
	seekTo(1.2)
	b.waitFor("the comment's time from the player", `document.getElementById("comment-at-label").textContent === "at 0:01" && document.getElementById("comment-at").checked`)
	b.run("write a comment", chromedp.SendKeys("#comment-body", "The **harbour** shot <script>window.pwned = 1</script>starts here", chromedp.ByID),
		chromedp.Click(`#comment-form button[type="submit"]`, chromedp.ByQuery))
	comment := `document.querySelector("#comments li.comment")`
	b.waitFor("the comment rendered", comment+` && `+comment+`.querySelector(".comment-body strong").textContent === "harbour"`)
	var scripts int
	b.eval(`document.querySelectorAll("#comments script").length + (window.pwned ? 100 : 0)`, &scripts)
	if scripts != 0 {
		t.Errorf("the comment's script is on the page or ran (%d)", scripts)
	}
	lane := `document.querySelector('#timeline .lane[data-lane="comments"] a.marker')`
	b.waitFor("the comment's marker on the timeline", lane+` && Math.abs(Number(`+lane+`.dataset.t) - 1.2) < 0.01`)
	list := c.call("GET", "/api/data/comments?target_type=item&target_id="+url.QueryEscape(video), nil, 200)["comments"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["time_marker"] != "00:00:01:20" {
		t.Fatalf("the api's comments: %v", list)
	}
	// The page loaded itself again after the change: open it afresh, so
	// that chromedp's clicks and keys find the nodes of this document.
	b.open("/items/" + url.PathEscape(video))
	b.waitFor("the player's metadata", player+`.readyState >= 1 && `+lane)
	b.eval(`window.mhStay = true`, new(any))
	b.eval(lane+`.click()`, new(any))
	b.waitFor("the marker seeks in place", player+`.currentTime > 1.1 && window.mhStay === true`)
	b.eval(player+`.pause()`, new(any))

	// Edit it, then its history has both versions.
	b.run("edit", chromedp.Click("#comments button.comment-edit", chromedp.ByQuery))
	b.eval(`document.querySelector("#comments .comment-edit-form textarea").value = ""`, new(any))
	b.run("new text", chromedp.SendKeys("#comments .comment-edit-form textarea", "The *harbour* shot starts here, **at dusk**", chromedp.ByQuery),
		chromedp.Click(`#comments .comment-edit-form button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the edited comment", comment+` && `+comment+`.querySelector(".comment-body em") && `+comment+`.querySelector(".comment-body strong").textContent === "at dusk"`)
	b.open("/items/" + url.PathEscape(video))
	b.run("history", chromedp.Click("#comments button.comment-history", chromedp.ByQuery))
	b.waitFor("two versions", `document.querySelectorAll("#comments .comment-versions li").length === 2 && document.querySelector("#comments .comment-versions").innerText.includes("**at dusk**")`)
	b.clean("comments")

	// The custom field: set, then cleared.
	form := fmt.Sprintf(`#field-%s`, field)
	// The api's refusal shows beside the control: a value too long.
	b.eval(`document.querySelector('`+form+` input[name="value"]').value = "x".repeat(4097)`, new(any))
	b.run("set a value too long", chromedp.Click(form+` button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the api's problem beside the field", `document.querySelector('`+form+` input[name="value"] + .problem') && document.querySelector('`+form+` input[name="value"] + .problem').textContent.includes("4096") && document.querySelector('`+form+` input[name="value"]').getAttribute("aria-invalid") === "true"`)
	c.call("GET", "/api/data/v3/fielddata/"+video+"/field/"+field, nil, 404)
	b.eval(`document.querySelector('`+form+` input[name="value"]').value = ""`, new(any))
	b.run("set the field", chromedp.SendKeys(form+` input[name="value"]`, "ACME Archive", chromedp.ByQuery),
		chromedp.Click(form+` button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the field set", `document.querySelector("`+form+` .field-state").textContent.startsWith("Set")`)
	got := c.call("GET", "/api/data/v3/fielddata/"+video+"/field/"+field, nil, 200)
	if v := got["value"].(map[string]any)["string_value"]; v != "ACME Archive" {
		t.Fatalf("the field's value: %v", got)
	}
	b.accessible("collab item page", e.axe)
	b.run("clear the field", chromedp.Click(form+` button.field-clear`, chromedp.ByQuery))
	b.waitFor("the field cleared", `document.querySelector("`+form+` .field-state").textContent.startsWith("Cleared") && document.querySelector("`+form+` input[name=value]").value === ""`)
	c.call("GET", "/api/data/v3/fielddata/"+video+"/field/"+field, nil, 404)
	b.clean("fields")

	// A compilation, made on its list.
	b.open("/compilations")
	b.run("create a compilation", chromedp.SendKeys("#new-name", "Harbour moments", chromedp.ByID),
		chromedp.Click(`#create-compilation button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the new compilation's page", `location.pathname.startsWith("/compilations/") && document.getElementById("entries-title")`)
	comp := strings.TrimPrefix(b.location(), c.base+"/compilations/")

	// Two moments of the video, in and out from the player: 3 to 4.5 s,
	// then 1 to 2 s.
	b.open("/items/" + url.PathEscape(video))
	b.waitFor("the player's metadata", player+`.readyState >= 1 && document.getElementById("add-form")`)
	b.eval(fmt.Sprintf(`document.getElementById("add-compilation").value = %q`, comp), new(any))
	b.run("a moment", chromedp.Click("#add-moment", chromedp.ByID))
	b.waitFor("the points", `!document.getElementById("moment-points").hidden`)
	for i, m := range [][2]float64{{3, 4.5}, {1, 2}} {
		seekTo(m[0])
		b.run("set in", chromedp.Click("#set-in", chromedp.ByID))
		seekTo(m[1])
		b.run("set out", chromedp.Click("#set-out", chromedp.ByID))
		b.waitFor("the points from the player", fmt.Sprintf(`Number(document.getElementById("add-in").value) === %v && Number(document.getElementById("add-out").value) === %v`, m[0], m[1]))
		b.run("add", chromedp.Click(`#add-form button[type="submit"]`, chromedp.ByQuery))
		b.waitFor(fmt.Sprintf("moment %d added", i+1), `document.getElementById("add-result").textContent.includes("added to Harbour moments")`)
		b.eval(`document.getElementById("add-result").textContent = ""`, new(any))
	}
	e.check("collab-item")
	entries := func() [][2]float64 {
		t.Helper()
		var out [][2]float64
		for _, it := range c.call("GET", "/api/data/compilations/"+comp, nil, 200)["items"].([]any) {
			m := it.(map[string]any)
			in, _ := m["in_point"].(float64)
			out2, _ := m["out_point"].(float64)
			if m["item_id"] != video {
				t.Fatalf("an entry of another item: %v", m)
			}
			out = append(out, [2]float64{in, out2})
		}
		return out
	}
	if got := entries(); fmt.Sprint(got) != "[[3 4.5] [1 2]]" {
		t.Fatalf("the compilation's moments: %v", got)
	}
	curateMomentFromTimeline(e)

	// Reorder with the keyboard's buttons: the second moment up.
	b.open("/compilations/" + comp)
	b.waitFor("two entries", `document.querySelectorAll("#entries li.entry").length === 2`)
	b.run("focus Move up", chromedp.Focus(`#entries li.entry:nth-child(2) button.move-up`, chromedp.ByQuery))
	b.run("press Enter", chromedp.KeyEvent("\r"))
	b.waitFor("the order saved", `document.getElementById("entries-status").textContent.includes("now 1 of 2")`)
	if got := entries(); fmt.Sprint(got) != "[[1 2] [3 4.5]]" {
		t.Fatalf("the order after Move up: %v", got)
	}
	b.run("Move down", chromedp.Click(`#entries li.entry:nth-child(1) button.move-down`, chromedp.ByQuery))
	b.waitFor("moved down", `document.getElementById("entries-status").textContent.includes("now 2 of 2")`)
	b.run("Move up again", chromedp.Click(`#entries li.entry:nth-child(2) button.move-up`, chromedp.ByQuery))
	b.waitFor("moved up", `document.getElementById("entries-status").textContent.includes("now 1 of 2")`)
	if got := entries(); fmt.Sprint(got) != "[[1 2] [3 4.5]]" {
		t.Fatalf("the order after down and up: %v", got)
	}
	e.check("compilation-page")

	// Drag and drop: the second entry dropped on the top half of the first.
	b.eval(`(() => {
		const [first, second] = document.querySelectorAll("#entries li.entry");
		const dt = new DataTransfer();
		const r = first.getBoundingClientRect();
		const at = {bubbles: true, cancelable: true, dataTransfer: dt, clientX: r.left + 10, clientY: r.top + 2};
		second.dispatchEvent(new DragEvent("dragstart", at));
		first.dispatchEvent(new DragEvent("dragover", at));
		first.dispatchEvent(new DragEvent("drop", at));
		second.dispatchEvent(new DragEvent("dragend", at));
		return true;
	})()`, new(any))
	b.waitFor("the dropped entry saved", `document.getElementById("entries-status").textContent.includes("00:00:03 to 00:00:04.5: now 1 of 2")`)
	if got := entries(); fmt.Sprint(got) != "[[3 4.5] [1 2]]" {
		t.Fatalf("the order after drag and drop: %v", got)
	}

	// Play: the first entry from its in point to its out point, then the
	// second from its in point.
	cp := `document.getElementById("compilation-player")`
	b.run("play the compilation", chromedp.Click("#play-all", chromedp.ByID))
	b.waitFor("the first entry playing from its in point", cp+`.dataset.entry === "0" && !`+cp+`.paused && `+cp+`.currentTime >= 2.95 && `+cp+`.currentTime < 4.6`)
	b.waitFor("the second entry playing from its in point", cp+`.dataset.entry === "1" && `+cp+`.currentTime >= 0.95`)
	var now float64
	b.eval(cp+`.currentTime`, &now)
	if math.IsNaN(now) || now > 2.3 {
		t.Errorf("the second entry played past its out point: %v", now)
	}
	b.waitFor("the end of the compilation", `document.getElementById("now-playing").textContent.includes("end")`)
	b.clean("compilation")

	// Clone it from the list, take an entry out of the copy, delete the
	// copy.
	e.page("/compilations", "collab-compilations")
	row := fmt.Sprintf(`tr[data-compilation-id=%q]`, comp)
	b.run("clone", chromedp.Click(row+` details.clone summary`, chromedp.ByQuery))
	b.eval(`document.querySelector('`+row+` input[name="new_name"]').value = ""`, new(any))
	b.run("name the copy", chromedp.SendKeys(row+` input[name="new_name"]`, "Harbour moments, short", chromedp.ByQuery),
		chromedp.Click(row+` .clone-form button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the copy's page", `location.pathname !== "/compilations" && document.querySelectorAll("#entries li.entry").length === 2 && document.querySelector("h1").textContent === "Harbour moments, short"`)
	clone := strings.TrimPrefix(b.location(), c.base+"/compilations/")
	b.open("/compilations/" + clone)
	b.run("remove the first entry", chromedp.Click(`#entries li.entry:nth-child(1) button.remove-entry`, chromedp.ByQuery))
	b.waitFor("one entry left", `document.querySelectorAll("#entries li.entry").length === 1 && document.getElementById("entries-status").textContent.includes("removed")`)
	if items := c.call("GET", "/api/data/compilations/"+clone, nil, 200)["items"].([]any); len(items) != 1 || items[0].(map[string]any)["in_point"] != 1.0 {
		t.Fatalf("the copy after the removal: %v", items)
	}
	if got := entries(); len(got) != 2 {
		t.Fatalf("removing from the copy changed the original: %v", got)
	}
	// Rename the copy and make it public.
	b.open("/compilations/" + clone)
	b.run("settings", chromedp.Click("details.settings summary", chromedp.ByQuery))
	b.eval(`document.getElementById("settings-name").value = ""`, new(any))
	b.run("rename", chromedp.SendKeys("#settings-name", "Harbour, one moment", chromedp.ByID), chromedp.Click("#settings-public", chromedp.ByID),
		chromedp.Click(`#compilation-settings button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("renamed", `document.querySelector("h1").textContent === "Harbour, one moment" && document.querySelector(".where").textContent.startsWith("Public")`)
	if got := c.call("GET", "/api/data/compilations/"+clone, nil, 200); got["name"] != "Harbour, one moment" || got["public"] != true {
		t.Fatalf("the renamed copy: %v", got)
	}
	b.open("/compilations")
	del := fmt.Sprintf(`tr[data-compilation-id=%q] button.delete-compilation`, clone)
	b.run("delete", chromedp.Click(del, chromedp.ByQuery))
	b.waitFor("asked to confirm", `document.querySelector('`+del+`').textContent.includes("Really")`)
	b.run("confirm", chromedp.Click(del, chromedp.ByQuery))
	b.waitFor("the copy gone", fmt.Sprintf(`!document.querySelector('tr[data-compilation-id=%q]') && document.getElementById("compilations-status").textContent.includes("deleted")`, clone))
	c.call("GET", "/api/data/compilations/"+clone, nil, 404)
	b.clean("clone and delete")

	// The editor reads the admin's comment but may not change it, and does
	// not find the admin's private compilation.
	v := e.editor()
	v.open("/items/" + url.PathEscape(video))
	v.waitFor("the comment", `document.querySelector("#comments .comment-body strong") && document.getElementById("comment-form")`)
	var editable int
	v.eval(`document.querySelectorAll("#comments .comment-edit, #comments .comment-delete").length`, &editable)
	if editable != 0 {
		t.Error("the editor may edit the admin's comment")
	}
	if code := v.status("/compilations/" + comp); code != 404 {
		t.Errorf("the admin's private compilation for the editor: %d", code)
	}
	v.clean("the editor")
}

// curateMomentFromTimeline adds moments to a compilation from the video's
// timeline: Enter on a caption's marker sets in and out to its cue (and
// seeks there), a shot's click to the shot (until the next one), the
// comment's marker (a single time) sets in only; the api has the points.
func curateMomentFromTimeline(e *curateEnv) {
	t, b, c := e.t, e.b, e.c
	comp := c.call("POST", "/api/data/compilations", map[string]any{"name": "From the timeline", "public": false}, 201)["compilation_id"].(string)
	defer c.call("DELETE", "/api/data/compilations/"+comp, nil, 200)
	player := `document.getElementById("player")`
	b.open("/items/" + url.PathEscape(e.samples.video))
	caption := fmt.Sprintf(`Array.from(document.querySelectorAll('#timeline .lane[data-lane="captions"] a.marker')).find(a => a.textContent.includes(%q))`, captionWord)
	b.waitFor("the player and the caption's marker", player+`.readyState >= 1 && `+caption)
	b.eval(fmt.Sprintf(`document.getElementById("add-compilation").value = %q`, comp), new(any))
	points := func(in, out string) string {
		return fmt.Sprintf(`document.getElementById("add-moment").checked && !document.getElementById("moment-points").hidden && document.getElementById("add-in").value === %q && document.getElementById("add-out").value === %q`, in, out)
	}
	// The keyboard: Enter on the caption's marker (2.5 to 3.5 s).
	b.eval(caption+`.focus()`, new(any))
	b.run("Enter on the caption's marker", chromedp.KeyEvent("\r"))
	b.waitFor("in and out from the caption", points("2.5", "3.5")+` && document.getElementById("marker-moment").textContent.includes("In and out set from the caption 0:02–0:03")`)
	b.waitFor("the caption's marker seeks", `Math.abs(`+player+`.currentTime - 2.5) < 0.6`)
	b.waitFor("the note announced", `document.getElementById("announce") && document.getElementById("announce").textContent.includes("the caption")`)
	b.eval(player+`.pause()`, new(any))
	e.check("collab-timeline-moment")
	b.run("add the caption's moment", chromedp.Click(`#add-form button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the caption's moment added", `document.getElementById("add-result").textContent.includes("The moment was added to From the timeline")`)

	// A shot (not the last): from its key frame to the next one.
	shots := `Array.from(document.querySelectorAll('#timeline .lane[data-lane="shots"] a.marker'))`
	var span [2]float64
	b.eval(`(() => { const s = `+shots+`; return s.length >= 2 ? [Number(s[0].dataset.t), Number(s[1].dataset.t)] : [-1, -1]; })()`, &span)
	if span[0] < 0 {
		t.Fatalf("the video has fewer than two shots")
	}
	b.eval(shots+`[0].click()`, new(any))
	b.waitFor("in and out from the shot", points(fmt.Sprint(span[0]), fmt.Sprint(span[1]))+` && document.getElementById("marker-moment").textContent.includes("from the shot")`)
	b.eval(player+`.pause()`, new(any))
	b.run("add the shot", chromedp.Click(`#add-form button[type="submit"]`, chromedp.ByQuery))
	b.waitFor("the shot added", `document.getElementById("add-result").textContent.includes("The moment was added")`)

	// The comment's marker is one time (1.2 s): in only; an out point
	// before it is cleared, one after it stays.
	b.eval(`document.getElementById("add-out").value = "1"`, new(any))
	b.eval(`document.querySelector('#timeline .lane[data-lane="comments"] a.marker').click()`, new(any))
	b.waitFor("in only from the comment", points("1.2", "")+` && document.getElementById("marker-moment").textContent.includes("In set from the comment at 0:01")`)
	b.eval(`document.getElementById("add-out").value = "5"`, new(any))
	b.eval(`document.querySelector('#timeline .lane[data-lane="comments"] a.marker').click()`, new(any))
	b.waitFor("the out point after it kept", points("1.2", "5"))
	b.eval(player+`.pause()`, new(any))
	b.clean("moments from the timeline")

	var got [][2]float64
	for _, it := range c.call("GET", "/api/data/compilations/"+comp, nil, 200)["items"].([]any) {
		m := it.(map[string]any)
		in, _ := m["in_point"].(float64)
		out, _ := m["out_point"].(float64)
		got = append(got, [2]float64{in, out})
	}
	if want := fmt.Sprint([][2]float64{{2.5, 3.5}, span}); fmt.Sprint(got) != want {
		t.Fatalf("the moments from the timeline: %v, want %v", got, want)
	}
}
