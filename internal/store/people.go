package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// The queries of the People API and pages (docs/people.md). A caller sees
// a person when it sees an item with one of the person's faces, and
// counts only those faces (person_containers, by container).

// Person is a person as a caller sees it.
type Person struct {
	ID        string
	Name      string
	IsKnown   bool
	Hidden    bool
	Faces     int
	Items     int
	FirstSeen *time.Time
	LastSeen  *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	// Cover is the caller's best face of the person (largest), if any.
	Cover *PersonCover `gorm:"-"`
}

// PersonCover is a face's crop.
type PersonCover struct {
	PersonID  string
	ItemID    string
	Face      int
	Thumbnail string
}

// PeopleQuery narrows and orders a list of people.
type PeopleQuery struct {
	// Named: nil all, true named only, false unnamed only.
	Named *bool
	// Hidden lists the hidden persons instead of the others.
	Hidden bool
	// Name keeps persons whose name contains it (any case).
	Name string
	// Sort: "faces" (most seen first, the default), "items", "name",
	// "recent" (last seen first).
	Sort          string
	Limit, Offset int
}

// PeopleSorts are the orders of PeopleQuery.Sort.
var PeopleSorts = []string{"faces", "items", "name", "recent"}

const personColumns = `p.id, p.name, p.is_known, p.hidden, coalesce(sum(pc.faces), 0)::int AS faces, coalesce(sum(pc.items), 0)::int AS items,
	min(pc.first_seen) AS first_seen, max(pc.last_seen) AS last_seen, p.created_at, p.updated_at`

// seenCounts restricts person_containers rows (alias pc) to the
// containers v sees: their ids are read first (a deployment has few
// containers, a person list many rows), so that each row is one lookup.
func seenCounts(db *DB, v Viewer) (string, []any, error) {
	if v.Admin {
		return "TRUE", nil, nil
	}
	cond, args := v.VisibleSQL("c.location_id", "c.id")
	var ids []string
	if err := db.Raw(`SELECT c.id FROM containers c WHERE `+cond, args...).Scan(&ids).Error; err != nil {
		return "", nil, fmt.Errorf("containers seen: %w", err)
	}
	return "pc.container_id = ANY(?::text[])", []any{models.Strings(ids)}, nil
}

// seenPeople is the FROM clause of the persons v sees (alias p) with v's
// counts (alias pc): the persons with faces in the containers v sees, and
// the persons v taught (or, for an administrator, anyone taught) from
// reference pictures, which count nothing until a face is theirs.
func seenPeople(db *DB, v Viewer) (string, []any, error) {
	cond, args, err := seenCounts(db, v)
	if err != nil {
		return "", nil, err
	}
	from := ` FROM persons p JOIN (SELECT pc.person_id, pc.faces, pc.items, pc.first_seen, pc.last_seen
	FROM person_containers pc WHERE ` + cond + `
	UNION ALL SELECT DISTINCT r.person_id, 0, 0, NULL::timestamptz, NULL::timestamptz
	FROM person_references r WHERE ? OR r.created_by = ?) pc ON pc.person_id = p.id`
	return from, append(args, v.Admin, v.UserID), nil
}

// peopleFilter is the WHERE clause of q's filters on persons (alias p)
// and its arguments.
func peopleFilter(q PeopleQuery) (string, []any) {
	where := []string{"p.hidden = ?"}
	args := []any{q.Hidden}
	if q.Named != nil {
		if *q.Named {
			where = append(where, "p.name <> ''")
		} else {
			where = append(where, "p.name = ''")
		}
	}
	if q.Name != "" {
		where = append(where, "p.name ILIKE ?")
		args = append(args, "%"+likeEscaper.Replace(q.Name)+"%")
	}
	return ` WHERE ` + strings.Join(where, " AND "), args
}

// peopleOrder is the ORDER BY of q's sort, over columns named faces,
// items and last_seen.
func peopleOrder(q PeopleQuery) string {
	switch q.Sort {
	case "items":
		return "items DESC, faces DESC, p.id"
	case "name":
		return "p.name = '', lower(p.name), p.id"
	case "recent":
		return "last_seen DESC NULLS LAST, p.id"
	}
	return "faces DESC, p.id"
}

// ListPeople lists the persons v sees, with v's counts, and their total.
func ListPeople(db *DB, v Viewer, q PeopleQuery) ([]Person, int64, error) {
	if v.Admin {
		return listEveryone(db, v, q)
	}
	from, args, err := seenPeople(db, v)
	if err != nil {
		return nil, 0, err
	}
	where, wargs := peopleFilter(q)
	from += where
	args = append(args, wargs...)
	order := peopleOrder(q)
	// One pass over the caller's counts: the total rides on every row
	// (a window over the groups, before the limit).
	var rows []struct {
		Person `gorm:"embedded"`
		Total  int64
	}
	if err := db.Raw(`SELECT `+personColumns+`, count(*) OVER () AS total`+from+` GROUP BY p.id ORDER BY `+order+` LIMIT ? OFFSET ?`,
		append(args, q.Limit, q.Offset)...).Scan(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("list people: %w", err)
	}
	var total int64
	out := make([]Person, len(rows))
	for i, r := range rows {
		out[i], total = r.Person, r.Total
	}
	if len(rows) == 0 && q.Offset > 0 {
		// Past the end: the total is still wanted.
		if err := db.Raw(`SELECT count(DISTINCT p.id)`+from, args...).Scan(&total).Error; err != nil {
			return nil, 0, fmt.Errorf("count people: %w", err)
		}
	}
	if err := addCovers(db, v, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// listEveryone is ListPeople for an administrator, who sees every
// container: the persons' counts over the whole archive are kept on them
// (RecountPeople), so a page reads the largest persons from an index
// (persons_faces) instead of adding up every person's per-container rows.
// Everyone is the persons with faces in live items and the persons taught
// from pictures, as seenPeople has it.
func listEveryone(db *DB, v Viewer, q PeopleQuery) ([]Person, int64, error) {
	where, args := peopleFilter(q)
	where += ` AND (p.faces > 0 OR EXISTS (SELECT 1 FROM person_references r WHERE r.person_id = p.id))`
	var total int64
	if err := db.Raw(`SELECT count(*) FROM persons p`+where, args...).Scan(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count people: %w", err)
	}
	var out []Person
	if err := db.Raw(`SELECT p.id, p.name, p.is_known, p.hidden, p.faces, p.items, p.first_seen, p.last_seen, p.created_at, p.updated_at
FROM persons p`+where+` ORDER BY `+peopleOrder(q)+` LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...).Scan(&out).Error; err != nil {
		return nil, 0, fmt.Errorf("list people: %w", err)
	}
	if err := addCovers(db, v, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// GetPerson is a person v sees; apperr not found otherwise (a person whose
// faces are all in items v cannot see, and whom v did not teach, does not
// exist for v).
func GetPerson(db *DB, v Viewer, id string) (Person, error) {
	from, args, err := seenPeople(db, v)
	if err != nil {
		return Person{}, err
	}
	var out []Person
	if err := db.Raw(`SELECT `+personColumns+from+` WHERE p.id = ? GROUP BY p.id`, append(args, id)...).Scan(&out).Error; err != nil {
		return Person{}, fmt.Errorf("person %s: %w", id, err)
	}
	if len(out) == 0 {
		return Person{}, apperr.NotFound("person", id)
	}
	if err := addCovers(db, v, out); err != nil {
		return Person{}, err
	}
	return out[0], nil
}

// addCovers sets each person's largest face v sees.
func addCovers(db *DB, v Viewer, people []Person) error {
	if len(people) == 0 {
		return nil
	}
	ids := make([]string, len(people))
	for i, p := range people {
		ids[i] = p.ID
	}
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	var covers []PersonCover
	// One person at a time (LATERAL), each reading its faces largest
	// first (index person_faces_person) until one the caller sees.
	if err := db.Raw(`SELECT x.id AS person_id, c.item_id, c.face, c.thumbnail FROM unnest(?::text[]) AS x(id)
CROSS JOIN LATERAL (SELECT f.item_id, f.face, f.thumbnail FROM person_faces f
	JOIN items i ON i.id = f.item_id AND i.deleted_at IS NULL
	WHERE f.person_id = x.id AND f.thumbnail <> '' AND `+cond+`
	ORDER BY f.area DESC, f.id LIMIT 1) c`, append([]any{models.Strings(ids)}, args...)...).Scan(&covers).Error; err != nil {
		return fmt.Errorf("faces of people: %w", err)
	}
	by := map[string]*PersonCover{}
	for i := range covers {
		by[covers[i].PersonID] = &covers[i]
	}
	for i := range people {
		people[i].Cover = by[people[i].ID]
	}
	return nil
}

// PersonItem is an item with faces of a person, as v sees it.
type PersonItem struct {
	ItemID       string
	Name         string
	MimeType     string
	LastModified *time.Time
	Faces        int
	// Moments are the person's runs in a video (empty for a picture).
	Moments []PersonMoment `gorm:"-"`
	// Crops are the person's faces in the item.
	Crops []PersonCrop `gorm:"-"`
}

// PersonMoment is a run of a person in a video, in seconds.
type PersonMoment struct {
	Start, End float64
}

// PersonCrop is one face of a person in an item.
type PersonCrop struct {
	Face      int
	Thumbnail string
	Pinned    bool
	TimeMS    *int64
}

// PersonItems lists the live items v sees with faces of person, most
// faces first, and their number.
func PersonItems(db *DB, v Viewer, person string, limit, offset int) ([]PersonItem, int64, error) {
	cond, args := v.VisibleSQL("i.location_id", "i.container_id")
	from := ` FROM person_faces f JOIN items i ON i.id = f.item_id AND i.deleted_at IS NULL WHERE f.person_id = ? AND ` + cond
	qargs := append([]any{person}, args...)
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT f.item_id)`+from, qargs...).Scan(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("items of person %s: %w", person, err)
	}
	var out []PersonItem
	if err := db.Raw(`SELECT f.item_id, min(i.name) AS name, min(i.mime_type) AS mime_type, max(i.last_modified) AS last_modified,
	sum(f.weight)::int AS faces`+from+` GROUP BY f.item_id ORDER BY faces DESC, f.item_id LIMIT ? OFFSET ?`,
		append(qargs, limit, offset)...).Scan(&out).Error; err != nil {
		return nil, 0, fmt.Errorf("items of person %s: %w", person, err)
	}
	if len(out) == 0 {
		return out, total, nil
	}
	ids := make([]string, len(out))
	at := map[string]int{}
	for i, it := range out {
		ids[i] = it.ItemID
		at[it.ItemID] = i
	}
	var faces []struct {
		ItemID          string
		Face            int
		Thumbnail       string
		Pinned          bool
		TimeMS          *int64
		FirstMS, LastMS *int64
	}
	if err := db.Raw(`SELECT item_id, face, thumbnail, pinned, time_ms, first_ms, last_ms FROM person_faces
WHERE person_id = ? AND item_id = ANY(?) ORDER BY item_id, coalesce(first_ms, 0), face`, person, models.Strings(ids)).
		Scan(&faces).Error; err != nil {
		return nil, 0, fmt.Errorf("faces of person %s: %w", person, err)
	}
	for _, f := range faces {
		it := &out[at[f.ItemID]]
		it.Crops = append(it.Crops, PersonCrop{Face: f.Face, Thumbnail: f.Thumbnail, Pinned: f.Pinned, TimeMS: f.TimeMS})
		if f.FirstMS != nil && f.LastMS != nil {
			it.Moments = append(it.Moments, PersonMoment{Start: float64(*f.FirstMS) / 1000, End: float64(*f.LastMS) / 1000})
		}
	}
	return out, total, nil
}

// ItemPerson is a person of an item, by the item's own person.
type ItemPerson struct {
	LocalPerson string
	PersonID    string
	Name        string
	IsKnown     bool
	Hidden      bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ItemPeople lists the persons of an item's faces, by the item's own
// persons (vendor_faces' person_id).
func ItemPeople(db *DB, itemID string) ([]ItemPerson, error) {
	var out []ItemPerson
	if err := db.Raw(`SELECT DISTINCT ON (f.local_person) f.local_person, p.id AS person_id, p.name, p.is_known, p.hidden,
	p.created_at, p.updated_at
FROM person_faces f JOIN persons p ON p.id = f.person_id
WHERE f.item_id = ? ORDER BY f.local_person, f.weight DESC, f.face`, itemID).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("people of item %s: %w", itemID, err)
	}
	return out, nil
}

// FaceRef names one face of an item.
type FaceRef struct {
	ItemID    string
	Extractor string
	Face      int
}

// PersonFaceOwner is the person of a face and where its item is; apperr
// not found when there is no such face with a descriptor.
func PersonFaceOwner(db *DB, f FaceRef) (personID *string, locationID, containerID string, err error) {
	var row struct {
		PersonID                *string
		LocationID, ContainerID string
	}
	res := db.Raw(`SELECT f.person_id, i.location_id, i.container_id FROM person_faces f JOIN items i ON i.id = f.item_id
WHERE f.item_id = ? AND f.extractor = ? AND f.face = ? AND f.code IS NOT NULL AND i.deleted_at IS NULL`,
		f.ItemID, f.Extractor, f.Face).Scan(&row)
	if res.Error != nil {
		return nil, "", "", fmt.Errorf("face %s/%d: %w", f.ItemID, f.Face, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, "", "", apperr.NotFound("face", fmt.Sprintf("%s/%d", f.ItemID, f.Face))
	}
	return row.PersonID, row.LocationID, row.ContainerID, nil
}

// RenamePerson sets a person's name (is_known once named) and marks its
// items dirty for search through mark.
func RenamePerson(tx *DB, id, name string, now time.Time) error {
	res := tx.Exec(`UPDATE persons SET name = ?, is_known = (? <> '' OR EXISTS (SELECT 1 FROM person_references r WHERE r.person_id = persons.id)),
	updated_at = ? WHERE id = ?`, name, name, now, id)
	if res.Error != nil {
		return fmt.Errorf("rename person %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("person", id)
	}
	return nil
}

// HidePerson hides a person from lists, or shows it again.
func HidePerson(tx *DB, id string, hidden bool, now time.Time) error {
	if err := tx.Exec(`UPDATE persons SET hidden = ?, updated_at = ? WHERE id = ?`, hidden, now, id).Error; err != nil {
		return fmt.Errorf("hide person %s: %w", id, err)
	}
	return nil
}

// PersonItemsCond is a condition over items (for search.MarkDirtyWhere):
// the items with faces of the persons.
const PersonItemsCond = `id IN (SELECT item_id FROM person_faces WHERE person_id = ANY(?))`

// MergePeople moves the faces, reference pictures, "not this person"
// marks and name of the persons from into the person into (which keeps
// its name when it has one) and deletes them.
func MergePeople(tx *DB, into string, from []string, now time.Time) error {
	ids := models.Strings(from)
	if err := tx.Exec(`UPDATE persons SET name = (SELECT f.name FROM persons f WHERE f.id = ANY(?) AND f.name <> '' ORDER BY f.id LIMIT 1),
	is_known = true, updated_at = ?
WHERE id = ? AND name = '' AND EXISTS (SELECT 1 FROM persons f WHERE f.id = ANY(?) AND f.name <> '')`, ids, now, into, ids).Error; err != nil {
		return fmt.Errorf("merge people: %w", err)
	}
	for _, q := range []string{
		`UPDATE person_faces SET person_id = ? WHERE person_id = ANY(?)`,
		`UPDATE person_references SET person_id = ? WHERE person_id = ANY(?)`,
	} {
		if err := tx.Exec(q, into, ids).Error; err != nil {
			return fmt.Errorf("merge people: %w", err)
		}
	}
	// A face marked "not this person" for one of them is not the person
	// left either (unless it is one of theirs: then the merge says it is).
	if err := tx.Exec(`INSERT INTO person_exclusions (item_id, extractor, face, person_id, created_at)
SELECT e.item_id, e.extractor, e.face, ?, e.created_at FROM person_exclusions e
WHERE e.person_id = ANY(?) AND NOT EXISTS (SELECT 1 FROM person_faces f
	WHERE f.item_id = e.item_id AND f.extractor = e.extractor AND f.face = e.face AND f.person_id = ?)
ON CONFLICT DO NOTHING`, into, ids, into).Error; err != nil {
		return fmt.Errorf("merge people: %w", err)
	}
	if err := tx.Exec(`UPDATE persons SET is_known = true, updated_at = ? WHERE id = ? AND EXISTS (SELECT 1 FROM person_references WHERE person_id = ?)`,
		now, into, into).Error; err != nil {
		return fmt.Errorf("merge people: %w", err)
	}
	if err := tx.Exec(`DELETE FROM persons WHERE id = ANY(?)`, ids).Error; err != nil {
		return fmt.Errorf("merge people: %w", err)
	}
	return nil
}

// MoveFace puts a face on person (pinned: kept there when its item is
// harvested again) and forgets a "not this person" of that person.
func MoveFace(tx *DB, f FaceRef, person string) error {
	if err := tx.Exec(`UPDATE person_faces SET person_id = ?, pinned = true WHERE item_id = ? AND extractor = ? AND face = ?`,
		person, f.ItemID, f.Extractor, f.Face).Error; err != nil {
		return fmt.Errorf("move face: %w", err)
	}
	if err := tx.Exec(`DELETE FROM person_exclusions WHERE item_id = ? AND extractor = ? AND face = ? AND person_id = ?`,
		f.ItemID, f.Extractor, f.Face, person).Error; err != nil {
		return fmt.Errorf("move face: %w", err)
	}
	return nil
}

// RejectFace records that a face is not of person, takes it off the
// person and sends its item back to the assigner, which gives the face
// another person.
func RejectFace(tx *DB, f FaceRef, person string) error {
	for _, q := range []string{
		`INSERT INTO person_exclusions (item_id, extractor, face, person_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		`UPDATE person_faces SET person_id = NULL, pinned = false WHERE item_id = ? AND extractor = ? AND face = ? AND person_id = ?`,
	} {
		if err := tx.Exec(q, f.ItemID, f.Extractor, f.Face, person).Error; err != nil {
			return fmt.Errorf("reject face: %w", err)
		}
	}
	if err := tx.Exec(`INSERT INTO people_pending (item_id) VALUES (?) ON CONFLICT (item_id) DO NOTHING`, f.ItemID).Error; err != nil {
		return fmt.Errorf("reject face: %w", err)
	}
	return nil
}

// DeletePerson deletes a person: its faces stay as unknown faces, without
// code and without descriptor (face_descriptors rows deleted), its
// reference pictures go. It returns the reference files (keys of the
// artifact store) for the caller to remove after commit.
func DeletePerson(tx *DB, id string) ([]string, error) {
	var files []string
	if err := tx.Raw(`SELECT picture FROM person_references WHERE person_id = ? AND picture <> '' UNION ALL
SELECT thumbnail FROM person_references WHERE person_id = ? AND thumbnail <> ''`, id, id).Scan(&files).Error; err != nil {
		return nil, fmt.Errorf("delete person %s: %w", id, err)
	}
	if err := tx.Exec(`DELETE FROM face_descriptors fd USING person_faces f
WHERE f.person_id = ? AND fd.item_id = f.item_id AND fd.extractor = f.extractor AND fd.face = f.face`, id).Error; err != nil {
		return nil, fmt.Errorf("delete person %s: %w", id, err)
	}
	if err := tx.Exec(`UPDATE person_faces SET person_id = NULL, code = NULL, pinned = false,
	seq = nextval('person_faces_code_seq') WHERE person_id = ?`, id).Error; err != nil {
		return nil, fmt.Errorf("delete person %s: %w", id, err)
	}
	res := tx.Exec(`DELETE FROM persons WHERE id = ?`, id)
	if res.Error != nil {
		return nil, fmt.Errorf("delete person %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, apperr.NotFound("person", id)
	}
	return files, nil
}

// PersonExists reports whether a person exists (whoever sees it).
func PersonExists(db *DB, id string) (bool, error) {
	var n int64
	if err := db.Raw(`SELECT count(*) FROM persons WHERE id = ?`, id).Scan(&n).Error; err != nil {
		return false, fmt.Errorf("person %s: %w", id, err)
	}
	return n > 0, nil
}
