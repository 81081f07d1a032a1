package metrics

// Names of the recorded series (counters and histograms kept in Redis).
const (
	HTTPRequests      = "metaharvest_http_requests_total"
	HTTPDuration      = "metaharvest_http_request_duration_seconds"
	TasksProcessed    = "metaharvest_tasks_processed_total"
	TasksFailed       = "metaharvest_tasks_failed_total"
	TasksRetried      = "metaharvest_tasks_retried_total"
	TaskDuration      = "metaharvest_task_duration_seconds"
	ItemsHarvested    = "metaharvest_items_harvested_total"
	ItemsFailed       = "metaharvest_items_failed_total"
	ExtractorDuration = "metaharvest_extractor_duration_seconds"
	ExtractorErrors   = "metaharvest_extractor_errors_total"
	SearchDuration    = "metaharvest_search_duration_seconds"
	SearchErrors      = "metaharvest_search_errors_total"
	ShutdownsRequeued = "metaharvest_shutdown_requeued_tasks_total"
	S3Retries         = "metaharvest_s3_retries_total"
)

// Names of the series read when scraped.
const (
	QueueTasks       = "metaharvest_queue_tasks"
	QueueLatency     = "metaharvest_queue_latency_seconds"
	QueueProcessed   = "metaharvest_queue_processed_total"
	QueueFailed      = "metaharvest_queue_failed_total"
	Workers          = "metaharvest_workers"
	OutboxDepth      = "metaharvest_search_outbox_depth"
	OutboxOldest     = "metaharvest_search_outbox_oldest_seconds"
	DBConnections    = "metaharvest_db_connections"
	DBConnectionsMax = "metaharvest_db_connections_max"
	DBWaits          = "metaharvest_db_waits_total"
	DBWaitSeconds    = "metaharvest_db_wait_seconds_total"
)

type kind int

const (
	counter kind = iota
	histogram
)

// spec describes a recorded series: the only names a Recorder accepts and
// the only fields of the Redis totals the collector turns into series.
type spec struct {
	kind    kind
	help    string
	labels  []string
	buckets []float64 // histograms: upper bounds, ascending, +Inf implied
}

// Bucket sets in seconds: requests and searches are fast, extractor runs and
// tasks (a batch of up to 500 files) can take minutes.
var (
	fastBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	slowBuckets = []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900}
)

var specs = map[string]spec{
	HTTPRequests: {counter, "HTTP requests answered, by route template, method and status code.",
		[]string{"route", "method", "status"}, nil},
	HTTPDuration: {histogram, "Time to answer an HTTP request, by route template and method.",
		[]string{"route", "method"}, fastBuckets},
	TasksProcessed: {counter, "Tasks whose handler ran to its end (success or failure), by task type.",
		[]string{"type"}, nil},
	TasksFailed: {counter, "Tasks whose handler returned an error, by task type.",
		[]string{"type"}, nil},
	TasksRetried: {counter, "Failed tasks that asynq will run again (transient errors), by task type.",
		[]string{"type"}, nil},
	TaskDuration: {histogram, "Time a task handler ran, by task type.",
		[]string{"type"}, slowBuckets},
	ItemsHarvested: {counter, "Files harvested without error (recorded once per harvest request).", nil, nil},
	ItemsFailed: {counter, "Files whose harvest recorded an error (an extractor failed or was not available, the file vanished).",
		nil, nil},
	ExtractorDuration: {histogram, "Time one extractor ran on one file, by extractor.",
		[]string{"extractor"}, slowBuckets},
	ExtractorErrors: {counter, "Extractor runs that recorded an error, by extractor.",
		[]string{"extractor"}, nil},
	SearchDuration: {histogram, "Time of a call to the search engine, by operation (search, segments, upsert, delete...).",
		[]string{"operation"}, fastBuckets},
	SearchErrors: {counter, "Calls to the search engine that failed, by operation.",
		[]string{"operation"}, nil},
	S3Retries: {counter, "S3 request attempts that failed in a way that is retried with backoff and jitter, by reason (slow_down: 503 or 429, server_error: other 5xx, timeout, network); the last attempt of a request that gives up counts too.",
		[]string{"reason"}, nil},
	ShutdownsRequeued: {counter, "Tasks a stopping worker could not finish within SHUTDOWN_TIMEOUT and gave back to their queue.",
		nil, nil},
}

// Documented lists every series /metrics may show with its help text (for
// docs/operations.md and the tests that check deployment manifests against it).
func Documented() map[string]string {
	out := map[string]string{}
	for name, s := range specs {
		out[name] = s.help
	}
	for _, d := range gaugeDescs() {
		out[d.name] = d.help
	}
	return out
}
