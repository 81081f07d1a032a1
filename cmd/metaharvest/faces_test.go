package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/internal/testdb"
)

// A role starting with FACIAL_RECOGNITION=false deletes the stored face
// descriptors; with it on, they stay.
func TestRoleStartForgetsFaces(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	if err := db.Exec(`INSERT INTO locations (id, kind, name) VALUES ('l', 'filesystem', 'L');
		INSERT INTO containers (id, location_id, name) VALUES ('c', 'l', 'c');
		INSERT INTO items (id, location_id, container_id, path, name) VALUES ('i', 'l', 'c', 'a.jpg', 'a.jpg')`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Transaction(func(tx *store.DB) error {
		return store.InsertFaceDescriptors(tx, store.FaceRows{Item: []string{"i"}, Extractor: []string{"vendor_faces"}, PersonID: []string{"p"},
			Thumbnail: []string{""}, Model: []string{"m"}, Face: []int32{0}, TimeMS: []int64{-1}, Left: []float32{1}, Top: []float32{2},
			Width: []float32{30}, Height: []float32{30}, Descriptor: [][]byte{facedesc.Quantize([]float32{0.6, 0.8})}}, db.NowFunc())
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, on := range []bool{true, false} {
		cfg := config.Config{FacialRecognition: on}
		if err := forgetFaces(ctx, cfg, db, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		n, err := store.CountFaceDescriptors(db)
		if err != nil || (on && n != 1) || (!on && n != 0) {
			t.Errorf("facial recognition %v: %d faces left, %v", on, n, err)
		}
	}
}
