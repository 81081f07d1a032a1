package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

// The statements of the people assigner (package people, docs/people.md):
// tables persons, person_faces, person_exclusions, person_references,
// person_containers and people_pending (migration 00018).

// peopleLockKey is the transaction-level advisory lock every writer of
// faces' persons holds, so that one assigns at a time in the whole fleet
// and the codes' sequence numbers commit in order.
const peopleLockKey = 0x70656f706c65 // "people"

// TryLockPeople takes the people lock for tx's transaction; false when
// another transaction holds it.
func TryLockPeople(tx *DB) (bool, error) {
	var ok bool
	if err := tx.Raw(`SELECT pg_try_advisory_xact_lock(?)`, peopleLockKey).Scan(&ok).Error; err != nil {
		return false, fmt.Errorf("people lock: %w", err)
	}
	return ok, nil
}

// LockPeople waits for the people lock for tx's transaction (user
// actions: merging, moving, deleting).
func LockPeople(tx *DB) error {
	if err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, peopleLockKey).Error; err != nil {
		return fmt.Errorf("people lock: %w", err)
	}
	return nil
}

// FaceCode is a face's code in the nearest-face index: Code nil means the
// face left the index (its person was deleted).
type FaceCode struct {
	ID   int64
	Code []byte
	Seq  int64
}

// FaceCodesAfter lists the faces whose code changed after seq, in order,
// at most limit.
func FaceCodesAfter(tx *DB, seq int64, limit int) ([]FaceCode, error) {
	var out []FaceCode
	if err := tx.Raw(`SELECT id, code, seq FROM person_faces WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit).
		Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("face codes: %w", err)
	}
	return out, nil
}

// PendingPeopleItems locks up to limit items waiting for their people,
// oldest first, skipping those another transaction holds.
func PendingPeopleItems(tx *DB, limit int) ([]string, error) {
	var ids []string
	if err := tx.Raw(`SELECT item_id FROM people_pending ORDER BY since LIMIT ? FOR UPDATE SKIP LOCKED`, limit).
		Scan(&ids).Error; err != nil {
		return nil, fmt.Errorf("pending people items: %w", err)
	}
	return ids, nil
}

// PeoplePending reports whether any item waits for its people.
func PeoplePending(db *DB) (bool, error) {
	var ok bool
	if err := db.Raw(`SELECT EXISTS (SELECT 1 FROM people_pending)`).Scan(&ok).Error; err != nil {
		return false, fmt.Errorf("pending people items: %w", err)
	}
	return ok, nil
}

// DonePeopleItems removes items from the pending list.
func DonePeopleItems(tx *DB, ids []string) error {
	if err := tx.Exec(`DELETE FROM people_pending WHERE item_id = ANY(?)`, models.Strings(ids)).Error; err != nil {
		return fmt.Errorf("pending people items: %w", err)
	}
	return nil
}

// PeopleItem is what the assigner reads of an item: where it is, whether
// it is live, its date and vendor_faces' list of faces.
type PeopleItem struct {
	ID           string
	ContainerID  string
	LocationID   string
	Live         bool
	LastModified *time.Time
	// Faces is vendor_faces' data "faces" (JSON array; null when none).
	Faces json.RawMessage
}

// PeopleItems reads the items of ids that exist (deleted ones with Live
// false).
func PeopleItems(tx *DB, ids []string) ([]PeopleItem, error) {
	var out []PeopleItem
	if err := tx.Raw(`SELECT id, container_id, location_id, deleted_at IS NULL AS live, last_modified,
	metadata->'vendor_faces'->'faces' AS faces
FROM items WHERE id = ANY(?) ORDER BY id FOR UPDATE`, models.Strings(ids)).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("people items: %w", err)
	}
	return out, nil
}

// PersonFace is a face of a person (person_faces).
type PersonFace struct {
	ID          int64
	ItemID      string
	Extractor   string
	Face        int
	ContainerID string
	PersonID    *string
	LocalPerson string
	Weight      int
	TimeMS      *int64
	FirstMS     *int64
	LastMS      *int64
	Area        float64
	Thumbnail   string
	Code        []byte
	DescribedAt time.Time
	Pinned      bool
	// Model made the descriptor it was assigned from (face_descriptors.model),
	// whose box it keeps (migration 00024): a face described again by
	// another model is the same face when its box overlaps this one.
	Model                                string
	BoxLeft, BoxTop, BoxWidth, BoxHeight float64
	// Exclusions are the persons it is not (person_exclusions).
	Exclusions []string `gorm:"-"`
}

// PersonFacesOf lists the faces of the items, with their exclusions.
func PersonFacesOf(tx *DB, itemIDs []string) ([]PersonFace, error) {
	var out []PersonFace
	if err := tx.Raw(`SELECT id, item_id, extractor, face, container_id, person_id, local_person, weight, time_ms, first_ms,
	last_ms, area, thumbnail, code, described_at, pinned, model, box_left, box_top, box_width, box_height
FROM person_faces WHERE item_id = ANY(?) ORDER BY item_id, extractor, face`, models.Strings(itemIDs)).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("faces of items: %w", err)
	}
	var ex []struct {
		ItemID, Extractor, PersonID string
		Face                        int
	}
	if err := tx.Raw(`SELECT item_id, extractor, face, person_id FROM person_exclusions WHERE item_id = ANY(?)`,
		models.Strings(itemIDs)).Scan(&ex).Error; err != nil {
		return nil, fmt.Errorf("exclusions of items: %w", err)
	}
	type key struct {
		item, ext string
		face      int
	}
	at := map[key]int{}
	for i, f := range out {
		at[key{f.ItemID, f.Extractor, f.Face}] = i
	}
	for _, e := range ex {
		if i, ok := at[key{e.ItemID, e.Extractor, e.Face}]; ok {
			out[i].Exclusions = append(out[i].Exclusions, e.PersonID)
		}
	}
	return out, nil
}

// SavePersonFace inserts or updates a face (by item, extractor and face)
// and returns its id. A new code bumps its sequence number.
func SavePersonFace(tx *DB, f PersonFace) (int64, error) {
	var id int64
	err := tx.Raw(`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, local_person, weight, time_ms,
	first_ms, last_ms, area, thumbnail, code, described_at, pinned, model, box_left, box_top, box_width, box_height)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (item_id, extractor, face) DO UPDATE SET container_id = EXCLUDED.container_id, person_id = EXCLUDED.person_id,
	local_person = EXCLUDED.local_person, weight = EXCLUDED.weight, time_ms = EXCLUDED.time_ms, first_ms = EXCLUDED.first_ms,
	last_ms = EXCLUDED.last_ms, area = EXCLUDED.area, thumbnail = EXCLUDED.thumbnail, code = EXCLUDED.code,
	described_at = EXCLUDED.described_at, pinned = EXCLUDED.pinned, model = EXCLUDED.model, box_left = EXCLUDED.box_left,
	box_top = EXCLUDED.box_top, box_width = EXCLUDED.box_width, box_height = EXCLUDED.box_height,
	seq = CASE WHEN person_faces.code IS NOT DISTINCT FROM EXCLUDED.code THEN person_faces.seq ELSE nextval('person_faces_code_seq') END
RETURNING id`, f.ItemID, f.Extractor, f.Face, f.ContainerID, f.PersonID, f.LocalPerson, f.Weight, f.TimeMS, f.FirstMS,
		f.LastMS, f.Area, f.Thumbnail, f.Code, f.DescribedAt, f.Pinned, f.Model, f.BoxLeft, f.BoxTop, f.BoxWidth, f.BoxHeight).
		Scan(&id).Error
	if err != nil {
		return 0, fmt.Errorf("save face of %s: %w", f.ItemID, err)
	}
	return id, nil
}

// DeletePersonFaces deletes faces by id.
func DeletePersonFaces(tx *DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := tx.Exec(`DELETE FROM person_faces WHERE id = ANY(?)`, int64s(ids)).Error; err != nil {
		return fmt.Errorf("delete faces: %w", err)
	}
	return nil
}

// NewPerson creates an unnamed person.
func NewPerson(tx *DB, id string, now time.Time) error {
	if err := tx.Exec(`INSERT INTO persons (id, created_at, updated_at) VALUES (?, ?, ?)`, id, now, now).Error; err != nil {
		return fmt.Errorf("new person: %w", err)
	}
	return nil
}

// Candidate is a face the index proposed, as stored now: its person,
// where it is and its descriptor.
type Candidate struct {
	ID       int64
	PersonID string
	ItemID   string
	TimeMS   *int64
	// Model made the descriptor: only descriptors of one model compare.
	Model      string
	Descriptor []byte
}

// Candidates reads the faces of ids that still exist and have a person;
// the others are gone from the index's point of view. A face's descriptor
// is the one it was assigned from: an item harvested again but not
// assigned yet has its faces of before left out. (Reference pictures are
// compared by the assigner from memory, not through the index.)
func Candidates(tx *DB, ids []int64) ([]Candidate, error) {
	var out []Candidate
	if len(ids) == 0 {
		return out, nil
	}
	if err := tx.Raw(`SELECT pf.id, pf.person_id, pf.item_id, pf.time_ms, fd.model, fd.descriptor
FROM person_faces pf
JOIN face_descriptors fd ON fd.item_id = pf.item_id AND fd.extractor = pf.extractor AND fd.face = pf.face
	AND fd.created_at = pf.described_at
WHERE pf.id = ANY(?) AND pf.person_id IS NOT NULL AND pf.code IS NOT NULL`, int64s(ids)).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("candidate faces: %w", err)
	}
	return out, nil
}

// RecountPeople works out again the per-container counts of the persons
// given from their faces in live items, then deletes those of them left
// without face nor reference picture. It returns the persons deleted.
func RecountPeople(tx *DB, personIDs []string) ([]string, error) {
	if len(personIDs) == 0 {
		return nil, nil
	}
	ids := models.Strings(personIDs)
	if err := tx.Exec(`DELETE FROM person_containers WHERE person_id = ANY(?::text[])`, ids).Error; err != nil {
		return nil, fmt.Errorf("recount people: %w", err)
	}
	if err := tx.Exec(`INSERT INTO person_containers (person_id, container_id, location_id, faces, items, first_seen, last_seen)
SELECT pf.person_id, pf.container_id, min(i.location_id), sum(pf.weight), count(DISTINCT pf.item_id),
	min(coalesce(i.last_modified, i.created_at)), max(coalesce(i.last_modified, i.created_at))
FROM unnest(?::text[]) AS x(id)
JOIN person_faces pf ON pf.person_id = x.id
JOIN items i ON i.id = pf.item_id AND i.deleted_at IS NULL
GROUP BY pf.person_id, pf.container_id`, ids).Error; err != nil {
		return nil, fmt.Errorf("recount people: %w", err)
	}
	// The same counts over every container, kept on the person (the list
	// of an administrator, who sees them all, reads them: ListPeople).
	if err := tx.Exec(`UPDATE persons p SET faces = coalesce(t.faces, 0), items = coalesce(t.items, 0),
	first_seen = t.first_seen, last_seen = t.last_seen
FROM unnest(?::text[]) AS x(id)
LEFT JOIN (SELECT pc.person_id, sum(pc.faces)::int AS faces, sum(pc.items)::int AS items,
		min(pc.first_seen) AS first_seen, max(pc.last_seen) AS last_seen
	FROM person_containers pc WHERE pc.person_id = ANY(?::text[]) GROUP BY pc.person_id) t ON t.person_id = x.id
WHERE p.id = x.id AND (p.faces, p.items, p.first_seen, p.last_seen) IS DISTINCT FROM (coalesce(t.faces, 0), coalesce(t.items, 0), t.first_seen, t.last_seen)`,
		ids, ids).Error; err != nil {
		return nil, fmt.Errorf("recount people: %w", err)
	}
	var gone []string
	if err := tx.Raw(`DELETE FROM persons p WHERE p.id = ANY(?::text[])
	AND NOT EXISTS (SELECT 1 FROM person_faces f WHERE f.person_id = p.id)
	AND NOT EXISTS (SELECT 1 FROM person_references r WHERE r.person_id = p.id)
RETURNING p.id`, ids).Scan(&gone).Error; err != nil {
		return nil, fmt.Errorf("delete people without faces: %w", err)
	}
	return gone, nil
}

// DeleteFaceDescriptor deletes the stored descriptor of one face (a face
// whose person was deleted keeps none).
func DeleteFaceDescriptor(tx *DB, itemID, extractor string, face int) error {
	if err := tx.Exec(`DELETE FROM face_descriptors WHERE item_id = ? AND extractor = ? AND face = ?`, itemID, extractor, face).
		Error; err != nil {
		return fmt.Errorf("delete face descriptor: %w", err)
	}
	return nil
}

// EraseAllPeople deletes every person, face code, exclusion, reference
// and pending mark (FACIAL_RECOGNITION off), and returns the reference
// pictures' keys in the artifact store, whose files the caller removes.
func EraseAllPeople(tx *DB) ([]string, error) {
	var pictures []string
	if err := tx.Raw(`SELECT picture FROM person_references WHERE picture <> '' UNION ALL
SELECT thumbnail FROM person_references WHERE thumbnail <> ''`).Scan(&pictures).Error; err != nil {
		return nil, fmt.Errorf("erase people: %w", err)
	}
	for _, table := range []string{"person_exclusions", "person_containers", "person_references", "person_faces", "persons",
		"people_pending"} {
		if err := tx.Exec(`DELETE FROM ` + table).Error; err != nil {
			return nil, fmt.Errorf("erase people: %s: %w", table, err)
		}
	}
	return pictures, nil
}

// int64s renders a Postgres bigint[] literal (GORM passes it as text).
type int64s []int64

func (a int64s) Value() (driver.Value, error) {
	b := []byte{'{'}
	for i, v := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return string(append(b, '}')), nil
}

// CountPersons is the number of persons.
func CountPersons(db *DB) (int64, error) {
	var n int64
	if err := db.Raw(`SELECT count(*) FROM persons`).Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("count persons: %w", err)
	}
	return n, nil
}

// BridgedPerson is what the assigner weighs before merging persons a new
// face bridges: whether users named, taught or hid the person, its faces
// and its age.
type BridgedPerson struct {
	ID        string
	IsKnown   bool
	Hidden    bool
	Faces     int
	CreatedAt time.Time
}

// BridgedPersons reads the persons of ids that exist, locking their rows
// (a rename or hiding meanwhile waits for the merge, then finds the
// person that is left).
func BridgedPersons(tx *DB, ids []string) ([]BridgedPerson, error) {
	var out []BridgedPerson
	if err := tx.Raw(`SELECT p.id, p.is_known, p.hidden, p.created_at,
	(SELECT count(*) FROM person_faces f WHERE f.person_id = p.id) AS faces
FROM persons p WHERE p.id = ANY(?) ORDER BY p.id FOR UPDATE OF p`, models.Strings(ids)).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("bridged persons: %w", err)
	}
	return out, nil
}

// PersonsApart reports whether two persons are known to be two people: a
// face of one was marked "not this person" for the other, or they have
// faces of different people of an item in the same frame (the same
// picture, or the same time of a video). It reads the faces of a: the
// person with fewer faces first.
func PersonsApart(tx *DB, a, b string) (bool, error) {
	var apart bool
	if err := tx.Raw(`SELECT EXISTS (SELECT 1 FROM person_exclusions e
	JOIN person_faces f ON f.item_id = e.item_id AND f.extractor = e.extractor AND f.face = e.face
	WHERE (f.person_id = ? AND e.person_id = ?) OR (f.person_id = ? AND e.person_id = ?))
OR EXISTS (SELECT 1 FROM person_faces f1 JOIN person_faces f2 ON f2.item_id = f1.item_id AND f2.person_id = ?
	AND f2.local_person <> f1.local_person AND f2.time_ms IS NOT DISTINCT FROM f1.time_ms
	WHERE f1.person_id = ?)`, a, b, b, a, b, a).Scan(&apart).Error; err != nil {
		return false, fmt.Errorf("persons apart: %w", err)
	}
	return apart, nil
}
