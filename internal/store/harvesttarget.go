package store

import (
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/models"
)

// The rows a worker's task starts from (its job, container and location)
// and the keyed activity rows of its walk pages (worker/handler.go).

// IsNotFound reports whether err says that the row a Load function looked
// for does not exist.
func IsNotFound(err error) bool { return errors.Is(err, gorm.ErrRecordNotFound) }

// LoadJob loads the job of the request into job; IsNotFound when there is
// none.
func LoadJob(db *DB, requestID string, job *models.Job) error {
	return db.Where("request_id = ?", requestID).Take(job).Error
}

// LoadContainer loads the container into ctr; IsNotFound when there is none.
func LoadContainer(db *DB, id string, ctr *models.Container) error {
	return db.Where("id = ?", id).Take(ctr).Error
}

// LoadLocation loads the location into loc; IsNotFound when there is none.
func LoadLocation(db *DB, id string, loc *models.Location) error {
	return db.Where("id = ?", id).Take(loc).Error
}

// InsertActivity writes the activity row unless a row of its dedupe key
// exists (a row without a key is always written) and reports whether it
// was new.
func InsertActivity(tx *DB, a *models.Activity) (bool, error) {
	res := tx.Table(models.ActivitiesTable).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "dedupe_key"}},
		TargetWhere: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "dedupe_key <> ''"}}},
		DoNothing:   true}).Create(a)
	return res.RowsAffected == 1, res.Error
}
