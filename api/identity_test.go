package api

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/models"
)

func TestRolesLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken

	roles := e.do("GET", "/api/data/roles", tok, nil).status(200).json()["roles"].([]any)
	names := map[string]bool{}
	for _, r := range roles {
		names[r.(map[string]any)["name"].(string)] = true
		if _, has := r.(map[string]any)["scopes"]; has {
			t.Fatal("role list entries must not carry scopes")
		}
	}
	if !names["root"] || !names["default-user"] {
		t.Fatalf("built-in roles missing: %v", names)
	}
	root := e.do("GET", "/api/data/roles/root", tok, nil).status(200).json()
	if len(root["scopes"].([]any)) != len(allScopes()) {
		t.Fatalf("root must hold every scope, has %d", len(root["scopes"].([]any)))
	}

	created := e.do("POST", "/api/data/roles", tok, map[string]any{"name": "editors", "description": "edit", "scopes": []string{"users:read"}}).status(201).json()
	id := created["id"].(string)
	if fmt.Sprint(created["scopes"]) != "[users:read]" {
		t.Fatalf("created scopes %v", created["scopes"])
	}
	r := e.do("POST", "/api/data/roles", tok, map[string]any{"name": "EDITORS"})
	if r.Code != 409 || r.errCode() != "name_taken" {
		t.Fatalf("duplicate role name: %d %s", r.Code, r.Body)
	}
	r = e.do("POST", "/api/data/roles", tok, map[string]any{"name": "x", "scopes": []string{"bogus:scope"}})
	if r.Code != 400 || !strings.Contains(r.field("scopes"), "bogus:scope") {
		t.Fatalf("unknown scope: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/api/data/roles", tok, map[string]any{"description": "no name"}); r.Code != 400 || r.field("name") == "" {
		t.Fatalf("missing name: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/api/data/roles", tok, map[string]any{"name": 5}); r.Code != 400 || r.field("name") != "must be a string" {
		t.Fatalf("wrong type: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/api/data/roles", tok, `{"name":`); r.Code != 400 || r.errCode() != "malformed_json" {
		t.Fatalf("malformed: %d %s", r.Code, r.Body)
	}

	added := e.do("POST", "/roles/"+id, tok, map[string]any{"scopes": []string{"groups:read", "users:read"}}).status(200).json()
	if fmt.Sprint(added["scopes"]) != "[groups:read users:read]" {
		t.Fatalf("after add: %v", added["scopes"])
	}
	removed := e.do("DELETE", "/roles/"+id+"/users:read,groups:read", tok, nil).status(200).json()
	if len(removed["scopes"].([]any)) != 0 {
		t.Fatalf("after remove: %v", removed["scopes"])
	}
	if r := e.do("DELETE", "/roles/"+id+"/nope:x", tok, nil); r.Code != 400 {
		t.Fatalf("remove unknown scope: %d", r.Code)
	}
	if r := e.do("POST", "/roles/missing", tok, map[string]any{"scopes": []string{"users:read"}}); r.Code != 404 {
		t.Fatalf("add to unknown role: %d", r.Code)
	}
	e.do("DELETE", "/roles/root/users:read", tok, nil).status(409)

	// A role in use cannot be deleted.
	e.do("POST", "/api/data/users", tok, map[string]any{"email": "ed@example.com", "password": "password-123", "role_id": id}).status(201)
	users := e.do("GET", "/api/data/roles/"+id+"/users", tok, nil).status(200)
	var list []map[string]any
	users.decode(&list)
	if len(list) != 1 || list[0]["email"] != "ed@example.com" || list[0]["groups"] == nil {
		t.Fatalf("role users: %s", users.Body)
	}
	if r := e.do("DELETE", "/api/data/roles/"+id, tok, nil); r.Code != 409 || r.errCode() != "role_assigned" {
		t.Fatalf("delete assigned role: %d %s", r.Code, r.Body)
	}
	e.do("DELETE", "/api/data/roles/default-user", tok, nil).status(409)
	other := e.do("POST", "/api/data/roles", tok, map[string]any{"name": "temp"}).status(201).json()["id"].(string)
	e.do("DELETE", "/api/data/roles/"+other, tok, nil).status(200)
	e.do("GET", "/api/data/roles/"+other, tok, nil).status(404)

	groups := e.do("GET", "/api/data/roles/scopes", tok, nil).status(200)
	var sg []ScopeGroup
	groups.decode(&sg)
	n := 0
	for _, g := range sg {
		n += len(g.Scopes)
	}
	if n != len(allScopes()) {
		t.Fatalf("scope listing has %d scopes, catalogue %d", n, len(allScopes()))
	}
}

func TestUsersLifecycleAndMassAssignment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken
	managerID, manager := e.userWithScopes("manager@example.com", "users:read", "users:write", "account:write")

	u := e.do("POST", "/api/data/users", tok, map[string]any{"email": "bob@example.com", "first_name": "Bob", "last_name": "B",
		"password": "password-123", "role_id": "default-user"}).status(201).json()
	id := u["id"].(string)
	if u["enabled"] != true || u["admin"] != false {
		t.Fatalf("defaults: %v", u)
	}
	if strings.Contains(fmt.Sprint(u), "password") {
		t.Fatal("password echoed")
	}
	if r := e.do("POST", "/api/data/users", tok, map[string]any{"email": "BOB@example.com", "password": "password-123"}); r.Code != 409 {
		t.Fatalf("duplicate email: %d", r.Code)
	}
	r := e.do("POST", "/api/data/users", tok, map[string]any{"email": "not-an-email", "password": "short", "role_id": "nope"})
	if r.Code != 400 || r.field("email") == "" || r.field("password") == "" || r.field("role_id") == "" {
		t.Fatalf("validation: %d %s", r.Code, r.Body)
	}
	// A non-admin cannot make administrators.
	if r := e.do("POST", "/api/data/users", manager, map[string]any{"email": "x@example.com", "password": "password-123", "admin": true}); r.Code != 403 {
		t.Fatalf("non-admin creating admin: %d", r.Code)
	}

	got := e.do("GET", "/api/data/users/"+id, manager, nil).status(200).json()
	if got["email"] != "bob@example.com" {
		t.Fatalf("get: %v", got)
	}
	e.do("GET", "/api/data/users/nope", manager, nil).status(404)

	var matches []map[string]any
	e.do("GET", "/api/data/users?email="+url.QueryEscape("Bob@Example.com"), manager, nil).status(200).decode(&matches)
	if len(matches) != 1 || matches[0]["id"] != id {
		t.Fatalf("email lookup: %v", matches)
	}
	all := e.do("GET", "/api/data/users", manager, nil).status(200).json()["users"].([]any)
	if len(all) != 3 {
		t.Fatalf("users: %d", len(all))
	}

	// Mass assignment: a non-admin cannot grant admin or change roles, nor
	// set ids or passwords through PATCH.
	for _, body := range []map[string]any{{"admin": true}, {"role_id": "root"}} {
		if r := e.do("PATCH", "/api/data/users/"+id, manager, body); r.Code != 403 {
			t.Fatalf("non-admin PATCH %v: %d", body, r.Code)
		}
	}
	for _, field := range []string{"id", "password", "created_at"} {
		if r := e.do("PATCH", "/api/data/users/"+id, manager, map[string]any{field: "x"}); r.Code != 400 || r.field(field) == "" {
			t.Fatalf("PATCH %s: %d %s", field, r.Code, r.Body)
		}
	}
	var stored models.User
	e.db.Where("id = ?", id).Take(&stored)
	if stored.Admin || stored.RoleID != "default-user" {
		t.Fatalf("mass assignment leaked: %+v", stored)
	}
	// Nor touch an administrator.
	var admin models.User
	e.db.Where("email = ?", adminEmail).Take(&admin)
	if r := e.do("PATCH", "/api/data/users/"+admin.ID, manager, map[string]any{"last_name": "x"}); r.Code != 403 {
		t.Fatalf("non-admin editing admin: %d", r.Code)
	}

	p := e.do("PATCH", "/api/data/users/"+id, manager, map[string]any{"last_name": "Builder"}).status(200).json()
	if p["last_name"] != "Builder" || p["first_name"] != "Bob" {
		t.Fatalf("patch: %v", p)
	}
	if r := e.do("PUT", "/api/data/users/"+id, manager, map[string]any{"first_name": "x"}); r.Code != 400 || r.field("email") == "" {
		t.Fatalf("PUT without email: %d %s", r.Code, r.Body)
	}
	put := e.do("PUT", "/api/data/users/"+id, tok, map[string]any{"email": "robert@example.com", "first_name": "Robert",
		"last_name": "B", "enabled": true, "role_id": "default-user"}).status(200).json()
	if put["email"] != "robert@example.com" {
		t.Fatalf("put: %v", put)
	}
	admin2 := e.do("PATCH", "/api/data/users/"+id, tok, map[string]any{"admin": true}).status(200).json()
	if admin2["admin"] != true {
		t.Fatal("admin could not grant admin")
	}

	// Disabling a user stops their tokens and keys at once.
	bobTok := e.login("robert@example.com", "password-123")
	key := e.do("POST", "/api/data/api-keys", bobTok, map[string]any{"name": "bob"}).status(201).json()["jwt"].(string)
	e.do("GET", "/api/data/roles", key, nil).status(200)
	e.do("PATCH", "/api/data/users/"+id, tok, map[string]any{"enabled": false}).status(200)
	e.do("GET", "/api/data/roles", bobTok, nil).status(401)
	e.do("GET", "/api/data/roles", key, nil).status(401)
	if r := e.do("POST", "/api/login", "", map[string]string{"email": "robert@example.com", "password": "password-123"}); r.Code != 401 {
		t.Fatalf("disabled user login: %d", r.Code)
	}
	e.do("PUT", "/api/data/users/"+id, tok, map[string]any{"email": "robert@example.com", "role_id": "default-user", "enabled": true}).status(200)
	e.do("GET", "/api/data/roles", key, nil).status(200)

	// Own password only.
	if r := e.do("PUT", "/api/data/users/"+id+"/password", tok, map[string]any{"password": "new-password-1"}); r.Code != 403 {
		t.Fatalf("admin changing another's password: %d", r.Code)
	}
	if r := e.do("PUT", "/api/data/users/"+managerID+"/password", manager, map[string]any{"password": "short"}); r.Code != 400 {
		t.Fatalf("short password: %d", r.Code)
	}
	e.do("PUT", "/api/data/users/"+managerID+"/password", manager, map[string]any{"password": "new-password-1"}).status(200)
	e.login("manager@example.com", "new-password-1")
	if r := e.do("POST", "/api/login", "", map[string]string{"email": "manager@example.com", "password": "password-123"}); r.Code != 401 {
		t.Fatalf("old password still works: %d", r.Code)
	}
	var hash string
	e.db.Raw(`SELECT password_hash FROM users WHERE id = ?`, managerID).Scan(&hash)
	if !strings.HasPrefix(hash, "$argon2id$") || strings.Contains(hash, "new-password-1") {
		t.Fatalf("password not stored hashed: %q", hash)
	}

	e.do("DELETE", "/api/data/users/"+id, tok, nil).status(200)
	e.do("GET", "/api/data/users/"+id, tok, nil).status(404)
	e.do("GET", "/api/data/roles", key, nil).status(401)
}

func TestGroupsAndMembership(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken
	g := e.do("POST", "/api/data/v3/groups", tok, map[string]any{"name": "Editors", "description": "d"}).status(201).json()
	id := g["id"].(string)
	if id != groupID("Editors") {
		t.Fatalf("group id %q is not derived from the name", id)
	}
	if r := e.do("POST", "/api/data/v3/groups", tok, map[string]any{"name": "editors"}); r.Code != 409 {
		t.Fatalf("duplicate group: %d", r.Code)
	}
	e.do("POST", "/api/data/v3/groups", tok, map[string]any{"name": " "}).status(400)
	upd := e.do("PUT", "/api/data/v3/groups/"+id, tok, map[string]any{"name": "Cutters", "description": "new"}).status(200).json()
	if upd["name"] != "Cutters" || upd["id"] != id {
		t.Fatalf("update: %v", upd)
	}
	// A new group named like the old one gets its own id.
	again := e.do("POST", "/api/data/v3/groups", tok, map[string]any{"name": "Editors"}).status(201).json()
	if again["id"] == id {
		t.Fatal("id collision after rename")
	}
	e.do("GET", "/api/data/v3/groups/"+id, tok, nil).status(200)
	if n := len(e.do("GET", "/api/data/v3/groups", tok, nil).status(200).json()["groups"].([]any)); n != 2 {
		t.Fatalf("groups: %d", n)
	}

	uid, _ := e.userWithScopes("member@example.com")
	ok := e.do("PUT", "/api/data/v3/users/"+uid+"/groups/"+id, tok, nil).status(200).json()
	if ok["ok"] != true {
		t.Fatalf("add: %v", ok)
	}
	e.do("PUT", "/api/data/v3/users/"+uid+"/groups/"+id, tok, nil).status(200) // idempotent
	e.do("PUT", "/api/data/v3/users/"+uid+"/groups/nope", tok, nil).status(404)
	e.do("PUT", "/api/data/v3/users/nope/groups/"+id, tok, nil).status(404)
	gs := e.do("GET", "/api/data/v3/users/"+uid+"/groups", tok, nil).status(200).json()["groups"].([]any)
	if len(gs) != 1 || gs[0].(map[string]any)["name"] != "Cutters" {
		t.Fatalf("user groups: %v", gs)
	}
	e.do("DELETE", "/api/data/v3/users/"+uid+"/groups/"+id, tok, nil).status(200)
	e.do("DELETE", "/api/data/v3/users/"+uid+"/groups/"+id, tok, nil).status(404)
	e.do("DELETE", "/api/data/v3/groups/"+id, tok, nil).status(200)
	e.do("GET", "/api/data/v3/groups/"+id, tok, nil).status(404)
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	uid, tok := e.userWithScopes("keys@example.com", "apikeys:read", "apikeys:write", "roles:read")
	_, other := e.userWithScopes("other@example.com", "apikeys:read", "apikeys:write")

	k := e.do("POST", "/api/data/api-keys", tok, nil).status(201).json()
	jwt, id := k["jwt"].(string), k["id"].(string)
	if jwt == "" || k["user_id"] != uid || k["active"] != true || k["name"] == "" {
		t.Fatalf("create: %v", k)
	}
	var stored models.APIKey
	e.db.Where("id = ?", id).Take(&stored)
	if stored.TokenHash == jwt || strings.Contains(stored.TokenHash, jwt) {
		t.Fatal("key stored in plain text")
	}
	list := e.do("GET", "/api/data/api-keys", tok, nil).status(200)
	if strings.Contains(string(list.Body), jwt) || strings.Contains(string(list.Body), `"jwt"`) {
		t.Fatal("list carries the secret")
	}
	if n := len(list.json()["api-keys"].([]any)); n != 1 {
		t.Fatalf("own keys: %d", n)
	}
	if n := len(e.do("GET", "/api/data/api-keys", other, nil).status(200).json()["api-keys"].([]any)); n != 0 {
		t.Fatalf("other user sees %d keys", n)
	}
	// The key acts with its owner's permissions.
	e.do("GET", "/api/data/roles", jwt, nil).status(200)
	e.do("GET", "/api/data/users", jwt, nil).status(403)

	e.do("PATCH", "/api/data/api-keys/"+id, other, map[string]any{"active": false}).status(404)
	if r := e.do("PATCH", "/api/data/api-keys/"+id, tok, map[string]any{"active": "no"}); r.Code != 400 || r.field("active") == "" {
		t.Fatalf("wrong type: %d %s", r.Code, r.Body)
	}
	off := e.do("PATCH", "/api/data/api-keys/"+id, tok, map[string]any{"active": false, "name": "ci"}).status(200).json()
	if off["active"] != false || off["name"] != "ci" {
		t.Fatalf("patch: %v", off)
	}
	e.do("GET", "/api/data/roles", jwt, nil).status(401)
	e.do("PATCH", "/api/data/api-keys/"+id, tok, map[string]any{"active": true}).status(200)
	e.do("GET", "/api/data/roles", jwt, nil).status(200)
	e.do("DELETE", "/api/data/api-keys/"+id, tok, nil).status(200)
	e.do("GET", "/api/data/roles", jwt, nil).status(401)
	e.do("PATCH", "/api/data/api-keys/"+id, tok, map[string]any{"active": true}).status(404)

	named := e.do("POST", "/api/data/api-keys", tok, map[string]any{"name": "deploy"}).status(201).json()
	if named["name"] != "deploy" {
		t.Fatalf("named key: %v", named)
	}
}

func TestLoginRateLimitAndUniformAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.LoginMaxFailures = 3 })
	unknown := e.do("POST", "/api/login", "", map[string]string{"email": "ghost@example.com", "password": "whatever-1"})
	wrong := e.do("POST", "/api/login", "", map[string]string{"email": adminEmail, "password": "whatever-1"})
	if unknown.Code != 401 || wrong.Code != 401 || string(unknown.Body) != string(wrong.Body) {
		t.Fatalf("unknown user and wrong password differ: %d %s / %d %s", unknown.Code, unknown.Body, wrong.Code, wrong.Body)
	}
	e.do("POST", "/api/login", "", map[string]string{"email": adminEmail, "password": "whatever-2"}).status(401)
	e.do("POST", "/api/login", "", map[string]string{"email": adminEmail, "password": "whatever-3"}).status(401)
	r := e.do("POST", "/api/login", "", map[string]string{"email": adminEmail, "password": adminPassword})
	if r.Code != 429 || r.Head.Get("Retry-After") == "" {
		t.Fatalf("after 3 failures: %d, Retry-After %q", r.Code, r.Head.Get("Retry-After"))
	}
	if r := e.do("POST", "/api/login", "", map[string]string{"email": ""}); r.Code != 400 {
		t.Fatalf("empty login: %d", r.Code)
	}
}

func TestClientLimitIgnoresUntrustedForwardedFor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.LoginMaxFailures = 1 }) // 4 failures per client
	for i := 0; i < 4; i++ {
		// Different accounts, forged X-Forwarded-For: still one client.
		req := map[string]string{"email": fmt.Sprintf("u%d@example.com", i), "password": "x-password"}
		r := e.doWithHeader("POST", "/api/login", req, "X-Forwarded-For", fmt.Sprintf("10.0.0.%d", i))
		r.status(401)
	}
	r := e.doWithHeader("POST", "/api/login", map[string]string{"email": "new@example.com", "password": "x-password"}, "X-Forwarded-For", "10.9.9.9")
	if r.Code != 429 {
		t.Fatalf("client limit bypassed with X-Forwarded-For: %d", r.Code)
	}
}

func TestAuditTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken
	g := e.do("POST", "/api/data/v3/groups", tok, map[string]any{"name": "Audited"}).status(201).json()["id"].(string)
	uid, _ := e.userWithScopes("audited@example.com")
	e.do("PUT", "/api/data/v3/users/"+uid+"/groups/"+g, tok, nil).status(200)

	all := e.do("GET", "/api/data/audit?count=100", tok, nil).status(200).json()
	events := all["audit_events"].([]any)
	seen := map[string]map[string]any{}
	for _, ev := range events {
		m := ev.(map[string]any)
		seen[m["target_kind"].(string)+": "+m["action_key"].(string)] = m
	}
	for _, want := range []string{"authenticate: login", "group: create", "user: create", "role: create", "user: add-group"} {
		if seen[want] == nil {
			t.Errorf("no %q audit event in %v", want, seen)
		}
	}
	if int(all["total"].(float64)) != len(events) {
		t.Fatalf("total %v, events %d", all["total"], len(events))
	}
	add := seen["user: add-group"]
	one := e.do("GET", "/api/data/audit/"+add["id"].(string), tok, nil).status(200).json()
	if one["additional_id"] != g || one["target_id"] != uid {
		t.Fatalf("add-group event: %v", one)
	}
	e.do("GET", "/api/data/audit/nope", tok, nil).status(404)

	byKind := e.do("GET", "/api/data/audit?target_kind=group&action_key=create", tok, nil).status(200).json()
	if byKind["total"].(float64) != 1 {
		t.Fatalf("filter by kind: %v", byKind)
	}
	page := e.do("GET", "/api/data/audit?count=2&page=1&order=action_key", tok, nil).status(200).json()
	if len(page["audit_events"].([]any)) != 2 || page["page"].(float64) != 1 {
		t.Fatalf("paging: %v", page)
	}
	future := e.do("GET", "/api/data/audit?from=2999-01-01T00:00:00Z", tok, nil).status(200).json()
	if future["total"].(float64) != 0 {
		t.Fatalf("from filter: %v", future)
	}
	past := e.do("GET", "/api/data/audit?to=2000-01-01T00:00:00Z", tok, nil).status(200).json()
	if past["total"].(float64) != 0 {
		t.Fatalf("to filter: %v", past)
	}
	for _, bad := range []string{"count=0", "count=1001", "page=-1", "order=size", "from=yesterday"} {
		if r := e.do("GET", "/api/data/audit?"+bad, tok, nil); r.Code != 400 {
			t.Errorf("%s: %d, want 400", bad, r.Code)
		}
	}
	// Group filter: events initiated by members of the group (the member
	// has only logged in).
	byGroup := e.do("GET", "/api/data/audit?group_id="+g, tok, nil).status(200).json()
	if byGroup["total"].(float64) != 1 || byGroup["audit_events"].([]any)[0].(map[string]any)["user_id"] != uid {
		t.Fatalf("group filter: %v", byGroup)
	}

	filters := e.do("GET", "/api/data/audit/filters", tok, nil).status(200).json()["target_kinds"].([]any)
	kinds := map[string]string{}
	for _, k := range filters {
		m := k.(map[string]any)
		kinds[m["name"].(string)] = fmt.Sprint(m["action_keys"])
	}
	if !strings.Contains(kinds["authenticate"], "update-password") || !strings.Contains(kinds["group"], "create") {
		t.Fatalf("filters: %v", kinds)
	}
	// Every recorded event is in the catalogue.
	for k := range seen {
		kind, action, _ := strings.Cut(k, ": ")
		if !auditAllowed(kind, action) {
			t.Errorf("recorded %s not in the catalogue", k)
		}
	}
}

func TestPlatformSummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.MapsKey = "secret-maps-key"; c.UploadLimitBytes = 1234 })
	r := e.do("GET", "/api/data/summary/platform", e.adminToken, nil).status(200)
	if strings.Contains(string(r.Body), "secret-maps-key") {
		t.Fatal("provider key leaked")
	}
	m := r.json()
	if m["maps_key"] != "<KEY>" || m["analytics_write_key"] != "" {
		t.Fatalf("provider keys: %v %v", m["maps_key"], m["analytics_write_key"])
	}
	if m["harvest_refresh_time"].(float64) != 3600 || m["password_length_minimum"].(float64) != float64(config.PasswordMin) {
		t.Fatalf("summary: %v", m)
	}
	up := m["offering"].(map[string]any)["uploadstore"].(map[string]any)
	if up["limit_bytes"].(float64) != 1234 {
		t.Fatalf("uploadstore: %v", up)
	}
}

func TestBodyLimitAndContentTypeless(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.MaxBodyBytes = 2048 })
	big := `{"name":"` + strings.Repeat("a", 4096) + `"}`
	if r := e.do("POST", "/api/data/roles", e.adminToken, big); r.Code != 413 {
		t.Fatalf("oversized body: %d %s", r.Code, r.Body)
	}
	// No Content-Type: read as JSON.
	r := e.doRaw("POST", "/api/data/roles", e.adminToken, []byte(`{"name":"plain"}`), "")
	r.status(201)
}

// Behind a configured proxy the client is the X-Forwarded-For address, so
// one client's failures do not block another's.
func TestClientLimitTrustsConfiguredProxy(t *testing.T) {
	t.Parallel()
	// httptest requests come from 192.0.2.1.
	e := newEnv(t, func(c *config.Config) { c.LoginMaxFailures = 1; c.TrustedProxies = []string{"192.0.2.1"} })
	for i := 0; i < 4; i++ {
		req := map[string]string{"email": fmt.Sprintf("p%d@example.com", i), "password": "x-password"}
		e.doWithHeader("POST", "/api/login", req, "X-Forwarded-For", "10.0.0.1").status(401)
	}
	blocked := e.doWithHeader("POST", "/api/login", map[string]string{"email": "q@example.com", "password": "x-password"}, "X-Forwarded-For", "10.0.0.1")
	if blocked.Code != 429 {
		t.Fatalf("client 10.0.0.1 after 4 failures: %d", blocked.Code)
	}
	other := e.doWithHeader("POST", "/api/login", map[string]string{"email": "q@example.com", "password": "x-password"}, "X-Forwarded-For", "10.0.0.2")
	if other.Code != 401 {
		t.Fatalf("another client behind the proxy is blocked: %d", other.Code)
	}
}
