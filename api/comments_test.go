package api

import (
	"fmt"
	"strings"
	"testing"
)

type commentBody struct {
	ID         string `json:"id"`
	ParentID   string `json:"parent_id"`
	TargetType string `json:"target_type"`
	TargetID   string `json:"target_id"`
	Body       string `json:"body"`
	CTime      string `json:"ctime"`
	Author     struct {
		ID, Email, FirstName string
	} `json:"author"`
	Deleted    bool   `json:"deleted"`
	TimeMarker string `json:"time_marker"`
}

type commentPageBody struct {
	Page     int           `json:"page"`
	Comments []commentBody `json:"comments"`
}

func (e *env) comment(token, targetType, targetID, body string) commentBody {
	e.t.Helper()
	var c commentBody
	e.do("POST", "/api/data/comments", token, map[string]any{"target_type": targetType, "target_id": targetID, "body": body}).
		status(201).decode(&c)
	return c
}

func (e *env) comments(token, targetType, targetID string, query string) commentPageBody {
	e.t.Helper()
	var p commentPageBody
	e.do("GET", "/api/data/comments?target_type="+targetType+"&target_id="+targetID+query, token, nil).status(200).decode(&p)
	return p
}

func TestCommentsLifecycle(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	first := e.comment(e.adminToken, "item", e.video, "**Great** shot at `00:01`")
	if first.ID == "" || first.ParentID != "" || first.TargetID != e.video || first.Body != "**Great** shot at `00:01`" ||
		first.Author.Email != adminEmail || first.Deleted || first.TimeMarker != "" {
		t.Fatalf("created %+v", first)
	}
	var marked commentBody
	e.do("POST", "/api/data/comments", e.other, map[string]any{"target_type": "item", "target_id": e.video,
		"body": "the logo appears", "time_marker": "00:01:02:50"}).status(201).decode(&marked)
	if marked.TimeMarker != "00:01:02:50" || marked.Author.Email != "other@example.com" {
		t.Fatalf("marked %+v", marked)
	}
	if e.auditCount("comment", "create", first.ID) != 1 {
		t.Fatal("comment create not audited")
	}

	p := e.comments(e.other, "item", e.video, "&page=0")
	if p.Page != 0 || len(p.Comments) != 2 || p.Comments[0].ID != first.ID || p.Comments[1].ID != marked.ID {
		t.Fatalf("list %+v", p)
	}

	// An update is a new version with parent_id; the list shows it in the
	// place of the comment; history lists both by date.
	var upd commentBody
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": first.ID, "body": "Great shot, edited",
		"target_type": "item", "target_id": e.video, "author": map[string]any{"id": first.Author.ID}}).status(200).decode(&upd)
	if upd.ID == first.ID || upd.ParentID != first.ID || upd.Body != "Great shot, edited" || upd.Author.Email != adminEmail {
		t.Fatalf("updated %+v", upd)
	}
	var again commentBody
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": upd.ID, "body": "third"}).status(200).decode(&again)
	if again.ParentID != first.ID {
		t.Fatalf("a version of a version names the first: %+v", again)
	}
	p = e.comments(e.adminToken, "item", e.video, "")
	if len(p.Comments) != 2 || p.Comments[0].ID != again.ID || p.Comments[0].Body != "third" {
		t.Fatalf("list after updates %+v", p)
	}
	var h commentPageBody
	e.do("GET", "/api/data/comments/"+upd.ID+"/history", e.other, nil).status(200).decode(&h)
	if len(h.Comments) != 3 || h.Comments[0].ID != first.ID || h.Comments[1].ID != upd.ID || h.Comments[2].ID != again.ID {
		t.Fatalf("history %+v", h)
	}
	e.do("GET", "/api/data/comments/"+first.ID+"/history?page=1&limit=2", e.other, nil).status(200).decode(&h)
	if h.Page != 1 || len(h.Comments) != 1 || h.Comments[0].ID != again.ID {
		t.Fatalf("history page 1 %+v", h)
	}
	if e.auditCount("comment", "update", first.ID) != 2 {
		t.Fatal("comment updates not audited")
	}

	// Only the author or an administrator changes or deletes a comment.
	e.do("PUT", "/api/data/comments", e.other, map[string]any{"id": first.ID, "body": "hijack"}).status(403)
	e.do("DELETE", "/api/data/comments/"+first.ID, e.other, nil).status(403)
	e.do("PUT", "/api/data/comments", e.other, map[string]any{"id": marked.ID, "body": "my own, edited", "time_marker": "01:00:00:00"}).status(200)
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": marked.ID, "body": "moderated"}).status(200)
	// A comment does not move nor change hands.
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": marked.ID, "body": "x", "target_id": e.pdf}).status(400)
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": marked.ID, "body": "x", "author": map[string]any{"id": "someone"}}).status(400)
	e.do("PUT", "/api/data/comments", e.adminToken, map[string]any{"id": "nope", "body": "x"}).status(404)

	d := e.do("DELETE", "/api/data/comments/"+marked.ID, e.other, nil).status(200).json()
	if d["deleted"] != true {
		t.Fatalf("delete %v", d)
	}
	e.do("DELETE", "/api/data/comments/"+marked.ID, e.other, nil).status(404)
	e.do("GET", "/api/data/comments/"+marked.ID+"/history", e.other, nil).status(404)
	e.do("DELETE", "/api/data/comments/"+again.ID, e.adminToken, nil).status(200) // any version's id names the comment
	if p := e.comments(e.adminToken, "item", e.video, ""); len(p.Comments) != 0 {
		t.Fatalf("deleted comments listed: %+v", p)
	}
	if e.auditCount("comment", "delete", first.ID) != 1 || e.auditCount("comment", "delete", marked.ID) != 1 {
		t.Fatal("comment deletes not audited")
	}
}

func TestCommentsValidationAndVisibility(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	post := func(tok string, body map[string]any) *response {
		t.Helper()
		return e.do("POST", "/api/data/comments", tok, body)
	}
	ok := map[string]any{"target_type": "item", "target_id": e.video, "body": "b"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range ok {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{with("target_type", strings.Repeat("t", 33)), "target_type"},
		{with("target_id", strings.Repeat("i", 33)), "target_id"},
		{with("target_type", "planet"), "target_type"},
		{with("body", ""), "body"},
		{with("body", strings.Repeat("b", 10001)), "body"},
		{with("time_marker", "1:02:03:04"), "time_marker"},
		{with("time_marker", "00:60:00:00"), "time_marker"},
		{with("time_marker", "00:00:60:00"), "time_marker"},
		{with("time_marker", "00:00:00:100"), "time_marker"},
	} {
		if r := post(e.adminToken, tc.body); r.Code != 400 || r.field(tc.field) == "" {
			t.Errorf("%v: %d %s", tc.body, r.Code, r.Body)
		}
	}
	post(e.adminToken, with("time_marker", "99:59:59:99")).status(201)
	post(e.adminToken, with("time_marker", "00:00:00:00")).status(201)
	post(e.adminToken, with("target_id", "nope")).status(404)
	e.do("GET", "/api/data/comments?target_type=item", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/comments?target_type=item&target_id="+e.video+"&page=-1", e.adminToken, nil).status(400)

	// Items the second user may not see: neither their comments nor commenting.
	secret := e.comment(e.adminToken, "item", e.secret, "classified")
	post(e.other, with("target_id", e.secret)).status(403)
	e.do("GET", "/api/data/comments?target_type=item&target_id="+e.secret, e.other, nil).status(403)
	e.do("GET", "/api/data/comments/"+secret.ID+"/history", e.other, nil).status(403)
	e.do("PUT", "/api/data/comments", e.other, map[string]any{"id": secret.ID, "body": "x"}).status(403)
	e.do("DELETE", "/api/data/comments/"+secret.ID, e.other, nil).status(403)

	// Comments on compilations follow the compilation: 404 to others when private.
	priv := e.createCompilation(e.adminToken, "Private", false)
	pub := e.createCompilation(e.adminToken, "Public", true)
	e.comment(e.adminToken, "compilation", priv.CompilationID, "note")
	post(e.other, map[string]any{"target_type": "compilation", "target_id": priv.CompilationID, "body": "x"}).status(404)
	e.do("GET", "/api/data/comments?target_type=compilation&target_id="+priv.CompilationID, e.other, nil).status(404)
	e.comment(e.other, "compilation", pub.CompilationID, "nice list")
	if p := e.comments(e.other, "compilation", pub.CompilationID, ""); len(p.Comments) != 1 {
		t.Fatalf("public compilation comments %+v", p)
	}

	// Paging: zero-based pages of limit comments.
	for i := range 5 {
		e.comment(e.adminToken, "item", e.pdf, fmt.Sprintf("c%d", i))
	}
	var bodies []string
	for page := 0; page < 3; page++ {
		for _, c := range e.comments(e.adminToken, "item", e.pdf, fmt.Sprintf("&page=%d&limit=2", page)).Comments {
			bodies = append(bodies, c.Body)
		}
	}
	if strings.Join(bodies, ",") != "c0,c1,c2,c3,c4" {
		t.Fatalf("pages %v", bodies)
	}
}

// Bodies are kept as written and sanitised on the way out: script, event
// handlers, javascript: and data: links go, markdown stays.
func TestCommentBodiesSanitised(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	body := "# Title\n> quoted\n\n<script>alert(1)</script><img src=x onerror=alert(2)>" +
		"[a](javascript:alert(3)) ![b](data:image/png;base64,AA) <a href=\"https://ok.example\" onclick=\"x()\">ok</a> `a < b`"
	c := e.comment(e.other, "item", e.video, body)
	want := "# Title\n> quoted\n\n<img src=\"x\">[a](#) ![b](#) <a href=\"https://ok.example\" rel=\"nofollow\">ok</a> `a < b`"
	if c.Body != want {
		t.Fatalf("answered body %q, want %q", c.Body, want)
	}
	if p := e.comments(e.other, "item", e.video, ""); p.Comments[0].Body != want {
		t.Fatalf("listed body %q", p.Comments[0].Body)
	}
	var stored string
	e.db.Raw(`SELECT body FROM comments WHERE id = ?`, c.ID).Scan(&stored)
	if stored != body {
		t.Fatalf("stored %q, want it as written", stored)
	}
}

// A destination after a line ending, in <...>, with a title, or joined
// up once a comment between its parts is dropped, is neutralised like
// any other, in what a comment answers, lists and its history.
func TestCommentBodiesLinkFormsSanitised(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	for _, tc := range []struct{ body, want string }{
		{"[a](\njavascript:alert(1))", "[a](\n#)"},
		{"[a](\r\njavascript:alert(1))", "[a](\r\n#)"},
		{"[a]( \n  javascript:alert(1))", "[a]( \n  #)"},
		{"> see [a](\n> JavaScript&#58;alert(1) \"t\")", "> see [a](\n> # \"t\")"},
		{"[a](< javascript:alert(1)>)", "[a](<#>)"},
		{"[a](<!-- -->javascript:alert(1))", "[a](#)"},
		{"- [r]:\n  data:text/html,x\n\n[go][r]", "- [r]:\n  #\n\n[go][r]"},
		{"[ok](\nhttps://example.com \"t\")", "[ok](\nhttps://example.com \"t\")"},
	} {
		c := e.comment(e.other, "item", e.video, tc.body)
		if c.Body != tc.want {
			t.Errorf("%q answered %q, want %q", tc.body, c.Body, tc.want)
		}
		var h commentPageBody
		e.do("GET", "/api/data/comments/"+c.ID+"/history", e.other, nil).status(200).decode(&h)
		if len(h.Comments) != 1 || h.Comments[0].Body != tc.want {
			t.Errorf("%q in history: %+v", tc.body, h.Comments)
		}
	}
	listed := map[string]bool{}
	for _, c := range e.comments(e.other, "item", e.video, "&limit=100").Comments {
		listed[c.Body] = true
		if strings.Contains(strings.ToLower(c.Body), "javascript:") || strings.Contains(c.Body, "data:") {
			t.Errorf("listed body %q keeps a dangerous link", c.Body)
		}
	}
	if len(listed) != 8 {
		t.Errorf("listed %d bodies, want 8", len(listed))
	}
}

// A comment's author, a compilation's author and who asked for a logo
// training are one shape (openapi.yaml UserSummary): the same user reads
// the same, avatar included, wherever an answer names them.
func TestAuthorSummaryIsOneShape(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	e.do("PATCH", "/api/data/users/"+e.otherID, e.adminToken, map[string]any{"avatar": "https://example.com/me.png",
		"company_uid": "acme-1"}).status(200)
	c := e.do("POST", "/api/data/comments", e.other, map[string]any{"target_type": "item", "target_id": e.video, "body": "b"}).
		status(201).json()
	cp := e.do("POST", "/api/data/compilations", e.other, map[string]any{"name": "mine", "public": true}).status(201).json()
	listed := e.do("GET", "/api/data/comments?target_type=item&target_id="+e.video, e.adminToken, nil).status(200).json()
	want := map[string]any{"id": e.otherID, "user_id": e.otherID, "email": "other@example.com", "first_name": "F",
		"last_name": "L", "avatar": "https://example.com/me.png", "enabled": true, "company_uid": "acme-1"}
	for what, got := range map[string]any{
		"comment":         c["author"],
		"listed comment":  listed["comments"].([]any)[0].(map[string]any)["author"],
		"compilation":     cp["author"],
		"compilation get": e.do("GET", "/api/data/compilations/"+cp["compilation_id"].(string), e.adminToken, nil).status(200).json()["author"],
	} {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s author %v, want %v", what, got, want)
		}
	}
}
