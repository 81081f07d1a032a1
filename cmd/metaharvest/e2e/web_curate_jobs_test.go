package e2e

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/metaharvest/metaharvest/internal/queue"
)

// curateJobs tests the jobs screens in the browser (see curateSections):
// a harvest started from the form (first refused with the api's problem
// beside the container), its progress bar reaching done on /jobs without a
// reload, the job's page with its items; the queue dashboard opened with
// the web session; the editor (no harvest:run) has no form and the api
// refuses their start and cancel.
func curateJobs(e *curateEnv) {
	t, b := e.t, e.b
	b.open("/jobs")
	b.waitFor("the start form", `document.getElementById("start-harvest") && document.querySelector("#start-location option[value='`+e.samples.archive+`']")`)
	b.eval(`window.mhStay = true`, nil)

	// The archive's one container is chosen with its location; without a
	// container the api's problem shows beside the field.
	pick := fmt.Sprintf(`(() => { const s = document.getElementById("start-location"); s.value = %q;
		s.dispatchEvent(new Event("change", {bubbles: true})); return document.getElementById("start-container").value; })()`, e.samples.archive)
	var ctr string
	b.eval(pick, &ctr)
	if ctr == "" {
		t.Fatal("choosing the archive chose no container")
	}
	b.run("no container", chromedp.SetValue(`#start-container`, "", chromedp.ByQuery),
		chromedp.Click(`#start-harvest button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the container's problem beside it", `document.querySelector('#start-container[aria-invalid="true"] + p.problem') &&
		document.querySelector('#start-container + p.problem').textContent.includes("container_id")`)
	e.check("jobs-start-problem")
	before := len(e.c.call("GET", "/api/control/harvest?state=all&limit=500", nil, 200)["jobs"].([]any))

	// Two cheap extractors, forced, priority 2.
	b.eval(`window.mhRows = [...document.querySelectorAll("#job-rows tr")].map(tr => tr.dataset.job), true`, nil)
	b.run("fill the form",
		chromedp.SetValue(`#start-container`, ctr, chromedp.ByQuery),
		chromedp.Click(`input[name=what][value=extractors]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#start-extractors`, chromedp.ByQuery),
		chromedp.Click(`input[name=extractor][value=hashes]`, chromedp.ByQuery),
		chromedp.Click(`input[name=extractor][value=text]`, chromedp.ByQuery),
		chromedp.Click(`input[name=force]`, chromedp.ByQuery),
		chromedp.Click(`input[name=ignore_recently_walked]`, chromedp.ByQuery),
		chromedp.SetValue(`#start-priority`, "2", chromedp.ByQuery),
		chromedp.Click(`#start-harvest button[type=submit]`, chromedp.ByQuery))
	newRow := `[...document.querySelectorAll("#job-rows tr")].find(tr => tr.dataset.job && !window.mhRows.includes(tr.dataset.job))`
	b.waitFor("the new job's row", newRow+` && !document.querySelector('#start-harvest [role=alert]') &&
		document.getElementById("start-status").textContent.includes("started")`)
	var id string
	b.eval(newRow+`.dataset.job`, &id)
	row := fmt.Sprintf(`document.querySelector('tr[data-job=%q]')`, id)
	b.waitFor("the job's progress bar at done", row+`.dataset.state === "done" && `+row+`.querySelector("progress").max > 0 &&
		`+row+`.querySelector("progress").value === `+row+`.querySelector("progress").max && document.getElementById("announce").textContent.includes("finished")`)
	var stayed bool
	b.eval(`window.mhStay === true`, &stayed)
	if !stayed {
		t.Fatal("the jobs page reloaded while the job ran")
	}
	var shown struct{ Harvested, Priority string }
	b.eval(`({Harvested: `+row+`.querySelector(".c-harvested").textContent, Priority: `+row+`.querySelector(".job-priority").textContent})`, &shown)
	st := e.c.call("GET", "/api/control/harvest/"+id, nil, 200)
	counts := st["counts"].(map[string]any)
	exs := fmt.Sprint(st["extractors"])
	if st["state"] != "done" || st["priority"].(float64) != 2 || counts["harvested"].(float64) != archiveFiles ||
		!strings.Contains(exs, "hashes") || !strings.Contains(exs, "text") || strings.Contains(exs, "mediainfo") {
		t.Fatalf("the job started from the form: %v", st)
	}
	if shown.Harvested != strconv.Itoa(archiveFiles) || shown.Priority != "2" {
		t.Fatalf("the row shows %+v, the api %v", shown, counts)
	}
	if after := len(e.c.call("GET", "/api/control/harvest?state=all&limit=500", nil, 200)["jobs"].([]any)); after != before+1 {
		t.Fatalf("%d jobs, were %d: the refused form started one?", after, before)
	}
	b.clean("start a harvest")
	e.check("jobs-list")

	// The job's page: its items, each a link to its page.
	b.run("open the job", chromedp.Click(fmt.Sprintf(`tr[data-job=%q] a.job-link`, id), chromedp.ByQuery))
	b.waitFor("the job page", `location.pathname === "/jobs/`+id+`" && document.readyState === "complete" && document.querySelector(".itemlist")`)
	var items []string
	b.eval(`[...document.querySelectorAll(".itemlist a")].map(a => a.textContent)`, &items)
	slices.Sort(items)
	if want := []string{hostileName, "clock.eml", "docs.zip", "exif.jpg", "leagues.pdf", "notes.txt", "pluck.wav", "reel.mp4"}; !slices.Equal(items, want) {
		t.Fatalf("the job's items: %q, want %q", items, want)
	}
	var state string
	b.eval(`document.querySelector("[data-job] .job-state").textContent`, &state)
	if state != "Done" || strings.Contains(b.text(), "Cancel this job") {
		t.Fatalf("the finished job's page: state %q\n%.1500s", state, b.text())
	}
	b.clean("the job page")
	e.check("jobs-job")

	// A job started elsewhere while the list is open (its walk held back:
	// the walk queue paused from the dashboard's api) shows as new on the
	// list; cancelled from its page, its state turns to cancelled there and
	// in the api.
	b.open("/jobs")
	walk := e.walkQueue()
	e.dashboardCall("POST", "/queues/"+walk+":pause")
	paused := true
	resume := func() {
		if paused {
			paused = false
			e.dashboardCall("POST", "/queues/"+walk+":resume")
		}
	}
	defer resume()
	held := e.c.call("POST", "/api/control/harvest", map[string]any{"location_id": e.samples.archive, "container_id": ctr,
		"extractors": []string{"hashes"}, "force": true, "ignore_recently_walked": true, "priority": 9}, 202)["request_id"].(string)
	b.waitFor("the list tells of the new job", `!document.getElementById("jobs-new").hidden`)
	b.run("show it", chromedp.Click(`#jobs-new a`, chromedp.ByQuery))
	b.waitFor("its row", fmt.Sprintf(`document.readyState === "complete" && document.querySelector('tr[data-job=%q] a.job-link')`, held))
	b.run("open it", chromedp.Click(fmt.Sprintf(`tr[data-job=%q] a.job-link`, held), chromedp.ByQuery))
	b.waitFor("its page", `location.pathname === "/jobs/`+held+`" && document.readyState === "complete" && document.getElementById("cancel-job")`)
	var queued string
	b.eval(`document.querySelector("[data-job] .job-state").textContent`, &queued)
	if queued != "Queued" {
		t.Fatalf("the held job's state: %q", queued)
	}
	e.check("jobs-job-queued")
	b.run("cancel", chromedp.Click(`#cancel-job`, chromedp.ByQuery))
	b.waitFor("the job cancelled", `document.querySelector("[data-job] .job-state").textContent === "Cancelled" &&
		document.getElementById("announce").textContent.includes("finished") && !document.getElementById("job-finished").hidden`)
	if st := e.c.call("GET", "/api/control/harvest/"+held, nil, 200); st["state"] != "cancelled" {
		t.Fatalf("the job cancelled from its page: %v", st)
	}
	b.clean("cancel a job")

	// Another held job's page, open while it runs: its state, progress
	// and items arrive without a reload.
	next := e.c.call("POST", "/api/control/harvest", map[string]any{"location_id": e.samples.archive, "container_id": ctr,
		"extractors": []string{"hashes"}, "force": true, "ignore_recently_walked": true}, 202)["request_id"].(string)
	b.open("/jobs/" + next)
	b.waitFor("the held job's page", `document.querySelector("[data-job] .job-state").textContent === "Queued" &&
		document.getElementById("items-count").textContent === "0"`)
	b.eval(`window.mhStay = true`, nil)
	resume()
	b.waitFor("the job done with its items", fmt.Sprintf(`document.querySelector("[data-job] .job-state").textContent === "Done" &&
		document.getElementById("items-count").textContent === "%[1]d" && document.querySelectorAll("#job-items .itemlist a").length === %[1]d &&
		document.querySelector("[data-job] progress").value === %[1]d`, archiveFiles))
	b.eval(`window.mhStay === true`, &stayed)
	if !stayed {
		t.Fatal("the job page reloaded while the job ran")
	}
	b.clean("a job page while the job runs")

	// The queue dashboard opens with the web session (no second login).
	b.run("the dashboard link", chromedp.Navigate(b.base+"/jobs"), chromedp.WaitReady(`a[href="/monitoring/"]`, chromedp.ByQuery))
	if code := b.status("/monitoring/api/queues"); code != 200 {
		t.Fatalf("the queue dashboard's api with the web session: %d", code)
	}
	b.run("open the dashboard", chromedp.Click(`a[href="/monitoring/"]`, chromedp.ByQuery))
	b.waitFor("the dashboard", `location.pathname.startsWith("/monitoring/") && document.readyState === "complete"`)
	if strings.Contains(b.location(), "/login") {
		t.Fatalf("the dashboard asked for a login: %s", b.location())
	}
	b.open("/jobs")
	b.clean("the queue dashboard")

	// The editor reads the jobs but may not start or cancel one.
	v := e.editor()
	v.open("/jobs")
	v.waitFor("the editor's jobs page", `document.querySelector("#job-rows tr[data-job='`+id+`']")`)
	var form, monitoring bool
	v.eval(`!!document.getElementById("start-harvest") || !!document.getElementById("job-row-template")`, &form)
	v.eval(`!!document.querySelector('a[href^="/monitoring"]')`, &monitoring)
	if form || monitoring {
		t.Fatalf("the editor sees the start form (%v) or the dashboard link (%v)", form, monitoring)
	}
	act := func(path string, body string) int {
		var code int
		v.run("the editor's "+path, chromedp.Evaluate(fmt.Sprintf(`import("/assets/js/api.js").then(m => m.api("POST", %q, %s)).then(() => 200, e => e.status)`, path, body),
			&code, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		return code
	}
	if code := act("/api/control/harvest", fmt.Sprintf(`{location_id: %q, container_id: %q}`, e.samples.archive, ctr)); code != 403 {
		t.Fatalf("the editor's harvest: %d", code)
	}
	if code := act("/api/control/harvest/"+id+"/cancel", "undefined"); code != 403 {
		t.Fatalf("the editor's cancel: %d", code)
	}
	v.open("/jobs/" + id)
	v.waitFor("the editor's job page", `document.querySelector(".itemlist") && !document.getElementById("cancel-job")`)
	v.clean("the editor's jobs pages")
}

// dashboardCall sends a request to the queue dashboard's api (asynqmon,
// under /monitoring/api) with the admin's token.
func (e *curateEnv) dashboardCall(method, path string) []byte {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.c.base+"/monitoring/api"+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.c.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		e.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return raw
}

// walkQueue is the name of this platform's walk queue. The dashboard
// lists every queue of the Redis, the other tests' platforms' too, so it
// is named from the platform's namespace, not looked for there.
func (e *curateEnv) walkQueue() string {
	return queue.Names{Namespace: e.p.ns}.Walk()
}
