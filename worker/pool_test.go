package worker

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// keyPerFile reports a field named after the file: every batch brings the
// search engine paths it has not seen.
type keyPerFile struct{}

func (keyPerFile) Extract(_ context.Context, in *extractors.Input) (*extractors.Result, error) {
	return &extractors.Result{Data: map[string]any{"k_" + path.Base(in.Name): 1}}, nil
}

// A worker with more tasks than its pool has connections still finishes:
// a batch's transaction holds a connection and the Postgres engine writes
// the paths it has not seen on a second one, so that batches recorded at
// once past half the pool would each wait for a connection another holds.
func TestHarvestWithMoreTasksThanConnections(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, nil, "store", "mime_type")
	reg.MustRegister(extractors.Info{Name: "keys", Family: extractors.FamilyTechnical, DisplayName: "Keys", Version: "1",
		Implemented: true, DefaultEnabled: true, New: func(extractors.Env) (extractors.Extractor, error) { return keyPerFile{}, nil }})
	f := newFixture(t, reg)
	// The worker's own handle on the test's database, with a small pool:
	// the test reads the job through its own.
	var name string
	if err := f.db.Raw(`SELECT current_database()`).Scan(&name).Error; err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(testdb.AdminURL())
	u.Path = "/" + name
	db, err := models.Open(u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s, err := db.DB(); err == nil {
			s.Close()
		}
	})
	models.SizePool(db, 4)
	eng, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	f.deps.DB, f.deps.Search = db, eng
	f.deps.Config.DBMaxConns = 4
	f.deps.Config.WorkerConcurrency = 8
	f.deps.Config.HarvestBatchFiles = 2
	const n = 48
	for i := range n {
		f.write(fmt.Sprintf("d%d/f%02d.txt", i%6, i), fmt.Sprint(i))
	}
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"keys"}, OverrideExtractors: true, Force: true})
	if job := f.waitJob(req, 2*time.Minute); job.IndexedCount != n || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}
}
