package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// A harvest is done for a user when its files are searchable: the suites
// time it from the harvest request until a search counts every file
// (searchable), and report when the job had recorded every file
// (recorded) as a second figure.
type harvestRun struct {
	locID, requestID string
	recorded         time.Duration
	searchable       time.Duration
	// freshness: for each batch commit seen while the harvest ran, how long
	// until a search counted its items (sampled runs only).
	freshness []time.Duration
}

// searchCount is how many documents of a location a search finds (an
// administrator's search filtered on the location, counted exactly by a
// terms aggregation).
func (e *env) searchCount(ctx context.Context, locID string) (int64, error) {
	return engineCount(ctx, e.engine, locID)
}

// engineCount is searchCount with an engine.
func engineCount(ctx context.Context, engine search.Engine, locID string) (int64, error) {
	res, err := engine.Search(ctx, search.Request{
		Limit:        1,
		Filters:      &search.Filters{Terms: []search.Term{{Field: search.FieldLocationID, Value: search.FlexString(locID)}}},
		Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "n", Field: search.FieldLocationID, Size: 1}}},
	}, search.Visibility{All: true})
	if err != nil {
		return 0, err
	}
	for _, b := range res.Aggregations.Terms["n"].Buckets {
		if b.Key == locID {
			return b.Count, nil
		}
	}
	return 0, nil
}

// harvestE2E starts a harvest of root's container and waits until the
// job has recorded want files and a search counts them. With sample, it
// also watches every batch commit (the job's counters move in the batch's
// transaction) and when search first counted its items, polling both
// every few milliseconds (the polls load Postgres: sampled runs are not
// the timed ones).
func (e *env) harvestE2E(ctx context.Context, root string, extractorNames []string, want int64, sample bool) (harvestRun, error) {
	start := time.Now()
	locID, req, err := e.startHarvest(ctx, root, extractorNames)
	if err != nil {
		return harvestRun{}, err
	}
	run := harvestRun{locID: locID, requestID: req}
	deadline := start.Add(30 * time.Minute)
	var commits, searches []seen
	interval := 20 * time.Millisecond
	if sample {
		interval = 5 * time.Millisecond
	}
	for run.recorded == 0 || run.searchable == 0 {
		if time.Now().After(deadline) {
			return run, fmt.Errorf("harvest of %s not searchable after 30 minutes", root)
		}
		if run.recorded == 0 {
			// The job row is a primary-key read; a count(*) every few ms
			// would itself load Postgres.
			var job models.Job
			if err := e.db.Where("request_id = ?", req).Take(&job).Error; err != nil {
				return run, err
			}
			done := job.IndexedCount + job.ErrorCount
			if len(commits) == 0 || commits[len(commits)-1].n != done {
				commits = append(commits, seen{time.Now(), done})
			}
			if job.WalkComplete && done >= want {
				run.recorded = time.Since(start)
			}
		}
		// Search is polled while the job runs only when sampling; else from
		// the moment the job is done.
		if sample || run.recorded != 0 {
			// A search counts what was committed when it started: that is
			// the moment it stands for, however long it takes.
			asked := time.Now()
			n, err := e.searchCount(ctx, locID)
			if err != nil {
				return run, err
			}
			searches = append(searches, seen{asked, n})
			if n >= want && run.searchable == 0 {
				run.searchable = asked.Sub(start)
			}
			if n > want {
				return run, fmt.Errorf("search counts %d documents of %d files", n, want)
			}
		}
		if run.recorded == 0 || run.searchable == 0 {
			time.Sleep(interval)
		}
	}
	run.searchable = max(run.searchable, run.recorded)
	var n int64
	e.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'harvestend'", req).Count(&n)
	if n < want {
		return run, fmt.Errorf("harvest of %s: job counters say done but %d of %d items have ended", root, n, want)
	}
	if sample {
		run.freshness = freshness(commits, searches)
	}
	return run, nil
}

// seen is a count at a moment: of files a job had recorded (a batch
// commit), or of documents a search found.
type seen struct {
	at time.Time
	n  int64
}

// freshness is, for each batch commit seen, how long until a search
// counted its items: the first search started after the commit that
// counted at least as many.
func freshness(commits, searches []seen) []time.Duration {
	var out []time.Duration
	for _, c := range commits {
		if c.n == 0 {
			continue
		}
		i := sort.Search(len(searches), func(i int) bool { return !searches[i].at.Before(c.at) && searches[i].n >= c.n })
		for i < len(searches) && searches[i].n < c.n {
			i++
		}
		if i < len(searches) {
			out = append(out, searches[i].at.Sub(c.at))
		}
	}
	return out
}

// harvest is a harvest's time until the job recorded every file (the
// extractor suite compares extractors with their bare tools on it).
func (e *env) harvest(ctx context.Context, root string, extractorNames []string, want int64) (time.Duration, error) {
	run, err := e.harvestE2E(ctx, root, extractorNames, want, false)
	return run.recorded, err
}
