package postgres

import (
	"context"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// TestNestedValuesUseTheirIndex: a condition on a nested value is one the
// GIN index of the nested fields answers (its expression is the index's,
// migration 00026), and the store extractor's leaves, which the index
// leaves out, are still matched (reading the documents).
func TestNestedValuesUseTheirIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, db := newTestEngine(t)
	md5 := strings.Repeat("ab", 16)
	err := e.Upsert(ctx, []search.Document{
		{"_id": "a", "name": "a.txt", "hashes": map[string]any{"md5": md5}, "store": map[string]any{"name": "a.txt", "extension": "txt"}},
		{"_id": "b", "name": "b.txt", "hashes": map[string]any{"md5": strings.Repeat("0", 32)}, "store": map[string]any{"name": "b.txt", "extension": "txt"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field, value, want string
		indexed            bool
	}{
		{"hashes.md5", md5, "a", true},
		{"store.name", "b.txt", "b", false},
	} {
		c := &compiled{t: itemsTable, q: &query{}}
		s := &stmt{c: c, q: c.q}
		cond := s.holds(tc.field, tc.value)
		plan, ids := explainAndRun(t, db, `SELECT d.id FROM search_documents d WHERE `+cond, s.q.args)
		if usesIndex := strings.Contains(plan, "search_documents_extra"); usesIndex != tc.indexed {
			t.Errorf("%s: the index of the nested fields used: %v, want %v\n%s", tc.field, usesIndex, tc.indexed, plan)
		}
		if len(ids) != 1 || ids[0] != tc.want {
			t.Errorf("%s = %s: %v, want %s", tc.field, tc.value, ids, tc.want)
		}
	}
}

// explainAndRun is the plan of query with sequential scans off (the table
// is small: without that, reading it whole is cheaper than any index) and
// the ids it returns.
func explainAndRun(t *testing.T, db *gorm.DB, query string, args []any) (plan string, ids []string) {
	t.Helper()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := sqlDB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"EXPLAIN " + query, query} {
		rows, err := tx.Query(q, args...)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if plan == "" {
			plan = strings.Join(lines, "\n")
		} else {
			ids = lines
		}
	}
	return plan, ids
}
