package store

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Reference pictures a person is taught from (person_references,
// migrations 00018 and 00023; docs/people.md "Teaching a person"). The api
// stores the picture in the artifact store and a pending row; a worker
// describes it (ready with its descriptor and code, or failed with its
// error); the assigner then names the faces that match it (applied).

// ReferencePrefix is the artifact-store folder of reference pictures:
// people/<person>/<reference>.<ext> and its face crop
// people/<person>/<reference>-face.jpg.
const ReferencePrefix = "people/"

// PersonReference is a reference picture as the API shows it.
type PersonReference struct {
	ID          int64
	PersonID    string
	Picture     string
	Thumbnail   string
	Status      string
	Error       string
	Applied     bool
	CreatedBy   string
	CreatedAt   time.Time
	DescribedAt *time.Time
}

const referenceColumns = `id, person_id, picture, thumbnail, status, error, applied, created_by, created_at, described_at`

// NewTaughtPerson creates a named person (is_known) to teach.
func NewTaughtPerson(tx *DB, id, name string, now time.Time) error {
	if err := tx.Exec(`INSERT INTO persons (id, name, is_known, created_at, updated_at) VALUES (?, ?, true, ?, ?)`,
		id, name, now, now).Error; err != nil {
		return fmt.Errorf("new person: %w", err)
	}
	return nil
}

// AddReference inserts a pending reference picture of a person (the
// person becomes known) and returns its id; picture is set by SetReferencePicture
// once its key (which holds the id) is known.
func AddReference(tx *DB, person, by string, now time.Time) (int64, error) {
	var id int64
	if err := tx.Raw(`INSERT INTO person_references (person_id, picture, created_by, created_at) VALUES (?, '', ?, ?) RETURNING id`,
		person, by, now).Scan(&id).Error; err != nil {
		return 0, fmt.Errorf("add reference of %s: %w", person, err)
	}
	if err := tx.Exec(`UPDATE persons SET is_known = true, updated_at = ? WHERE id = ?`, now, person).Error; err != nil {
		return 0, fmt.Errorf("add reference of %s: %w", person, err)
	}
	return id, nil
}

// SetReferencePicture records where a reference's picture is stored.
func SetReferencePicture(tx *DB, id int64, key string) error {
	if err := tx.Exec(`UPDATE person_references SET picture = ? WHERE id = ?`, key, id).Error; err != nil {
		return fmt.Errorf("reference %d: %w", id, err)
	}
	return nil
}

// CountReferences is the number of reference pictures of a person.
func CountReferences(db *DB, person string) (int64, error) {
	var n int64
	if err := db.Raw(`SELECT count(*) FROM person_references WHERE person_id = ?`, person).Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("references of %s: %w", person, err)
	}
	return n, nil
}

// PersonReferences lists a person's reference pictures, oldest first: all
// of them for an administrator, the viewer's own otherwise.
func PersonReferences(db *DB, v Viewer, person string) ([]PersonReference, error) {
	var out []PersonReference
	if err := db.Raw(`SELECT `+referenceColumns+` FROM person_references WHERE person_id = ? AND (? OR created_by = ?) ORDER BY id`,
		person, v.Admin, v.UserID).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("references of %s: %w", person, err)
	}
	return out, nil
}

// GetPersonReference is one reference picture of a person the viewer may
// see (an administrator's, or their own); apperr not found otherwise.
func GetPersonReference(db *DB, v Viewer, person string, id int64) (PersonReference, error) {
	var out PersonReference
	err := db.Raw(`SELECT `+referenceColumns+` FROM person_references WHERE id = ? AND person_id = ? AND (? OR created_by = ?)`,
		id, person, v.Admin, v.UserID).Take(&out).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return out, apperr.NotFound("reference picture", fmt.Sprint(id))
	}
	if err != nil {
		return out, fmt.Errorf("reference %d: %w", id, err)
	}
	return out, nil
}

// DeletedReference is what deleting a reference picture leaves to do: its
// files (keys of the artifact store) to remove after commit, and its
// person and descriptor (nil when it was never described), to let go of
// the faces it named (people.DeleteReference).
type DeletedReference struct {
	PersonID   string
	Descriptor []byte
	// Model made the descriptor ("" when never described).
	Model string
	Files []string
}

// DeleteReference deletes a reference picture. The faces it named stay
// with their person until the caller lets them go (ReleaseFaces); a
// person left without faces nor reference goes with RecountPeople.
func DeleteReference(tx *DB, id int64) (DeletedReference, error) {
	var rows []struct {
		PersonID, Picture, Thumbnail, Model string
		Descriptor                          []byte
	}
	if err := tx.Raw(`DELETE FROM person_references WHERE id = ? RETURNING person_id, picture, thumbnail, model, descriptor`, id).
		Scan(&rows).Error; err != nil {
		return DeletedReference{}, fmt.Errorf("delete reference %d: %w", id, err)
	}
	if len(rows) == 0 {
		return DeletedReference{}, apperr.NotFound("reference picture", fmt.Sprint(id))
	}
	r := rows[0]
	return DeletedReference{PersonID: r.PersonID, Descriptor: r.Descriptor, Model: r.Model, Files: referenceFiles(r.Picture, r.Thumbnail)}, nil
}

// PersonReferenceDescriptors are the descriptors of a person's described
// reference pictures made by model.
func PersonReferenceDescriptors(tx *DB, person, model string) ([][]byte, error) {
	var out [][]byte
	if err := tx.Raw(`SELECT descriptor FROM person_references WHERE person_id = ? AND status = 'ready' AND descriptor IS NOT NULL
	AND model = ? ORDER BY id`, person, model).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("reference descriptors of %s: %w", person, err)
	}
	return out, nil
}

// PersonFaceDescriptor is a face of a person with the descriptor it was
// assigned from.
type PersonFaceDescriptor struct {
	ID         int64
	ItemID     string
	Descriptor []byte
}

// UnpinnedFaceDescriptors are the faces of a person that no user put
// there, with their descriptors, of those described by model.
func UnpinnedFaceDescriptors(tx *DB, person, model string) ([]PersonFaceDescriptor, error) {
	var out []PersonFaceDescriptor
	if err := tx.Raw(`SELECT pf.id, pf.item_id, fd.descriptor
FROM person_faces pf
JOIN face_descriptors fd ON fd.item_id = pf.item_id AND fd.extractor = pf.extractor AND fd.face = pf.face
	AND fd.created_at = pf.described_at
WHERE pf.person_id = ? AND pf.code IS NOT NULL AND NOT pf.pinned AND fd.model = ? ORDER BY pf.id`, person, model).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("faces of %s: %w", person, err)
	}
	return out, nil
}

// ReleaseFaces forgets the persons of faces (ids of person_faces): their
// items are pending again, so that the assigner gives them a person as it
// does a face it never saw. It returns the items.
func ReleaseFaces(tx *DB, ids []int64) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var items []string
	if err := tx.Raw(`WITH gone AS (DELETE FROM person_faces WHERE id = ANY(?) RETURNING item_id),
pending AS (INSERT INTO people_pending (item_id) SELECT DISTINCT item_id FROM gone ON CONFLICT (item_id) DO NOTHING)
SELECT DISTINCT item_id FROM gone ORDER BY item_id`, int64s(ids)).Scan(&items).Error; err != nil {
		return nil, fmt.Errorf("release faces: %w", err)
	}
	return items, nil
}

func referenceFiles(keys ...string) []string {
	var out []string
	for _, k := range keys {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// PendingReference is a reference picture waiting to be described.
type PendingReference struct {
	ID       int64
	PersonID string
	Picture  string
}

// TakePendingReference locks the oldest pending reference picture that no
// other transaction holds; ok false when there is none.
func TakePendingReference(tx *DB) (PendingReference, bool, error) {
	var rows []PendingReference
	if err := tx.Raw(`SELECT id, person_id, picture FROM person_references WHERE status = 'pending'
ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&rows).Error; err != nil {
		return PendingReference{}, false, fmt.Errorf("pending references: %w", err)
	}
	if len(rows) == 0 {
		return PendingReference{}, false, nil
	}
	return rows[0], true, nil
}

// ReferencesPending reports whether a reference picture waits to be
// described.
func ReferencesPending(db *DB) (bool, error) {
	var ok bool
	if err := db.Raw(`SELECT EXISTS (SELECT 1 FROM person_references WHERE status = 'pending')`).Scan(&ok).Error; err != nil {
		return false, fmt.Errorf("pending references: %w", err)
	}
	return ok, nil
}

// DescribedReference records a reference described: its descriptor, the
// model that made it, its code and face crop (ready).
func DescribedReference(tx *DB, id int64, descriptor []byte, model string, code []byte, thumbnail string, now time.Time) error {
	if err := tx.Exec(`UPDATE person_references SET status = 'ready', error = '', descriptor = ?, model = ?, code = ?, thumbnail = ?,
	described_at = ? WHERE id = ?`, descriptor, model, code, thumbnail, now, id).Error; err != nil {
		return fmt.Errorf("reference %d: %w", id, err)
	}
	return nil
}

// maxReferenceError bounds the error kept on a reference.
const maxReferenceError = 500

// FailedReference records why a reference picture gives no descriptor.
func FailedReference(tx *DB, id int64, problem string, now time.Time) error {
	if r := []rune(problem); len(r) > maxReferenceError {
		problem = string(r[:maxReferenceError])
	}
	if err := tx.Exec(`UPDATE person_references SET status = 'failed', error = ?, described_at = ? WHERE id = ?`,
		problem, now, id).Error; err != nil {
		return fmt.Errorf("reference %d: %w", id, err)
	}
	return nil
}

// ReadyReference is a described reference picture: what the assigner
// compares new faces with.
type ReadyReference struct {
	ID         int64
	PersonID   string
	Code       []byte
	Descriptor []byte
	// Model made the descriptor (migration 00024).
	Model   string
	Applied bool
}

// ReadyReferences lists the described reference pictures; with
// descriptors only for those not in known (the assigner's cache: id ->
// the model of the descriptor it holds) or described by another model
// since.
func ReadyReferences(tx *DB, known map[int64]string) ([]ReadyReference, error) {
	var out []ReadyReference
	if err := tx.Raw(`SELECT id, person_id, code, model, applied FROM person_references
WHERE status = 'ready' AND code IS NOT NULL AND descriptor IS NOT NULL ORDER BY id`).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("reference codes: %w", err)
	}
	var missing []int64
	for _, r := range out {
		if m, ok := known[r.ID]; !ok || m != r.Model {
			missing = append(missing, r.ID)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	var descs []struct {
		ID         int64
		Descriptor []byte
	}
	if err := tx.Raw(`SELECT id, descriptor FROM person_references WHERE id = ANY(?)`, int64s(missing)).Scan(&descs).Error; err != nil {
		return nil, fmt.Errorf("reference descriptors: %w", err)
	}
	by := map[int64][]byte{}
	for _, d := range descs {
		by[d.ID] = d.Descriptor
	}
	for i := range out {
		out[i].Descriptor = by[out[i].ID]
	}
	return out, nil
}

// RedescribeReferences sends the described reference pictures whose
// descriptor another model made, before the time given, back to be
// described (pending, to apply again once described: their faces of the
// old model named already stay named), and returns their ids. The
// assigner calls it when faces of a newer model arrive: a taught person
// is then found among them too.
func RedescribeReferences(tx *DB, model string, before time.Time) ([]int64, error) {
	var ids []int64
	if err := tx.Raw(`UPDATE person_references SET status = 'pending', applied = false
WHERE status = 'ready' AND model <> ? AND coalesce(described_at, created_at) < ? RETURNING id`, model, before).Scan(&ids).Error; err != nil {
		return nil, fmt.Errorf("describe references again: %w", err)
	}
	return ids, nil
}

// ReferencesToApply reports whether a described reference has not named
// the faces that match it yet.
func ReferencesToApply(db *DB) (bool, error) {
	var ok bool
	if err := db.Raw(`SELECT EXISTS (SELECT 1 FROM person_references WHERE status = 'ready' AND NOT applied)`).
		Scan(&ok).Error; err != nil {
		return false, fmt.Errorf("references to apply: %w", err)
	}
	return ok, nil
}

// AppliedReference marks a reference as having named its faces.
func AppliedReference(tx *DB, id int64) error {
	if err := tx.Exec(`UPDATE person_references SET applied = true WHERE id = ?`, id).Error; err != nil {
		return fmt.Errorf("reference %d: %w", id, err)
	}
	return nil
}

// ClaimedFace is a face a reference named: its item and the person it
// left.
type ClaimedFace struct {
	ItemID string
	From   string
}

// ClaimFaces puts the faces of ids on person, except faces put where they
// are by a user (pinned), faces of a person someone named or taught
// (is_known), faces marked "not this person" for person, and faces whose
// frame (item and time) already shows person. The caller passes at most
// one face of a frame.
func ClaimFaces(tx *DB, person string, ids []int64) ([]ClaimedFace, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []ClaimedFace
	if err := tx.Raw(`WITH old AS (
	SELECT f.id, f.person_id FROM person_faces f JOIN persons p ON p.id = f.person_id
	WHERE f.id = ANY(?) AND f.person_id <> ? AND f.code IS NOT NULL AND NOT f.pinned AND NOT p.is_known
		AND NOT EXISTS (SELECT 1 FROM person_exclusions e
			WHERE e.item_id = f.item_id AND e.extractor = f.extractor AND e.face = f.face AND e.person_id = ?)
		AND NOT EXISTS (SELECT 1 FROM person_faces g
			WHERE g.person_id = ? AND g.item_id = f.item_id AND g.time_ms IS NOT DISTINCT FROM f.time_ms)
	FOR UPDATE OF f)
UPDATE person_faces f SET person_id = ? FROM old WHERE f.id = old.id
RETURNING f.item_id, old.person_id AS "from"`, int64s(ids), person, person, person, person).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("name faces of %s: %w", person, err)
	}
	return out, nil
}

// KnownReferenceFiles says which of keys (artifact-store keys) are
// reference pictures or their crops: the artifact sweep keeps them.
func KnownReferenceFiles(db *DB, keys []string) (map[string]bool, error) {
	var found []string
	if err := db.Raw(`SELECT picture FROM person_references WHERE picture = ANY(?::text[])
UNION SELECT thumbnail FROM person_references WHERE thumbnail = ANY(?::text[])`, models.Strings(keys), models.Strings(keys)).
		Scan(&found).Error; err != nil {
		return nil, fmt.Errorf("look up reference pictures: %w", err)
	}
	out := make(map[string]bool, len(found))
	for _, k := range found {
		out[k] = true
	}
	return out, nil
}
