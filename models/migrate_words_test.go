package models_test

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// Migration 00016 finds words whatever their accents; the documents and
// segments holding a word outside ASCII, indexed under 'simple' before,
// are marked to be indexed again, and no other.
func TestFoldedWordsMigrationReindexesAccentedDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := emptyDB(t)
	if err := models.MigrateUpTo(ctx, db, 15); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO locations (id, kind, name) VALUES ('l', 'filesystem', 'L')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('c', 'l', 'media')`,
		`INSERT INTO items (id, location_id, container_id, path, name) VALUES
			('accented', 'l', 'c', 'a', 'a'), ('plain', 'l', 'c', 'b', 'b'), ('segment', 'l', 'c', 'c', 'c'), ('gone', 'l', 'c', 'd', 'd')`,
		`UPDATE items SET deleted_at = now() WHERE id = 'gone'`,
		`INSERT INTO search_documents (vis, id, tsv) VALUES (0, 'accented', to_tsvector('simple', 'Café de Łódź')),
			(0, 'plain', to_tsvector('simple', 'plain words')), (0, 'segment', to_tsvector('simple', 'plain')),
			(0, 'gone', to_tsvector('simple', 'Café'))`,
		`INSERT INTO search_segments (id, item_id, time, doc, tsv) VALUES ('segment/1', 'segment', 1, '{}', to_tsvector('simple', 'Savaşçısı'))`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := models.MigrateUpTo(ctx, db, 16); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT item_id FROM search_outbox ORDER BY item_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var marked []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		marked = append(marked, id)
	}
	if len(marked) != 2 || marked[0] != "accented" || marked[1] != "segment" {
		t.Errorf("marked to index again: %v, want [accented segment]", marked)
	}
	var words string
	if err := db.QueryRowContext(ctx, `SELECT to_tsvector('metaharvest_words', 'ÇAĞLAYANŞÜT Savaşçısı Łódź café plain Łódź2024 Saint-Étienne')::text`).Scan(&words); err != nil {
		t.Fatal(err)
	}
	if words != "'cafe':4 'caglayansut':1 'etienne':9 'lodz':3 'lodz2024':6 'plain':5 'saint':8 'saint-etienne':7 'savascisi':2" {
		t.Errorf("folded words: %s", words)
	}
}
