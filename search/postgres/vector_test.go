package postgres

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// TestBodyVectorIsToTsvector: for every body bodyVector takes, its literal
// is the tsvector PostgreSQL's to_tsvector(wordsConfig, ...) makes of the
// body's split words, as the server prints both; bodies it leaves to the
// server are the ones with words outside ASCII or beyond the limits.
func TestBodyVectorIsToTsvector(t *testing.T) {
	t.Parallel()
	db, err := testdb.New(t).DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	rng := rand.New(rand.NewPCG(1, 2))
	// Words from an alphabet where the parser's cases are frequent: digits,
	// e and E (scientific notation), hex letters, capitals.
	const alphabet = "0123456789eEabcdfxZ"
	word := func() string {
		n := 1 + rng.IntN(9)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	seps := []string{" ", "/", ".", "-", "_", "://", "@", "\n", " © ", "\xff", ", "}
	var bodies []string
	for range 400 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(word())
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		bodies = append(bodies, b.String())
	}
	doc := searchtest.SmallFileDocument()
	bodies = append(bodies,
		"", " ", "/.-", vectorProbe,
		doc["store_url"].(string)+" "+doc["path"].(string)+" "+doc["location_id"].(string),
		strings.Repeat("the cat ", 300),                 // more positions than a lexeme keeps
		strings.Repeat("w ", maxVectorPos)+"last",       // more words than positions: left to the server
		strings.Repeat("w ", maxVectorPos-1)+"last",     // as many as there are
		strings.Repeat("x", maxLexemeLength-1)+" short", // the longest word kept
		strings.Repeat("x", maxLexemeLength)+" short",   // too long: left to the server
		"café crème", "naïve 42", "ΑΒΓ abc", "٣ arabic digit", // outside ASCII: left to the server
		"12e3x 1E10 1e 9e9e9 0e0", "ABC abc Abc",
	)

	taken := 0
	for _, body := range bodies {
		lit, ok := bodyVector(body)
		words := splitWords(body)
		if !ok {
			if isASCIIWords(words) && len(strings.Fields(words)) < maxVectorPos && !hasLongWord(words) {
				t.Errorf("bodyVector left %.60q to the server", body)
			}
			continue
		}
		taken++
		var want, got string
		err := db.QueryRowContext(ctx, `SELECT to_tsvector('`+wordsConfig+`', $1)::text, $2::tsvector::text`, words, lit).Scan(&want, &got)
		if err != nil {
			t.Fatalf("%.60q: %v", body, err)
		}
		if got != want {
			t.Errorf("%.60q:\n got %.300s\nwant %.300s", body, got, want)
		}
	}
	if taken < len(bodies)-8 {
		t.Errorf("bodyVector took %d of %d bodies", taken, len(bodies))
	}
	for _, body := range []string{"café crème", strings.Repeat("w ", maxVectorPos) + "last", strings.Repeat("x", maxLexemeLength)} {
		if _, ok := bodyVector(body); ok {
			t.Errorf("bodyVector took %.60q", body)
		}
	}

	e := &Engine{db: db}
	if agree, err := e.bodyVectorsAgree(ctx); err != nil || !agree {
		t.Fatalf("the server disagrees on the probe: %v %v", agree, err)
	}
}

func isASCIIWords(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && !isASCIIAlnum(s[i]) {
			return false
		}
	}
	return true
}

func hasLongWord(s string) bool {
	for _, w := range strings.Fields(s) {
		if len(w) >= maxLexemeLength {
			return true
		}
	}
	return false
}

// TestWrittenVectorsAreTheServers: the tsv of documents written (a small
// file's, one with words outside ASCII, a segment) is what the server makes
// of their name and body words.
func TestWrittenVectorsAreTheServers(t *testing.T) {
	t.Parallel()
	gdb := testdb.New(t)
	e, err := New(gdb)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := gdb.DB()
	ctx := context.Background()
	small := searchtest.SmallFileDocument()
	accents := search.Document{"_id": "accents", "name": "Crème brûlée.mov", "path": "Cuisine/Crème brûlée.mov",
		"description": "Ünïcode wörds and ASCII words 12e3x"}
	if err := e.Upsert(ctx, []search.Document{small, accents}); err != nil {
		t.Fatal(err)
	}
	seg := search.Segment{ID: "accents-s1", ItemID: "accents", Time: 1.5,
		Summary: search.SegmentSummary{OCR: []search.SegmentText{{Text: "Voilà: 3 words 1E5"}, {Text: "PLAIN words 4e4x"}}}}
	if err := e.UpsertSegments(ctx, []search.Segment{seg}); err != nil {
		t.Fatal(err)
	}
	segDoc, err := seg.Document()
	if err != nil {
		t.Fatal(err)
	}
	check := func(table string, doc search.Document, prepare func(search.Document) (*search.Prepared, error)) {
		t.Helper()
		p, err := prepare(doc)
		if err != nil {
			t.Fatal(err)
		}
		var got, want string
		err = db.QueryRowContext(ctx, `SELECT tsv::text, (setweight(to_tsvector('`+wordsConfig+`', $2), 'A') || to_tsvector('`+wordsConfig+`', $3))::text
			FROM `+table+` WHERE id = $1`, p.ID, p.NameText+"\n"+splitWords(p.NameText), splitWords(p.BodyText)).Scan(&got, &want)
		if err != nil {
			t.Fatalf("%s %s: %v", table, p.ID, err)
		}
		if got != want || !strings.Contains(got, ":") {
			t.Errorf("%s %s:\n got %s\nwant %s", table, p.ID, got, want)
		}
	}
	check("search_documents", small, search.PrepareItem)
	check("search_documents", accents, search.PrepareItem)
	check("search_segments", segDoc, search.Prepare)
	if e.vectors.Load() != vectorsAgree {
		t.Errorf("the engine does not make body vectors: %d", e.vectors.Load())
	}
}
