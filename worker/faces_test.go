package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/people"
)

// A harvest stores a descriptor for each face vendor_faces described, in
// face_descriptors (not in the item's data), in the transaction of the
// item's results; a harvest again replaces them, and deleting the item
// deletes them.
func TestHarvestFaceDescriptors(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, map[string]string{"VISION_SIDECAR_DIR": extractortest.VisionDir(t)}, "store", "mime_type", "vendor_faces")
	f := newFixture(t, reg)
	f.copySample("faces/testdata/astronaut.png", "astronaut.png")
	f.copySample("faces/testdata/facematch-man-1.jpg", "man.jpg")
	f.write("notes.txt", "no face here")
	f.startWorker()
	job := f.waitJob(f.harvest(jobs.Spec{Extractors: []string{"vendor_faces"}}), 3*time.Minute)
	if job.WalkedCount != 3 || job.ErrorCount != 0 {
		t.Fatalf("job %+v", job)
	}
	var items []models.Item
	f.db.Order("path").Find(&items)
	ids := []string{}
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	faces, err := store.FaceDescriptorsOf(f.db, ids...)
	if err != nil {
		t.Fatal(err)
	}
	if len(faces) != 2 {
		t.Fatalf("%d faces stored: %+v", len(faces), faces)
	}
	for _, fd := range faces {
		if fd.Extractor != "vendor_faces" || fd.Face != 0 || len(fd.Descriptor) != facedesc.Size || fd.TimeMS != nil ||
			fd.PersonID == "" || !strings.HasSuffix(fd.Thumbnail, "/vendor_faces/faces/0000.jpg") || fd.Width < 20 {
			t.Errorf("face %+v", fd)
		}
		if v, err := fd.Vector(); err != nil || len(v) != facedesc.Dims {
			t.Errorf("vector: %d, %v", len(v), err)
		}
		var it models.Item
		f.db.Where("id = ?", fd.ItemID).Take(&it)
		if strings.Contains(string(it.Metadata), "descriptor\":\"") || !strings.Contains(string(it.Metadata), `"described": true`) {
			t.Errorf("item data: %s", it.Metadata)
		}
	}
	a, b := faces[0], faces[1]
	va, _ := a.Vector()
	vb, _ := b.Vector()
	if c := facedesc.Cosine(va, vb); c > people.DefaultThreshold-0.05 {
		t.Errorf("astronaut and man: cosine %.3f", c)
	}

	// Harvested again: replaced, not added.
	f.waitJob(f.harvest(jobs.Spec{Extractors: []string{"vendor_faces"}, Force: true, IgnoreRecentlyWalked: true}), 3*time.Minute)
	again, err := store.FaceDescriptorsOf(f.db, ids...)
	if err != nil || len(again) != 2 || !again[0].CreatedAt.After(a.CreatedAt) {
		t.Fatalf("after a second harvest: %d faces, %v: %v then %v", len(again), err, a.CreatedAt, again[0].CreatedAt)
	}
	page, err := store.FaceDescriptorsAfter(f.db, store.FaceCursor{}, 1)
	if err != nil || len(page) != 1 {
		t.Fatalf("page: %v, %v", page, err)
	}
	rest, err := store.FaceDescriptorsAfter(f.db, store.FaceCursor{ItemID: page[0].ItemID, Extractor: page[0].Extractor, Face: page[0].Face}, 10)
	if err != nil || len(rest) != 1 || rest[0].ItemID == page[0].ItemID {
		t.Fatalf("next page: %v, %v", rest, err)
	}

	// Deleted with the item.
	if err := f.db.Transaction(func(tx *store.DB) error { _, err := store.SoftDeleteItem(tx, a.ItemID); return err }); err != nil {
		t.Fatal(err)
	}
	if n := f.count(&faceRow{}, "item_id = ?", a.ItemID); n != 0 {
		t.Errorf("%d faces of the deleted item", n)
	}
	// FACIAL_RECOGNITION turned off: all go.
	n, err := store.DeleteAllFaceDescriptors(context.Background(), f.db)
	if err != nil || n != 1 {
		t.Errorf("deleted %d, %v", n, err)
	}
}

// faceRow maps face_descriptors for counting.
type faceRow struct{ ItemID string }

func (faceRow) TableName() string { return "face_descriptors" }

// Without the sidecar, a harvest naming vendor_faces records it as not
// available on the pictures and goes on with the other extractors.
func TestHarvestWithoutVisionSidecar(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, map[string]string{"VISION_SIDECAR_DIR": t.TempDir()}, "store", "mime_type", "hashes", "vendor_faces")
	f := newFixture(t, reg)
	f.copySample("faces/testdata/astronaut.png", "astronaut.png")
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"hashes", "vendor_faces"}})
	job := f.waitJob(req, time.Minute)
	var acts []models.Activity
	f.db.Where("request_id = ? AND kind = ? AND name = 'vendor_faces'", req, models.ActivityExtractor).Find(&acts)
	if job.WalkedCount != 1 || len(acts) != 1 || !strings.Contains(acts[0].Error, "not available: vision sidecar not installed") {
		t.Fatalf("job %+v, activities %+v", job, acts)
	}
	var it models.Item
	f.db.Take(&it)
	if !strings.Contains(string(it.Metadata), `"hashes"`) {
		t.Errorf("the other extractors did not run: %s", it.Metadata)
	}
}
