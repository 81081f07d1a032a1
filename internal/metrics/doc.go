// Package metrics is what the platform measures and how /metrics shows it.
//
// The counters and histograms (HTTP requests, tasks, items, extractor runs,
// search calls) are recorded by whichever process does the work, kept in
// memory and added every second to deployment-wide totals in Redis
// (Recorder). The api's /metrics reads those totals, so one scrape of any api
// replica shows the whole deployment: work done by a worker that KEDA has
// since scaled away is still counted, and two api replicas answer the same.
// Gauges are read when scraped from where the truth is: queue depths and
// latencies from asynq, the search outbox from Postgres, connection pools
// from what each process published last (Registry).
//
// Nothing here imports the extractors, search or api packages: they report
// through small hooks (extractors.Config.Observer, search.Observed) that
// main wires to a Recorder.
package metrics
