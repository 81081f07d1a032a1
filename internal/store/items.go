package store

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// LiveItem loads an item that is not deleted: 404 otherwise.
func LiveItem(db *gorm.DB, id string) (models.Item, error) {
	return TakeWhere[models.Item](db.Where("id = ? AND deleted_at IS NULL", id), "item", id)
}

// Artifacts lists the artifacts of an item by path.
func Artifacts(db *gorm.DB, itemID string) ([]models.Artifact, error) {
	var arts []models.Artifact
	if err := db.Where("item_id = ?", itemID).Order("path").Find(&arts).Error; err != nil {
		return nil, fmt.Errorf("artifacts of %s: %w", itemID, err)
	}
	return arts, nil
}

// ArtifactPaths lists the paths of the artifacts an extractor made of an
// item.
func ArtifactPaths(db *gorm.DB, itemID, extractor string) ([]string, error) {
	var paths []string
	if err := db.Model(&models.Artifact{}).Where("item_id = ? AND extractor = ?", itemID, extractor).
		Pluck("path", &paths).Error; err != nil {
		return nil, fmt.Errorf("artifacts of %s by %s: %w", itemID, extractor, err)
	}
	return paths, nil
}

// ArtifactOwner is the live item an artifact path belongs to.
type ArtifactOwner struct {
	ItemID, LocationID, ContainerID string
}

// ArtifactOwnerOf finds the live item of an artifact path; ItemID is empty
// when there is none.
func ArtifactOwnerOf(db *gorm.DB, path string) (ArtifactOwner, error) {
	var owner ArtifactOwner
	if err := db.Raw(`SELECT a.item_id, i.location_id, i.container_id
		FROM artifacts a JOIN items i ON i.id = a.item_id
		WHERE a.path = ? AND i.deleted_at IS NULL`, path).Scan(&owner).Error; err != nil {
		return owner, fmt.Errorf("owner of artifact %s: %w", path, err)
	}
	return owner, nil
}

// SoftDeleteItem marks an item deleted and drops what was extracted from
// it (results, artifact rows, face descriptors) in tx; it returns the artifact paths, whose
// files the caller removes after commit.
func SoftDeleteItem(tx *gorm.DB, itemID string) ([]string, error) {
	if err := tx.Exec(`UPDATE items SET deleted_at = now(), metadata = '{}', results = '{}', harvested_etag = '', updated_at = now()
		WHERE id = ? AND deleted_at IS NULL`, itemID).Error; err != nil {
		return nil, fmt.Errorf("delete item %s: %w", itemID, err)
	}
	if err := tx.Exec(`DELETE FROM face_descriptors WHERE item_id = ?`, itemID).Error; err != nil {
		return nil, fmt.Errorf("delete face descriptors of %s: %w", itemID, err)
	}
	var files []string
	if err := tx.Raw(`DELETE FROM artifacts WHERE item_id = ? RETURNING path`, itemID).Scan(&files).Error; err != nil {
		return nil, fmt.Errorf("delete artifacts of %s: %w", itemID, err)
	}
	return files, nil
}

// ContainerExists reports whether a container has this id.
func ContainerExists(db *gorm.DB, id string) (bool, error) {
	var n int64
	if err := db.Model(&models.Container{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return false, fmt.Errorf("find container %s: %w", id, err)
	}
	return n > 0, nil
}

// UploadedFile is a file written into the upload store.
type UploadedFile struct {
	ItemID, ContainerID, Container, Path, Name, ETag string
	Size                                             int64
	LastModified                                     time.Time
}

// RecordUpload records an uploaded file in tx: its container (a new one is
// enabled, since its files arrive by upload; an existing one keeps the
// state an administrator gave it) and its item (a deleted one is revived).
func RecordUpload(tx *gorm.DB, locationID string, f UploadedFile) error {
	if err := tx.Exec(`INSERT INTO containers (id, location_id, name, enabled) VALUES (?, ?, ?, true)
		ON CONFLICT DO NOTHING`, f.ContainerID, locationID, f.Container).Error; err != nil {
		return fmt.Errorf("record container %s: %w", f.Container, err)
	}
	var modified any
	if !f.LastModified.IsZero() {
		modified = f.LastModified.UTC()
	}
	if err := tx.Exec(`INSERT INTO items (id, location_id, container_id, path, name, size, etag, last_modified)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, size = EXCLUDED.size, etag = EXCLUDED.etag,
			last_modified = EXCLUDED.last_modified, deleted_at = NULL, updated_at = now()`,
		f.ItemID, locationID, f.ContainerID, f.Path, f.Name, f.Size, f.ETag, modified).Error; err != nil {
		return fmt.Errorf("record item %s: %w", f.Path, err)
	}
	return nil
}

// CancelJob marks a job cancelled in tx.
func CancelJob(tx *gorm.DB, requestID string) error {
	if err := tx.Model(&models.Job{}).Where("request_id = ?", requestID).
		Updates(map[string]any{"cancelled": true, "updated": time.Now().UTC()}).Error; err != nil {
		return fmt.Errorf("cancel job %s: %w", requestID, err)
	}
	return nil
}

// UserByEmail loads the user with this email (case-insensitive); ok is
// false when there is none.
func UserByEmail(db *gorm.DB, email string) (u models.User, ok bool, err error) {
	err = db.Where("lower(email) = lower(?)", email).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return u, false, nil
	}
	if err != nil {
		return u, false, fmt.Errorf("find user: %w", err)
	}
	return u, true, nil
}
