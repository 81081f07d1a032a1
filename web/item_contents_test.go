package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// An archive's page lists its entries (names as text, nested archives'
// entries under their archive) and the text of the documents inside.
func TestArchivePageListsItsContents(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	entries := []any{
		map[string]any{"name": "notes/", "type": "dir", "size": 0.0},
		map[string]any{"name": "notes/<b>turkce</b>.txt", "type": "file", "size": 2048.0, "modified": "2024-05-01T10:30:00Z"},
		map[string]any{"name": "inner.txt", "type": "file", "size": 10.0, "archive": "old.zip"},
	}
	id := c.item("pub", models.ContainerID("pub", "media"), "bundles/notes.zip", "application/zip", map[string]any{
		"archive": map[string]any{"entries": entries, "entry_count": 5.0, "listed": 3.0, "text": "Savaşçısı yağmurda ağladı"}})
	body := c.page("/items/"+url.PathEscape(id), c.signIn(adminEmail, adminPassword), http.StatusOK)
	for _, want := range []string{
		`<h3 id="contents-title">Contents</h3>`,
		`<tr><td>notes/ <span class="note">(dir)</span></td><td></td><td></td></tr>`,
		`<tr><td>notes/&lt;b&gt;turkce&lt;/b&gt;.txt</td><td>2.0 kB</td><td>2024-05-01 10:30</td></tr>`,
		`<tr><td>old.zip › inner.txt</td><td>10 B</td><td></td></tr>`,
		`<p class="note">2 more entries not shown.</p>`,
		`<h3>Text of the documents inside</h3><pre class="doctext" tabindex="0">Savaşçısı yağmurda ağladı</pre>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the archive's page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("%.6000s", body)
	}
}

// An email's page shows its headers and attachments as text; a mailbox's
// shows each message's.
func TestEmailPageShowsItsHeaders(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	eml := c.item("pub", models.ContainerID("pub", "media"), "mail/clock.eml", "message/rfc822", map[string]any{"email": map[string]any{
		"format": "eml", "message_count": 1.0, "from": "Father Time <father.time@example.org>", "to": []any{"timbo@example.org", "<b>x</b>@example.org"},
		"subject": "IMAP file test", "date": "2002-05-12T08:56:15+01:00", "text": "Simple email with attachment.",
		"attachments": []any{map[string]any{"name": "clock.bmp", "size": 630.0, "type": "image/bmp"}}}})
	body := c.page("/items/"+url.PathEscape(eml), admin, http.StatusOK)
	want := `<h3 id="messages-title">Message</h3>` + "\n" + `<dl class="kv message"><div><dt>Subject</dt><dd>IMAP file test</dd></div>` +
		`<div><dt>From</dt><dd>Father Time &lt;father.time@example.org&gt;</dd></div><div><dt>To</dt><dd>timbo@example.org, &lt;b&gt;x&lt;/b&gt;@example.org</dd></div>` +
		`<div><dt>Date</dt><dd>2002-05-12 07:56 UTC</dd></div><div><dt>Attachments</dt><dd>clock.bmp (630 B)</dd></div></dl>`
	if !strings.Contains(body, want) || !strings.Contains(body, "<h3>Message text</h3>") {
		t.Errorf("the email's page lacks %s: %.5000s", want, body)
	}
	mbox := c.item("pub", models.ContainerID("pub", "media"), "mail/box.mbox", "application/mbox", map[string]any{"email": map[string]any{
		"format": "mbox", "message_count": 3.0, "messages": []any{map[string]any{"subject": "First"}, map[string]any{"subject": "Second", "from": "a@example.org"}}}})
	body = c.page("/items/"+url.PathEscape(mbox), admin, http.StatusOK)
	for _, w := range []string{`<h3 id="messages-title">Messages</h3>`, `<dd>First</dd>`, `<dd>Second</dd></div><div><dt>From</dt><dd>a@example.org</dd>`, `1 more message not shown.`} {
		if !strings.Contains(body, w) {
			t.Errorf("the mailbox's page lacks %s", w)
		}
	}
}
