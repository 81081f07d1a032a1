package web

import (
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"

	"github.com/microcosm-cc/bluemonday"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/safemd"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Comments on the item page: the current comments of an item (the caller
// sees the item, so its comments), their bodies rendered from markdown on
// the server, and a lane of the time-coded ones on the timeline. Adding,
// editing, deleting and the history go through the api (js/comments.js).

// maxItemComments bounds the comments one item page shows.
const maxItemComments = 500

type commentView struct {
	ID, Author, When string
	Body             template.HTML // rendered and sanitised (renderMarkdown)
	Source           string        // the markdown (sanitised as the api gives it), for the edit form
	TimeMarker       string        // the api's hh:mm:ss:cc, "" without
	T, Time, Href    string        // the marker's seconds, timecode and link
	Mine             bool          // the user may edit and delete it
}

type commentsPart struct {
	Views      []commentView
	CanWrite   bool
	Timed      bool // the item has a player: comments may carry its time
	More       bool // there are more than the page shows
	NotesLimit int
}

// itemComments loads the item's comments for p (who may see the item).
func (u *UI) itemComments(db *store.DB, p *access.Principal, itemID string, timed bool) (*commentsPart, error) {
	rows, total, err := store.TargetComments(db, "item", itemID, store.Page{Limit: maxItemComments})
	if err != nil {
		return nil, err
	}
	var authorIDs []string
	for _, r := range rows {
		authorIDs = append(authorIDs, r.AuthorID)
	}
	authors, err := store.UserSummaries(db, authorIDs)
	if err != nil {
		return nil, err
	}
	part := &commentsPart{CanWrite: p.Can("comments:write"), Timed: timed, More: total > int64(len(rows)), NotesLimit: maxItemComments}
	for _, r := range rows {
		// The markdown as the api gives it (safemd's), for the edit form
		// and the lane's label, which show it as text.
		src := safemd.Sanitize(r.Body)
		v := commentView{ID: r.RootID, Author: authorName(authors[r.AuthorID]), When: r.CTime.UTC().Format("2006-01-02 15:04 UTC"),
			Body: renderMarkdown(r.Body), Source: src, Mine: part.CanWrite && (p.IsAdmin() || r.AuthorID == p.User.ID)}
		if t, ok := markerSeconds(r.TimeMarker); ok {
			v.TimeMarker, v.T, v.Time, v.Href = r.TimeMarker, seconds(t), timecode(t), itemHref(itemID, "", t)
		}
		part.Views = append(part.Views, v)
	}
	return part, nil
}

func authorName(s store.UserSummary) string {
	if n := strings.TrimSpace(s.FirstName + " " + s.LastName); n != "" {
		return n
	}
	if s.Email != "" {
		return s.Email
	}
	return "A former user"
}

// commentLane is the timeline's lane of the time-coded comments.
func commentLane(part *commentsPart) (lane, bool) {
	l := lane{Name: "comments", Title: "Comments"}
	if part == nil {
		return l, false
	}
	for _, v := range part.Views {
		if v.T == "" || len(l.Markers) >= maxLaneMarkers {
			continue
		}
		label, _ := truncate(strings.Join(strings.Fields(v.Source), " "), 120)
		l.Markers = append(l.Markers, marker{Href: v.Href, T: v.T, Kind: "comment", Label: v.Author + ": " + label, Time: v.Time})
	}
	return l, len(l.Markers) > 0
}

// markerSeconds reads the api's time marker hh:mm:ss:cc (hundredths).
func markerSeconds(m string) (float64, bool) {
	parts := strings.Split(m, ":")
	if len(parts) != 4 {
		return 0, false
	}
	var n [4]int
	for i, s := range parts {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || len(s) != 2 {
			return 0, false
		}
		n[i] = v
	}
	return float64(n[0]*3600+n[1]*60+n[2]) + float64(n[3])/100, true
}

// markerOf writes seconds as the api's time marker (for tests).
func markerOf(t float64) string {
	cs := int64(t*100 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d:%02d", cs/360000, cs/6000%60, cs/100%60, cs%100)
}

// The comment bodies' markdown: a small renderer of what people write in
// comments (paragraphs, line breaks, **strong**, *emphasis*, `code`,
// fenced code, "- " lists, "> " quotes, [links](https://...)). The body
// goes through the platform's sanitiser first (safemd: dangerous HTML
// and link destinations out), every character of it is then HTML-escaped
// (markup written in a comment shows as text), and what the renderer made
// goes through bluemonday's user-content policy before it is trusted as
// template.HTML. Nothing else in the UI makes HTML from user text.

var commentPolicy = bluemonday.UGCPolicy()

var (
	mdStrong = regexp.MustCompile(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	mdEm     = regexp.MustCompile(`(^|[^\w*])\*([^*\s][^*\n]*?)\*|(^|[^\w_])_([^_\s][^_\n]*?)_`)
	mdLink   = regexp.MustCompile(`\[([^\]\n]+)\]\(((?:https?://|mailto:)[^\s()<>"]+)\)`)
	mdBare   = regexp.MustCompile(`(^|[\s(])(https?://[^\s<>"()]+)`)
)

func renderMarkdown(src string) template.HTML {
	src = strings.ReplaceAll(safemd.Sanitize(src), "\r\n", "\n")
	var out strings.Builder
	lines := strings.Split(src, "\n")
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		kind := blockKind(para)
		switch kind {
		case "ul":
			out.WriteString("<ul>")
			for _, l := range para {
				out.WriteString("<li>" + inline(strings.TrimSpace(l)[2:]) + "</li>")
			}
			out.WriteString("</ul>")
		case "quote":
			var inner []string
			for _, l := range para {
				inner = append(inner, inline(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), ">"))))
			}
			out.WriteString("<blockquote><p>" + strings.Join(inner, "<br>") + "</p></blockquote>")
		default:
			var inner []string
			for _, l := range para {
				inner = append(inner, inline(strings.TrimSpace(l)))
			}
			out.WriteString("<p>" + strings.Join(inner, "<br>") + "</p>")
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			flush()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			out.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>")
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		// A list or quote starts a block of its own.
		if len(para) > 0 && blockKind([]string{l}) != blockKind(para[:1]) {
			flush()
		}
		para = append(para, l)
	}
	flush()
	return template.HTML(commentPolicy.Sanitize(out.String())) // #nosec G203 -- escaped, then sanitised
}

func blockKind(lines []string) string {
	t := strings.TrimSpace(lines[0])
	switch {
	case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
		return "ul"
	case strings.HasPrefix(t, ">"):
		return "quote"
	}
	return "p"
}

// inline renders a line's spans: its code spans are kept apart from the
// other rules, everything is escaped first.
func inline(s string) string {
	var out strings.Builder
	parts := strings.Split(s, "`")
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			out.WriteString("<code>" + html.EscapeString(p) + "</code>")
		case i%2 == 1:
			out.WriteString(spans("`" + p)) // an unclosed backtick
		default:
			out.WriteString(spans(p))
		}
	}
	return out.String()
}

func spans(s string) string {
	e := html.EscapeString(s)
	e = mdLink.ReplaceAllString(e, `<a href="$2" rel="nofollow">$1</a>`)
	if !strings.Contains(e, "<a ") {
		e = mdBare.ReplaceAllString(e, `$1<a href="$2" rel="nofollow">$2</a>`)
	}
	e = mdStrong.ReplaceAllString(e, "<strong>$1$2</strong>")
	e = mdEm.ReplaceAllString(e, "$1$3<em>$2$4</em>")
	return e
}
