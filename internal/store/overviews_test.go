package store

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// The constants MediaTypeSQL is built from cover exactly what Go's
// strings.TrimSpace and strings.ToLower do.
func TestMediaTypeSQLConstantsMatchGo(t *testing.T) {
	t.Parallel()
	from := []rune(goLowerFrom)
	if len(from) != len(goLowerTo) {
		t.Fatalf("goLowerFrom has %d runes, goLowerTo %d bytes", len(from), len(goLowerTo))
	}
	lowered := map[rune]rune{}
	for i, r := range from {
		lowered[r] = rune(goLowerTo[i])
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.IsSpace(r) != strings.ContainsRune(goSpace, r) {
			t.Errorf("U+%04X: unicode.IsSpace is %v but goSpace disagrees", r, unicode.IsSpace(r))
		}
		if r >= utf8.RuneSelf && unicode.ToLower(r) < utf8.RuneSelf && lowered[r] != unicode.ToLower(r) {
			t.Errorf("U+%04X lowers to %q in Go: missing from goLowerFrom/goLowerTo", r, unicode.ToLower(r))
		}
	}
	for r, to := range lowered {
		if unicode.ToLower(r) != to {
			t.Errorf("goLowerFrom maps U+%04X to %q, Go to %q", r, to, unicode.ToLower(r))
		}
	}
}

// mediaTypeCorpus is every MIME type the system knows, the document types
// search lists, and odd spellings of them.
func mediaTypeCorpus(t *testing.T) []string {
	t.Helper()
	c := []string{"", " ", ";", "video", "video/", "Video/MP4", " video/mp4 ", "video/mp4; codecs=avc1", "VIDEO/MP4 ;x",
		"audio/mpeg", "AUDIO/x-wav", "image/jpeg", "Image/PNG;q=1", "image", "imagex/png", "text/plain", "TEXT/HTML; charset=utf-8",
		"text", "application/pdf", "Application/PDF", "application/pdf;version=1.7", "application/pdfx", "application/pdf/x",
		"application/msword", "application/rtf", "application/epub+zip", "application/vnd.ms-excel",
		"application/vnd.ms-powerpoint", "application/json", "application/xml", "application/x-subrip", "message/rfc822",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"application/vnd.openxmlformats-officedocument", "application/vnd.oasis.opendocument.text",
		"application/vnd.oasis.opendocument", "application/zip", "application/octet-stream", "inode/directory",
		"\u0130mage/png", "aud\u0130o/ogg", "appl\u0130cation/pdf", "text/\u212a", "v\u00eddeo/mp4", "vid\u00c9o/mp4",
		"\u00a0video/mp4\u3000", "video/mp4\u0085", "application/json\u2028;x", "\t\n\v\f\rIMAGE/GIF\r\n", "_ideo/mp4", "%udio/x",
		"video%", "application/pdf%", "VİDEO/MP4", "ımage/png", "I\u0307MAGE/png",
	}
	for _, r := range goSpace {
		c = append(c, string(r)+"image/png"+string(r), "application/pdf"+string(r)+";a", "x"+string(r)+"video/mp4")
	}
	if f, err := os.Open("/etc/mime.types"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 0 && !strings.HasPrefix(fields[0], "#") && strings.Contains(fields[0], "/") {
				c = append(c, fields[0], strings.ToUpper(fields[0]), fields[0]+"; charset=x")
			}
		}
	}
	// Random mixtures of the pieces that matter.
	pieces := []string{"video", "audio", "image", "text", "application", "message", "/", "pdf", "rfc822", "vnd.",
		"openxmlformats-officedocument", "oasis.opendocument", ".", ";", " ", "\t", "\u00a0", "\u0130", "\u212a", "I",
		"É", "x", "-", "+", "%", "_", "ms-excel", "json", "epub+zip", "K", "k"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range 1 + rnd.IntN(6) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		c = append(c, b.String())
	}
	return c
}

// The SQL grouping of item types agrees with models.MediaType, the
// function that gives search documents their type.
func TestMediaTypeSQLAgreesWithSearch(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	corpus := mediaTypeCorpus(t)
	var rows []struct {
		Ord  int
		Type string
	}
	if err := db.Raw(`SELECT ord, `+MediaTypeSQL("m")+` AS type FROM unnest(?::text[]) WITH ORDINALITY AS x(m, ord) ORDER BY ord`,
		models.Strings(corpus)).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(corpus) {
		t.Fatalf("%d rows for %d inputs", len(rows), len(corpus))
	}
	seen := map[string]bool{}
	for i, r := range rows {
		want := models.MediaType(corpus[i])
		seen[want] = true
		if r.Type != want {
			t.Errorf("%q: SQL %q, models.MediaType %q", corpus[i], r.Type, want)
		}
	}
	if len(seen) != len(models.MediaTypes) {
		t.Fatalf("corpus reaches only types %v", seen)
	}
}
