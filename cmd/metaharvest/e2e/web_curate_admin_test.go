package e2e

import (
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// curateAdmin tests the admin screens in the browser (see curateSections):
// the administrator creates a user (a bad email first), edits it, makes a
// group, a role and an API key (its secret shown once), and disables an
// extractor; the editor, who may not administer, sees none of it and the
// api refuses what the pages would send.
func curateAdmin(e *curateEnv) {
	b, c := e.b, e.c

	b.open("/admin")
	b.waitFor("the platform summary", `document.querySelector('#platform dl.summary') && document.getElementById('platform').getAttribute('aria-busy') === 'false'`)
	if text := b.text(); !strings.Contains(text, "Last harvest") || !strings.Contains(text, "Password length") || !strings.Contains(text, "every hour") || strings.Contains(text, "<KEY>") {
		e.t.Errorf("the overview: %.2000s", text)
	}
	e.check("admin-overview")

	// Users: a bad email shows beside the field and creates nothing.
	b.open("/admin/users")
	b.run("fill the new user",
		chromedp.SendKeys(`#un-email`, "not-an-email", chromedp.ByQuery),
		chromedp.SendKeys(`#un-first`, "Nova", chromedp.ByQuery),
		chromedp.SendKeys(`#un-last`, "Newbie", chromedp.ByQuery),
		chromedp.SendKeys(`#un-password`, "newbie-password-1", chromedp.ByQuery),
		chromedp.Click(`#user-new button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the email's problem", `document.querySelector('#un-email[aria-invalid="true"] + .problem')`)
	if n := len(adminFindUsers(c, "not-an-email")); n != 0 {
		e.t.Errorf("a user with a bad email was created")
	}
	var cleared bool
	b.eval(`(() => { const el = document.getElementById('un-email'); el.value = ''; return true; })()`, &cleared)
	b.run("fix the email",
		chromedp.SendKeys(`#un-email`, "newbie@example.com", chromedp.ByQuery),
		chromedp.Click(`#user-new button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the new user", `document.querySelector('tr[data-email="newbie@example.com"]') && document.getElementById('admin-flash').textContent.includes('newbie@example.com')`)
	found := adminFindUsers(c, "newbie@example.com")
	if len(found) != 1 || found[0]["first_name"] != "Nova" || found[0]["role_id"] != "default-user" {
		e.t.Fatalf("the created user: %v", found)
	}
	newbie := found[0]["id"].(string)
	// Edit: disable the account and put it in the archive's group.
	archive := adminGroupID(c, "Archive readers")
	b.run("edit the user",
		chromedp.Click(`tr[data-email="newbie@example.com"] button[data-edit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#user-edit-form`, chromedp.ByQuery),
		chromedp.Click(`#ue-enabled`, chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`#user-edit-form input[name=group][value="%s"]`, archive), chromedp.ByQuery))
	e.check("admin-users")
	b.run("save the user", chromedp.Click(`#user-edit-form button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the saved user", `document.getElementById('admin-flash').textContent.includes('Saved the user')`)
	if u := c.call("GET", "/api/data/users/"+newbie, nil, 200); u["enabled"] != false {
		e.t.Errorf("the user is still enabled: %v", u)
	}
	if g := fmt.Sprint(c.call("GET", "/api/data/v3/users/"+newbie+"/groups", nil, 200)["groups"]); !strings.Contains(g, archive) {
		e.t.Errorf("the user's groups: %s", g)
	}

	// Delete the user again (press twice).
	gone := `tr[data-email="newbie@example.com"] button[data-delete]`
	b.run("delete the user", chromedp.Click(gone, chromedp.ByQuery))
	b.waitFor("the confirmation", `document.querySelector('`+gone+`').textContent.startsWith('Confirm')`)
	b.run("confirm", chromedp.Click(gone, chromedp.ByQuery))
	b.waitFor("the user gone", `document.getElementById('admin-flash').textContent.includes('Deleted') && !document.querySelector('tr[data-email="newbie@example.com"]')`)
	if len(adminFindUsers(c, "newbie@example.com")) != 0 {
		e.t.Errorf("the deleted user is in the api")
	}

	// Groups.
	b.open("/admin/groups")
	b.run("create a group",
		chromedp.SendKeys(`#gn-name`, "Night shift", chromedp.ByQuery),
		chromedp.SendKeys(`#gn-description`, "Who harvests at night", chromedp.ByQuery),
		chromedp.Click(`#group-new button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the new group", `[...document.querySelectorAll('#groups tr[data-name]')].some(r => r.dataset.name === 'Night shift')`)
	if adminGroupID(c, "Night shift") == "" {
		e.t.Errorf("the group is not in the api")
	}
	e.check("admin-groups")
	b.run("describe the group anew",
		chromedp.Click(`tr[data-name="Night shift"] button[data-edit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#group-edit-form`, chromedp.ByQuery))
	b.eval(`(() => { document.getElementById('ge-description').value = ''; return true; })()`, &cleared)
	b.run("save the group",
		chromedp.SendKeys(`#ge-description`, "Who harvests after dark", chromedp.ByQuery),
		chromedp.Click(`#group-edit-form button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the saved group", `document.getElementById('admin-flash').textContent.includes('Saved the group') &&
		document.querySelector('tr[data-name="Night shift"]').dataset.description === 'Who harvests after dark'`)
	// Delete asks once more on the button itself, then deletes.
	night := `tr[data-name="Night shift"] button[data-delete]`
	b.run("delete the group", chromedp.Click(night, chromedp.ByQuery))
	b.waitFor("the confirmation", `document.querySelector('`+night+`').textContent.startsWith('Confirm')`)
	b.run("confirm", chromedp.Click(night, chromedp.ByQuery))
	b.waitFor("the group gone", `document.getElementById('admin-flash').textContent.includes('Deleted') && !document.querySelector('tr[data-name="Night shift"]')`)
	if adminGroupID(c, "Night shift") != "" {
		e.t.Errorf("the deleted group is in the api")
	}

	// Roles: the scope checkboxes come from the api's catalogue.
	b.open("/admin/roles")
	b.waitFor("the scope checkboxes", `document.getElementById('rn-search-read')`)
	b.run("create a role",
		chromedp.SendKeys(`#rn-name`, "Archivists", chromedp.ByQuery),
		chromedp.Click(`#rn-search-read`, chromedp.ByQuery),
		chromedp.Click(`#rn-items-read`, chromedp.ByQuery),
		chromedp.Click(`#role-new button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the new role", `[...document.querySelectorAll('#roles tr[data-name]')].some(r => r.dataset.name === 'Archivists')`)
	var roleID string
	for _, r := range c.call("GET", "/api/data/roles", nil, 200)["roles"].([]any) {
		if m := r.(map[string]any); m["name"] == "Archivists" {
			roleID = m["id"].(string)
		}
	}
	if roleID == "" {
		e.t.Fatal("the role is not in the api")
	}
	if s := fmt.Sprint(c.call("GET", "/api/data/roles/"+roleID, nil, 200)["scopes"]); s != "[items:read search:read]" {
		e.t.Errorf("the role's scopes: %s", s)
	}
	e.check("admin-roles")
	// Its scopes change: one more, one less.
	b.run("edit the role's scopes",
		chromedp.Click(`tr[data-name="Archivists"] button[data-edit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#role-edit-form`, chromedp.ByQuery),
		chromedp.Click(`#re-segments-read`, chromedp.ByQuery),
		chromedp.Click(`#re-items-read`, chromedp.ByQuery),
		chromedp.Click(`#role-edit-form button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the saved role", `document.getElementById('admin-flash').textContent.includes('Saved the scopes')`)
	if s := fmt.Sprint(c.call("GET", "/api/data/roles/"+roleID, nil, 200)["scopes"]); s != "[search:read segments:read]" {
		e.t.Errorf("the role's scopes after the edit: %s", s)
	}

	// API keys: the secret shows once; it works; a reload shows it no more.
	b.open("/admin/keys")
	b.run("create a key",
		chromedp.SendKeys(`#kn-name`, "Nightly export", chromedp.ByQuery),
		chromedp.Click(`#key-new button[type=submit]`, chromedp.ByQuery))
	b.waitFor("the key's secret", `!document.getElementById('key-secret').hidden && document.getElementById('key-secret-value').value.length > 20`)
	var secret string
	b.eval(`document.getElementById('key-secret-value').value`, &secret)
	e.check("admin-keys")
	keyClient := &client{t: e.t, base: c.base, token: secret}
	keys := fmt.Sprint(keyClient.call("GET", "/api/data/api-keys", nil, 200))
	if !strings.Contains(keys, "Nightly export") {
		e.t.Errorf("the new key's own listing: %s", keys)
	}
	b.open("/admin/keys")
	b.waitFor("the key listed", `document.querySelector('#keys tbody th') && document.body.innerText.includes('Nightly export')`)
	var html string
	b.eval(`document.documentElement.outerHTML`, &html)
	if strings.Contains(html, secret) || strings.Contains(html, secret[len(secret)-16:]) {
		e.t.Errorf("the key's secret is in the page after a reload")
	}
	// Deactivated, the key no longer opens the api.
	b.run("deactivate the key", chromedp.Click(`#keys tbody tr[data-active="true"] button[data-key-toggle]`, chromedp.ByQuery))
	b.waitFor("the deactivated key", `document.querySelector('#keys tbody tr[data-active="false"] .state')`)
	keyClient.call("GET", "/api/data/api-keys", nil, 401)

	// Extractors: disable one that is enabled, check it through the api,
	// and enable it again for what runs after.
	b.open("/admin/extractors")
	var name string
	b.eval(`(document.querySelector('tr[data-enabled="true"] button[data-extractor-toggle]') || {closest: () => ({dataset: {}})}).closest('tr').dataset.name || ''`, &name)
	if name == "" {
		e.t.Fatal("no enabled extractor to disable")
	}
	sel := fmt.Sprintf(`tr[data-name="%s"]`, name)
	b.run("disable "+name, chromedp.Click(sel+` button[data-extractor-toggle]`, chromedp.ByQuery))
	b.waitFor("the disabled extractor", `document.querySelector('`+sel+`').dataset.enabled === 'false'`)
	if on := adminExtractorOn(c, name); on {
		e.t.Errorf("%s is still enabled in the api", name)
	}
	e.check("admin-extractors")
	c.call("PUT", "/api/data/extractors/"+name, map[string]any{"enabled": true}, 200)
	b.clean("admin screens")

	// The editor may not administer: no link, 403 pages, 403 from the api.
	v := e.editor()
	v.open("/")
	var links int
	v.eval(`document.querySelectorAll('header a[href="/admin"]').length`, &links)
	if links != 0 {
		e.t.Errorf("the editor's header links to /admin")
	}
	for _, path := range []string{"/admin", "/admin/users", "/admin/keys"} {
		if code := v.status(path); code != 403 {
			e.t.Errorf("the editor opens %s: %d", path, code)
		}
	}
	v.open("/admin/users")
	if text := v.text(); !strings.Contains(text, "Not allowed") || strings.Contains(text, "newbie@example.com") {
		e.t.Errorf("the editor's /admin/users: %.1000s", text)
	}
	var code int
	v.run("post a user as the editor", chromedp.Evaluate(`fetch('/api/data/users', {method: 'POST', credentials: 'same-origin',
		headers: {'Content-Type': 'application/json', 'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]').content},
		body: JSON.stringify({email: 'sneaky@example.com', password: 'sneaky-password-1'})}).then(r => r.status)`, &code,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if code != 403 {
		e.t.Errorf("the editor's POST /api/data/users: %d", code)
	}
	if len(adminFindUsers(c, "sneaky@example.com")) != 0 {
		e.t.Errorf("the editor created a user")
	}
	v.clean("the editor on the admin screens")
}

// adminFindUsers lists the users with this email through the api.
func adminFindUsers(c *client, email string) []map[string]any {
	var out []map[string]any
	for _, u := range c.call("GET", "/api/data/users", nil, 200)["users"].([]any) {
		if m := u.(map[string]any); m["email"] == email {
			out = append(out, m)
		}
	}
	return out
}

// adminGroupID is the id of the group of that name ("" when there is none).
func adminGroupID(c *client, name string) string {
	for _, g := range c.call("GET", "/api/data/v3/groups", nil, 200)["groups"].([]any) {
		if m := g.(map[string]any); m["name"] == name {
			return m["id"].(string)
		}
	}
	return ""
}

func adminExtractorOn(c *client, name string) bool {
	for _, x := range c.call("GET", "/api/data/extractors", nil, 200)["extractors"].([]any) {
		if m := x.(map[string]any); m["name"] == name {
			return m["enabled"] == true
		}
	}
	c.t.Fatalf("no extractor %s in the api", name)
	return false
}
