// Package store is the one store layer: it holds the database work of the
// api, the web pages, the scheduler and the job starter (internal/jobs),
// one file per resource (roles.go, users.go, compilations.go ...), below
// the HTTP handlers: a handler decodes and validates a request, calls the
// queries of its resource and renders what they return. The generic helpers of generic.go
// are the patterns every resource repeats: load one row or answer 404
// (Take, TakeVisible), list one page of rows with their total (List), run a
// change and its audit event in one transaction (Audited, Update, Delete),
// and turn a unique-name violation into 409 name_taken (NameTaken).
//
// Queries take a *gorm.DB that already carries the request's context
// (db.WithContext), or the transaction they are part of. Errors are either
// *apperr.Error values a client may see (404, 409) or wrapped database
// errors the api renders as 500.
package store
