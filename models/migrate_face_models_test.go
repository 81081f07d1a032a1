package models_test

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// Migration 00024 gives the faces assigned so far the model and box of
// the descriptor they were assigned from (a face whose descriptor was
// replaced since gets none), and the described reference pictures the
// model of the newest face.
func TestFaceModelsMigrationFillsModelAndBox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := emptyDB(t)
	if err := models.MigrateUpTo(ctx, db, 23); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO locations (id, kind, name) VALUES ('l', 'filesystem', 'L')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('c', 'l', 'media')`,
		`INSERT INTO items (id, location_id, container_id, path, name) VALUES ('a', 'l', 'c', 'a', 'a'), ('b', 'l', 'c', 'b', 'b')`,
		`INSERT INTO face_descriptors (item_id, extractor, face, box_left, box_top, box_width, box_height, model, descriptor, created_at)
			VALUES ('a', 'vendor_faces', 0, 10, 20, 30, 40, 'human-faceres 3.3.6', '\x00', '2026-01-01T00:00:00Z'),
			('b', 'vendor_faces', 0, 1, 2, 3, 4, 'human-faceres 3.3.6', '\x00', '2026-02-01T00:00:00Z')`,
		`INSERT INTO persons (id) VALUES ('p')`,
		// b's face was assigned from a descriptor replaced since.
		`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, described_at)
			VALUES ('a', 'vendor_faces', 0, 'c', 'p', '2026-01-01T00:00:00Z'), ('b', 'vendor_faces', 0, 'c', 'p', '2025-01-01T00:00:00Z')`,
		`INSERT INTO person_references (person_id, picture, status, descriptor) VALUES ('p', 'x', 'ready', '\x00'), ('p', 'y', 'pending', NULL)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := models.MigrateUpTo(ctx, db, 24); err != nil {
		t.Fatal(err)
	}
	var model string
	var l, top, w, h float64
	if err := db.QueryRowContext(ctx, `SELECT model, box_left, box_top, box_width, box_height FROM person_faces WHERE item_id = 'a'`).
		Scan(&model, &l, &top, &w, &h); err != nil {
		t.Fatal(err)
	}
	if model != "human-faceres 3.3.6" || l != 10 || top != 20 || w != 30 || h != 40 {
		t.Errorf("a's face: %q %v %v %v %v", model, l, top, w, h)
	}
	if err := db.QueryRowContext(ctx, `SELECT model, box_width FROM person_faces WHERE item_id = 'b'`).Scan(&model, &w); err != nil {
		t.Fatal(err)
	}
	if model != "" || w != 0 {
		t.Errorf("b's face, its descriptor replaced: %q %v", model, w)
	}
	rows, err := db.QueryContext(ctx, `SELECT picture, model FROM person_references ORDER BY picture`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var p, m string
		if err := rows.Scan(&p, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, p+":"+m)
	}
	if len(got) != 2 || got[0] != "x:human-faceres 3.3.6" || got[1] != "y:" {
		t.Errorf("references: %v", got)
	}
}
