// Package scheduler plans live harvests: every HARVEST_REFRESH_TIME it
// enqueues a walk of each enabled container. Two schedulers never
// double-enqueue.
package scheduler
