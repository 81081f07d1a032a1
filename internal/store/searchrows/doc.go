// Package searchrows holds the statements of the search package's
// indexing pipeline (package search, not its engines): the search outbox
// (outbox.go), the rows a search document and its segments are built from
// (documents.go), and the containers whose groups changed. It is part of
// the store layer, apart from package store because store imported search
// (its reports share models.MediaType) and search imports these
// statements: it imports nothing of metaharvest but models.
//
// As in package store, a statement runs on the *DB it is given: a handle
// that already carries its context (db.WithContext), or the transaction it
// is part of; the transactions and their savepoints stay with their
// callers in search. Errors are the database's, unwrapped: the caller says what it
// was doing.
package searchrows
