package web

import (
	"strings"

	"github.com/metaharvest/metaharvest/search"
)

// What the item page reads of an item's contents beyond its text: an
// archive's entries and an email's headers.

// archiveContents is the list of an archive's entries the archive
// extractor made, as the item page shows it.
type archiveContents struct {
	Entries []archiveEntry
	// More counts the entries walked and not shown (the page shows at
	// most maxArchiveEntries; the extractor lists at most 10,000).
	More int
}

type archiveEntry struct{ Name, Type, Size, Modified string }

// emailMessages are the headers of the messages of an email file (one for
// an .eml, a mailbox's in order) as the email extractor read them.
type emailMessages struct {
	List []emailMessage
	// More counts the messages of a mailbox not shown.
	More int
}

type emailMessage struct {
	From, To, Cc, Subject, Date string
	Attachments                 []string
}

// maxEmailMessages is how many messages of a mailbox its page lists.
const maxEmailMessages = 200

// emailMessagesOf reads the email extractor's headers (nil when it did
// not run).
func emailMessagesOf(meta map[string]any) *emailMessages {
	email, _ := lookup(meta, "email").(map[string]any)
	if email == nil {
		return nil
	}
	list := []any{email}
	if msgs, ok := email["messages"].([]any); ok {
		list = msgs
	}
	out := &emailMessages{}
	for _, m := range objects(list, maxEmailMessages) {
		msg := emailMessage{From: str(m["from"]), To: joinStrings(m["to"]), Cc: joinStrings(m["cc"]), Subject: str(m["subject"])}
		if t, ok := search.ParseDateValue(str(m["date"])); ok {
			msg.Date = t.UTC().Format("2006-01-02 15:04 UTC")
		}
		atts, _ := m["attachments"].([]any)
		for _, a := range atts {
			if a, ok := a.(map[string]any); ok {
				label := str(a["name"])
				if label == "" {
					label = "(no name)"
				}
				if n, ok := number(a["size"]); ok {
					label += " (" + humanSize(int64(n)) + ")"
				}
				msg.Attachments = append(msg.Attachments, label)
			}
		}
		if msg.From+msg.To+msg.Subject+msg.Date != "" || len(msg.Attachments) > 0 {
			out.List = append(out.List, msg)
		}
	}
	count := len(list)
	if n, ok := number(email["message_count"]); ok && int(n) > count {
		count = int(n)
	}
	out.More = count - len(out.List)
	if len(out.List) == 0 {
		return nil
	}
	return out
}

// objects are the first max objects of an extractor's list (other values
// skipped).
func objects(list []any, max int) []map[string]any {
	var out []map[string]any
	for _, v := range list {
		if len(out) == max {
			break
		}
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// joinStrings joins a list of strings (or a string) with commas.
func joinStrings(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if s := str(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

// maxArchiveEntries is how many entries of an archive its page lists.
const maxArchiveEntries = 500

// archiveContentsOf reads the archive extractor's entries (nil when it
// did not run or listed none).
func archiveContentsOf(meta map[string]any) *archiveContents {
	list, _ := lookup(meta, "archive.entries").([]any)
	if len(list) == 0 {
		return nil
	}
	c := &archiveContents{}
	for _, e := range objects(list, maxArchiveEntries) {
		entry := archiveEntry{Name: str(e["name"]), Type: str(e["type"])}
		if a := str(e["archive"]); a != "" {
			entry.Name = a + " › " + entry.Name
		}
		if n, ok := number(e["size"]); ok && entry.Type != "dir" {
			entry.Size = humanSize(int64(n))
		}
		if t, ok := search.ParseDateValue(str(e["modified"])); ok {
			entry.Modified = t.UTC().Format("2006-01-02 15:04")
		}
		c.Entries = append(c.Entries, entry)
	}
	walked := len(list)
	if n, ok := number(lookup(meta, "archive.entry_count")); ok && int(n) > walked {
		walked = int(n)
	}
	c.More = walked - len(c.Entries)
	return c
}
