package store

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

// Scope narrows a query (a where clause, a join); nil narrows nothing.
type Scope func(*gorm.DB) *gorm.DB

func apply(q *gorm.DB, scopes ...Scope) *gorm.DB {
	for _, s := range scopes {
		if s != nil {
			q = s(q)
		}
	}
	return q
}

// Take loads the one row of T whose primary key is id (narrowed by
// scopes): apperr.NotFound(kind, id) when there is none.
func Take[T any](db *gorm.DB, kind, id string, scopes ...Scope) (T, error) {
	return TakeWhere[T](apply(db, scopes...).Where("id = ?", id), kind, id)
}

// TakeWhere loads the one row of T that q (already narrowed to it)
// finds: apperr.NotFound(kind, id) when there is none.
func TakeWhere[T any](q *gorm.DB, kind, id string) (T, error) {
	var row T
	err := q.Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return row, apperr.NotFound(kind, id)
	}
	if err != nil {
		return row, fmt.Errorf("load %s %s: %w", kind, id, err)
	}
	return row, nil
}

// TakeVisible is Take for objects some callers may not know about: a row
// that exists but that visible (the caller's view, e.g. "public OR
// author_id = me") excludes answers 404 too, so that its id does not leak.
// visible nil (an administrator) sees every row.
func TakeVisible[T any](db *gorm.DB, kind, id string, visible Scope) (T, error) {
	return Take[T](db, kind, id, visible)
}

// ShortID is an id as an answer repeats it: its first 64 bytes, so that a
// client's over-long id is not echoed back whole.
func ShortID(id string) string {
	if len(id) > 64 {
		return id[:64]
	}
	return id
}

// Page is a window of a list addressed by offset.
type Page struct {
	Limit  int
	Offset int
}

// List returns one page of the rows of T matching q (already narrowed to
// the model and its conditions), in order, and how many rows match in all.
func List[T any](q *gorm.DB, p Page, order string) ([]T, int64, error) {
	var total int64
	var model T
	if err := q.Model(&model).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count %T: %w", model, err)
	}
	rows := []T{}
	if int64(p.Offset) >= total {
		return rows, total, nil
	}
	if err := q.Order(order).Limit(p.Limit).Offset(p.Offset).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("list %T: %w", model, err)
	}
	return rows, total, nil
}

// NameTaken turns a unique-index violation into 409 name_taken with the
// message given; other errors pass through.
func NameTaken(err error, format string, args ...any) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return apperr.Conflict(apperr.CodeNameTaken, format, args...)
	}
	return err
}

// Event is an audit event: who did what to which object.
type Event struct {
	UserID       string
	Kind         string
	Action       string
	TargetID     string
	AdditionalID string
}

// Record writes ev in tx, the transaction of the change it records, so that
// an action and its record commit together.
func Record(tx *gorm.DB, ev Event) error {
	err := tx.Create(&models.AuditEvent{ID: ids.New(), UserID: ev.UserID, ActionKey: ev.Action,
		TargetKind: ev.Kind, TargetID: ev.TargetID, AdditionalID: ev.AdditionalID, Time: time.Now().UTC()}).Error
	if err != nil {
		return fmt.Errorf("record audit event %s/%s: %w", ev.Kind, ev.Action, err)
	}
	return nil
}

// Audited runs change and records ev in one transaction.
func Audited(db *gorm.DB, ev Event, change func(tx *gorm.DB) error) error {
	return db.Transaction(func(tx *gorm.DB) error {
		if err := change(tx); err != nil {
			return err
		}
		return Record(tx, ev)
	})
}

// Update saves the given columns of row (a pointer to a model whose
// primary key is set; updated_at is saved too) and records ev, in one
// transaction. A unique-index violation is passed to taken (NameTaken),
// when given.
func Update(db *gorm.DB, ev Event, row any, taken func(error) error, columns ...string) error {
	return Audited(db, ev, func(tx *gorm.DB) error {
		err := tx.Select(append(columns, "updated_at")).Save(row).Error
		if err != nil && taken != nil {
			return taken(err)
		}
		return err
	})
}

// Delete deletes the row of T with primary key id and records ev, in one
// transaction; apperr.NotFound(kind, id) when no row went.
func Delete[T any](db *gorm.DB, ev Event, kind, id string) error {
	return Audited(db, ev, func(tx *gorm.DB) error {
		var model T
		res := tx.Where("id = ?", id).Delete(&model)
		if res.Error != nil {
			return fmt.Errorf("delete %s %s: %w", kind, id, res.Error)
		}
		if res.RowsAffected == 0 {
			return apperr.NotFound(kind, id)
		}
		return nil
	})
}

// Insert creates row (a pointer to a model) in tx; a unique-index
// violation is passed to taken (NameTaken), when given.
func Insert(tx *gorm.DB, row any, taken func(error) error) error {
	if err := tx.Create(row).Error; err != nil {
		if taken != nil && errors.Is(err, gorm.ErrDuplicatedKey) {
			return taken(err)
		}
		return fmt.Errorf("insert %T: %w", row, err)
	}
	return nil
}
