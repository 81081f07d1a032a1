package store

import (
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Keyword groups: named, coloured lists of words shared by the whole
// platform, in name order (case-insensitive). Names are unique whatever
// their case (409 name_taken).

// KeywordGroup loads a keyword group: 404 when unknown.
func KeywordGroup(db *gorm.DB, id string) (models.KeywordGroup, error) {
	return TakeWhere[models.KeywordGroup](db.Where("id = ?", id), "keyword group", ShortID(id))
}

// LockKeywordGroup loads a keyword group in tx and locks it until tx
// ends: 404 when unknown.
func LockKeywordGroup(tx *gorm.DB, id string) (models.KeywordGroup, error) {
	return TakeWhere[models.KeywordGroup](tx.Where("id = ?", id).Clauses(clause.Locking{Strength: "UPDATE"}),
		"keyword group", ShortID(id))
}

// KeywordGroups lists the keyword groups in name order, at most limit of
// them (limit <= 0: all).
func KeywordGroups(db *gorm.DB, limit int) ([]models.KeywordGroup, error) {
	q := db.Order("lower(name), id")
	if limit > 0 {
		q = q.Limit(limit)
	}
	var rows []models.KeywordGroup
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list keyword groups: %w", err)
	}
	return rows, nil
}

func keywordGroupNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "a keyword group named %q exists", name) }
}

// CreateKeywordGroup inserts g in tx unless the platform has max keyword
// groups already (409 too_many_keyword_groups); 409 name_taken when its
// name is.
func CreateKeywordGroup(tx *gorm.DB, g *models.KeywordGroup, max int64) error {
	var n int64
	if err := tx.Model(&models.KeywordGroup{}).Count(&n).Error; err != nil {
		return fmt.Errorf("count keyword groups: %w", err)
	}
	if n >= max {
		return apperr.Conflict(apperr.CodeTooManyKeywordGroups, "the platform has %d keyword groups, the most it keeps", n)
	}
	return Insert(tx, g, keywordGroupNameTaken(g.Name))
}

// SaveKeywordGroup saves g's name, colour and words in tx; 409 name_taken
// when the name is another group's.
func SaveKeywordGroup(tx *gorm.DB, g *models.KeywordGroup) error {
	return keywordGroupNameTaken(g.Name)(tx.Select("name", "color", "words", "updated_at").Save(g).Error)
}

// DeleteKeywordGroup deletes a keyword group in tx: 404 when unknown.
func DeleteKeywordGroup(tx *gorm.DB, id string) error {
	res := tx.Delete(&models.KeywordGroup{}, "id = ?", id)
	if res.Error != nil {
		return fmt.Errorf("delete keyword group %s: %w", ShortID(id), res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("keyword group", ShortID(id))
	}
	return nil
}
