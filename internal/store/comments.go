package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Comments are versioned: the first version's id names the comment
// (RootID), an update adds a version (ParentID = RootID) and only the
// newest version is current. A delete marks every version deleted.

// Comment loads the current version of the comment that id names (the id
// of any of its versions): 404 when unknown or deleted.
func Comment(db *gorm.DB, id string) (models.Comment, error) {
	var c models.Comment
	err := db.Where("root_id = (SELECT root_id FROM comments WHERE id = ?) AND current AND NOT deleted", id).
		Limit(1).Find(&c).Error
	if err != nil {
		return c, fmt.Errorf("load comment %s: %w", id, err)
	}
	if c.ID == "" {
		return c, apperr.NotFound("comment", id)
	}
	return c, nil
}

// TargetComments lists one page of the current comments on a target, in
// the order they were first written.
func TargetComments(db *gorm.DB, targetType, targetID string, p Page) ([]models.Comment, int64, error) {
	q := db.Where("target_type = ? AND target_id = ? AND current AND NOT deleted", targetType, targetID)
	return List[models.Comment](q, p, "created_at, root_id")
}

// CommentHistory lists one page of the versions of a comment by date.
func CommentHistory(db *gorm.DB, rootID string, p Page) ([]models.Comment, int64, error) {
	return List[models.Comment](db.Where("root_id = ?", rootID), p, "ctime, id")
}

// CreateComment inserts the first version of a comment (c.ID set) in tx.
func CreateComment(tx *gorm.DB, c *models.Comment) error {
	now := time.Now().UTC()
	c.RootID, c.ParentID, c.Current, c.Deleted = c.ID, "", true, false
	c.CreatedAt, c.CTime = now, now
	if err := tx.Create(c).Error; err != nil {
		return fmt.Errorf("create comment: %w", err)
	}
	return nil
}

// AddCommentVersion makes a new current version id of the comment whose
// current version is cur, with a new body and time marker, in tx. The
// comment is locked first, so that two concurrent updates make two
// versions one after the other, never two current ones.
func AddCommentVersion(tx *gorm.DB, cur models.Comment, id, body, timeMarker string) (models.Comment, error) {
	var locked []string
	if err := tx.Raw(`SELECT id FROM comments WHERE id = ? FOR UPDATE`, cur.RootID).Scan(&locked).Error; err != nil {
		return cur, fmt.Errorf("lock comment %s: %w", cur.RootID, err)
	}
	res := tx.Exec(`UPDATE comments SET current = false WHERE root_id = ? AND current AND NOT deleted`, cur.RootID)
	if res.Error != nil {
		return cur, fmt.Errorf("supersede comment %s: %w", cur.RootID, res.Error)
	}
	if res.RowsAffected == 0 {
		return cur, apperr.NotFound("comment", cur.RootID) // deleted meanwhile
	}
	next := cur
	next.ID = id
	next.ParentID = cur.RootID
	next.Body, next.TimeMarker = body, timeMarker
	next.Current, next.Deleted = true, false
	next.CTime = time.Now().UTC()
	if err := tx.Create(&next).Error; err != nil {
		return cur, fmt.Errorf("add version of comment %s: %w", cur.RootID, err)
	}
	return next, nil
}

// DeleteComment marks every version of a comment deleted in tx.
func DeleteComment(tx *gorm.DB, rootID string) error {
	res := tx.Exec(`UPDATE comments SET deleted = true WHERE root_id = ? AND NOT deleted`, rootID)
	if res.Error != nil {
		return fmt.Errorf("delete comment %s: %w", rootID, res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("comment", rootID)
	}
	return nil
}
