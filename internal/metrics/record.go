package metrics

import (
	"strconv"
	"time"
)

// The helpers below are what the measuring points call.

// HTTP records one answered request; route is the route template
// ("/api/data/items/:id"), never the raw path, so series stay few.
func (r *Recorder) HTTP(route, method string, status int, took time.Duration) {
	r.Add(HTTPRequests, 1, route, method, strconv.Itoa(status))
	r.Observe(HTTPDuration, took.Seconds(), route, method)
}

// Task records one run of a task handler.
func (r *Recorder) Task(typ string, took time.Duration, failed bool) {
	r.Add(TasksProcessed, 1, typ)
	if failed {
		r.Add(TasksFailed, 1, typ)
	}
	r.Observe(TaskDuration, took.Seconds(), typ)
}

// TaskRetried records a failed task that will run again.
func (r *Recorder) TaskRetried(typ string) { r.Add(TasksRetried, 1, typ) }

// Items records the files a harvest batch finished (counted once per
// request, as the job's counters are).
func (r *Recorder) Items(harvested, failed int64) {
	r.Add(ItemsHarvested, float64(harvested))
	r.Add(ItemsFailed, float64(failed))
}

// Extractor records one extractor run on one file.
func (r *Recorder) Extractor(name string, took time.Duration, failed bool) {
	r.Observe(ExtractorDuration, took.Seconds(), name)
	if failed {
		r.Add(ExtractorErrors, 1, name)
	}
}

// Search records one call to the search engine.
func (r *Recorder) Search(op string, took time.Duration, failed bool) {
	r.Observe(SearchDuration, took.Seconds(), op)
	if failed {
		r.Add(SearchErrors, 1, op)
	}
}

// Requeued records tasks a stopping worker gave back to their queue.
func (r *Recorder) Requeued(n int) { r.Add(ShutdownsRequeued, float64(n)) }

// S3Retry records one S3 attempt that failed in a way that is retried
// (reason: storage.Retry*).
func (r *Recorder) S3Retry(reason string) { r.Add(S3Retries, 1, reason) }
