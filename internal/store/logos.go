package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Logo training requests are readable by their requester and by
// administrators; to anyone else their ids are unknown (404).

// OwnLogoTrainings narrows logo training requests to those v may read.
func OwnLogoTrainings(v Viewer) Scope {
	if v.Admin {
		return nil
	}
	return func(q *gorm.DB) *gorm.DB { return q.Where("requested_by = ?", v.UserID) }
}

// LogoTraining loads a request v may read.
func LogoTraining(db *gorm.DB, v Viewer, id string) (models.LogoTrainingRequest, error) {
	return TakeVisible[models.LogoTrainingRequest](db, "logo training request", id, OwnLogoTrainings(v))
}

// LogoTrainings lists the requests v may read, newest first.
func LogoTrainings(db *gorm.DB, v Viewer) ([]models.LogoTrainingRequest, error) {
	var rows []models.LogoTrainingRequest
	if err := apply(db, OwnLogoTrainings(v)).Order("created_at DESC, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list logo training requests: %w", err)
	}
	return rows, nil
}

// LogoImages lists the images of a request.
func LogoImages(db *gorm.DB, requestID string) ([]models.LogoTrainingImage, error) {
	var rows []models.LogoTrainingImage
	if err := db.Where("request_id = ?", requestID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list images of logo training request %s: %w", requestID, err)
	}
	return rows, nil
}

// CreateLogoTraining inserts a request and its images in tx.
func CreateLogoTraining(tx *gorm.DB, r *models.LogoTrainingRequest, images []models.LogoTrainingImage) error {
	if err := tx.Create(r).Error; err != nil {
		return fmt.Errorf("create logo training request: %w", err)
	}
	if len(images) > 0 {
		if err := tx.Create(&images).Error; err != nil {
			return fmt.Errorf("create logo training images: %w", err)
		}
	}
	return nil
}

// CheckedLogoTraining records a completion check at t, and the training
// complete when complete, in tx.
func CheckedLogoTraining(tx *gorm.DB, id string, complete bool, t time.Time) error {
	if err := tx.Model(&models.LogoTrainingRequest{}).Where("id = ?", id).Updates(map[string]any{
		"training_complete": gorm.Expr("training_complete OR ?", complete), "last_checked_for_completion_at": t,
	}).Error; err != nil {
		return fmt.Errorf("record check of logo training request %s: %w", id, err)
	}
	return nil
}
