// Package worker runs the asynq server of metaharvest: the walk, item
// harvest, index and maintenance task handlers. Handlers are idempotent: a
// task delivered twice leaves the same rows as once. Every worker process
// also registers itself and takes over the tasks of dead ones within
// seconds (reaper.go).
package worker
