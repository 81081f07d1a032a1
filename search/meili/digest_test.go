package meili_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// TestDigestQueries: digests are not searched as words with this backend
// (each one is a word no other document has, which Meilisearch's word index
// pays for with every batch); a query that is one digest, as pasted, still
// finds the items that have it.
func TestDigestQueries(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	ctx := context.Background()
	md5 := "9e107d9d372bb6826bd81d3542a419d6"
	sha1 := "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"
	sha256 := "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
	err := e.Upsert(ctx, []search.Document{
		{"_id": "a", "name": "fox.txt", "hashes": map[string]any{"md5": md5, "sha1": sha1, "sha256": sha256}},
		{"_id": "c", "name": "other.txt", "hashes": map[string]any{"md5": strings.Repeat("0", 32)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{
		md5: {"a"}, strings.ToUpper(sha1): {"a"}, " " + sha256 + " ": {"a"},
		md5[:31]:                      nil, // not a digest, and digests are not words
		strings.Repeat("0", 31) + "g": nil,
		"fox":                         {"a"},
	} {
		resp, err := e.Search(ctx, search.Request{Query: q, SortFields: []search.SortField{{Field: "_id", Asc: true}}}, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range resp.Results {
			ids = append(ids, r.Result["_id"].(string))
		}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("query %q: %v, want %v", q, ids, want)
		}
	}
}
