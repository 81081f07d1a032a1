package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// Face descriptors (table face_descriptors, migration 00017): what
// vendor_faces found out about each face it described, apart from the
// item's data and from the search documents. A face is identified by its
// item, its extractor and its index in that extractor's data "faces"
// list.

// FaceDescriptor is one stored face.
type FaceDescriptor struct {
	ItemID    string
	Extractor string
	// Face is the index of the face in the extractor's data "faces".
	Face int
	// PersonID is the person of the item the face belongs to (data
	// "people": faces grouped by position and by descriptor).
	PersonID string
	// TimeMS is the video frame's time in milliseconds; nil for a picture.
	TimeMS *int64
	// Box is the face's rectangle in the upright picture or the frame.
	Left, Top, Width, Height float64
	// Thumbnail is the crop of the face, from the artifact root ("" when none).
	Thumbnail string
	// Model made the descriptor ("human-faceres+faceres-deep 3.3.6/3.0.4";
	// "human-faceres 3.3.6" before): descriptors of different models never
	// compare.
	Model string
	// Descriptor is facedesc.Quantize's bytes; Vector decodes it.
	Descriptor []byte
	CreatedAt  time.Time
}

// Vector is the descriptor as numbers (L2-normalised, up to
// quantisation), for facedesc.Cosine.
func (f FaceDescriptor) Vector() ([]float32, error) { return facedesc.Dequantize(f.Descriptor) }

// FaceRows are face descriptors to insert, column by column (the worker's
// batch); TimeMS < 0 is a picture's face (no time).
type FaceRows struct {
	Item, Extractor, PersonID, Thumbnail, Model []string
	Face                                        []int32
	TimeMS                                      []int64
	Left, Top, Width, Height                    []float32
	Descriptor                                  [][]byte
}

// InsertFaceDescriptors writes face descriptors made at now; a face of
// the same item, extractor and index is replaced.
func InsertFaceDescriptors(tx *DB, r FaceRows, now time.Time) error {
	if len(r.Item) == 0 {
		return nil
	}
	if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, `
INSERT INTO face_descriptors (item_id, extractor, face, person_id, time_ms, box_left, box_top, box_width, box_height,
	thumbnail, model, descriptor, created_at)
SELECT x.item_id, x.extractor, x.face, x.person_id, NULLIF(x.time_ms, -1), x.l, x.t, x.w, x.h, x.thumbnail, x.model, x.descriptor, $13
FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::int8[], $6::float4[], $7::float4[], $8::float4[], $9::float4[],
	$10::text[], $11::text[], $12::bytea[])
	AS x(item_id, extractor, face, person_id, time_ms, l, t, w, h, thumbnail, model, descriptor)
ON CONFLICT (item_id, extractor, face) DO UPDATE SET person_id = EXCLUDED.person_id, time_ms = EXCLUDED.time_ms,
	box_left = EXCLUDED.box_left, box_top = EXCLUDED.box_top, box_width = EXCLUDED.box_width, box_height = EXCLUDED.box_height,
	thumbnail = EXCLUDED.thumbnail, model = EXCLUDED.model, descriptor = EXCLUDED.descriptor, created_at = EXCLUDED.created_at`,
		r.Item, r.Extractor, r.Face, r.PersonID, r.TimeMS, r.Left, r.Top, r.Width, r.Height, r.Thumbnail, r.Model, r.Descriptor, now); err != nil {
		return fmt.Errorf("insert face descriptors: %w", err)
	}
	return nil
}

const faceColumns = `f.item_id, f.extractor, f.face, f.person_id, f.time_ms, f.box_left, f.box_top, f.box_width, f.box_height,
	f.thumbnail, f.model, f.descriptor, f.created_at`

func scanFaces(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}) ([]FaceDescriptor, error) {
	defer rows.Close()
	var out []FaceDescriptor
	for rows.Next() {
		var f FaceDescriptor
		var l, t, w, h float32
		if err := rows.Scan(&f.ItemID, &f.Extractor, &f.Face, &f.PersonID, &f.TimeMS, &l, &t, &w, &h, &f.Thumbnail, &f.Model,
			&f.Descriptor, &f.CreatedAt); err != nil {
			return nil, err
		}
		f.Left, f.Top, f.Width, f.Height = float64(l), float64(t), float64(w), float64(h)
		out = append(out, f)
	}
	return out, rows.Err()
}

// FaceDescriptorsOf lists the stored faces of the live items given, by
// item, extractor and face index. A deleted item (deleted_at set) has
// none.
func FaceDescriptorsOf(db *gorm.DB, itemIDs ...string) ([]FaceDescriptor, error) {
	if len(itemIDs) == 0 {
		return nil, nil
	}
	return queryFaces(db, `f.item_id IN ? ORDER BY f.item_id, f.extractor, f.face`, itemIDs)
}

// queryFaces reads the faces of live items matching where (and its
// order), args its arguments.
func queryFaces(db *gorm.DB, where string, args ...any) ([]FaceDescriptor, error) {
	rows, err := db.Raw(`SELECT `+faceColumns+` FROM face_descriptors f JOIN items i ON i.id = f.item_id
WHERE i.deleted_at IS NULL AND `+where, args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("face descriptors: %w", err)
	}
	out, err := scanFaces(rows)
	if err != nil {
		return nil, fmt.Errorf("face descriptors: %w", err)
	}
	return out, nil
}

// FaceCursor is where FaceDescriptorsAfter goes on: the last face of the
// page before (zero value: from the start).
type FaceCursor struct {
	ItemID, Extractor string
	Face              int
}

// FaceDescriptorsAfter pages through every stored face of the live items,
// by item, extractor and face index: at most limit (1 to 10000) after
// the cursor. The next page starts after the last face returned.
func FaceDescriptorsAfter(db *gorm.DB, after FaceCursor, limit int) ([]FaceDescriptor, error) {
	limit = max(1, min(limit, 10000))
	return queryFaces(db, `(f.item_id, f.extractor, f.face) > (?, ?, ?) ORDER BY f.item_id, f.extractor, f.face LIMIT ?`,
		after.ItemID, after.Extractor, after.Face, limit)
}

// CountFaceDescriptors is the number of faces stored.
func CountFaceDescriptors(db *gorm.DB) (int64, error) {
	var n int64
	if err := db.Raw(`SELECT count(*) FROM face_descriptors`).Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("count face descriptors: %w", err)
	}
	return n, nil
}

// DeleteAllFaceDescriptors deletes every stored face descriptor, in
// batches of 10000 (FACIAL_RECOGNITION turned off), and returns how many
// went.
func DeleteAllFaceDescriptors(ctx context.Context, db *gorm.DB) (int64, error) {
	var total int64
	for {
		res := db.WithContext(ctx).Exec(`DELETE FROM face_descriptors WHERE ctid IN (SELECT ctid FROM face_descriptors LIMIT 10000)`)
		if res.Error != nil {
			return total, fmt.Errorf("delete face descriptors: %w", res.Error)
		}
		total += res.RowsAffected
		if res.RowsAffected == 0 {
			return total, nil
		}
	}
}
