package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Caption loads a caption of an item: 404 when the item has none of that id.
func Caption(db *gorm.DB, itemID, id string) (models.Caption, error) {
	return TakeWhere[models.Caption](db.Where("id = ? AND item_id = ?", id, itemID), "caption", id)
}

// Captions lists the captions of an item, oldest first.
func Captions(db *gorm.DB, itemID string) ([]models.Caption, error) {
	var rows []models.Caption
	if err := db.Where("item_id = ?", itemID).Order("added_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list captions of %s: %w", itemID, err)
	}
	return rows, nil
}

// CaptionCues lists the captions of an item, oldest first, with their
// cues and what names them only (no original file).
func CaptionCues(db *gorm.DB, itemID string) ([]models.Caption, error) {
	var rows []models.Caption
	if err := db.Select("id", "extractor", "source", "language", "cues").
		Where("item_id = ?", itemID).Order("added_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("cues of the captions of %s: %w", itemID, err)
	}
	return rows, nil
}

// AddUploadedCaption inserts an uploaded caption in tx unless the item has
// max uploaded captions already (409 too_many_captions).
func AddUploadedCaption(tx *gorm.DB, m *models.Caption, max int64) error {
	var n int64
	if err := tx.Model(&models.Caption{}).Where("item_id = ? AND extractor = '' AND original IS NOT NULL", m.ItemID).
		Count(&n).Error; err != nil {
		return fmt.Errorf("count captions of %s: %w", m.ItemID, err)
	}
	if n >= max {
		return apperr.Conflict(apperr.CodeTooManyCaptions, "the item has %d uploaded captions, the most it may have", n)
	}
	if err := tx.Create(m).Error; err != nil {
		return fmt.Errorf("add caption to %s: %w", m.ItemID, err)
	}
	return nil
}

// DeleteCaption deletes a caption of an item in tx.
func DeleteCaption(tx *gorm.DB, itemID, id string) error {
	if err := tx.Where("id = ? AND item_id = ?", id, itemID).Delete(&models.Caption{}).Error; err != nil {
		return fmt.Errorf("delete caption %s: %w", id, err)
	}
	return nil
}
