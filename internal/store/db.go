package store

import (
	"errors"

	"gorm.io/gorm"
)

// DB is what the queries run on: the request's database handle (with its
// context) or a transaction. The api's handlers, the web pages, the
// scheduler, the job starter and the worker name it as store.DB and pass it
// on; only this package (and the models' migrations) speaks to the
// database driver, so that no handler, page or task handler imports gorm
// (TestHandlersDoNotImportTheDriver). It is an alias: a handler receives a
// transaction from Audited or Transaction and hands it to the queries.
type DB = gorm.DB

// IsDuplicate reports whether err is a unique-constraint violation (the
// api answers 409).
func IsDuplicate(err error) bool { return errors.Is(err, gorm.ErrDuplicatedKey) }
