// Package store is the one store layer: it holds the database work of the
// api, the web pages, the scheduler, the job starter (internal/jobs) and
// the worker, one file per resource (roles.go, users.go, compilations.go
// ...), below the HTTP handlers and the task handlers: a handler decodes
// and validates a request, calls the queries of its resource and renders
// what they return. The generic helpers of generic.go are the patterns
// every resource repeats: load one row or answer 404 (Take, TakeVisible),
// list one page of rows with their total (List), run a change and its
// audit event in one transaction (Audited, Update, Delete), and turn a
// unique-name violation into 409 name_taken (NameTaken).
//
// The worker's statements are the hot path of a harvest (harvesttarget.go,
// walk.go, harvestitems.go, harvestactivity.go, harvestmedia.go): they pass
// rows column by column as Postgres arrays, and a task's writes run in its
// one transaction.
//
// The search package's indexing pipeline (its outbox, and the rows search
// documents and segments are built from) has its statements here too, in
// the files named search*.go (store does not import search; the media
// types both use are in models). Only search/indexer.go, which LISTENs for the
// outbox's notifications on a connection of its own, speaks to the driver
// there (TestSearchDoesNotImportTheDriver); the engines (search/postgres,
// search/meili) keep their indexes with statements of their own.
//
// Queries take a *gorm.DB that already carries the request's context
// (db.WithContext), or the transaction they are part of. Errors are either
// *apperr.Error values a client may see (404, 409) or wrapped database
// errors the api renders as 500.
package store
