// Package people makes persons across the archive out of the faces
// vendor_faces described (docs/people.md): every described face belongs
// to a person, the same in every item, whom users name, merge, correct,
// hide, delete, or teach from reference pictures.
//
// # Assigning faces
//
// Harvests store face descriptors (table face_descriptors); triggers of
// migration 00018 note the items whose faces changed (people_pending),
// whoever changed them. Every worker runs an Assigner, which drains that
// list in transactions holding one advisory lock (so one assigner works at
// a time in the whole fleet, and a worker killed mid-way leaves its items
// pending: nothing is lost, nothing doubled, as faces are keyed by item,
// extractor and index). For each pending item it compares the item's
// descriptors with what it had assigned before:
//   - the same face again (same index, code within SameFaceBits: an item
//     harvested again) keeps its person, named or not, moved by hand or not;
//   - a face whose person was deleted stays unknown, its descriptor deleted;
//   - a new face within the Rule's threshold of a reference picture joins
//     that picture's person (the nearest such), whatever faces are nearer;
//   - a new face joins the person of the nearest face in the archive when
//     their cosine similarity reaches the Rule's threshold, unless the face
//     was marked "not this person" for that person, or that person is
//     already in the same frame of the item; else it starts a new person;
//   - a new face within the threshold of faces of several persons (or of
//     a reference picture and faces) bridges them: with Rule.MergeBridged
//     they become one person (Rule.Decide says which, mergeBridged leaves
//     out hidden persons, a second named or taught one, and persons told
//     apart by a "not this person" mark or a shared frame);
//   - faces no longer there, and faces of deleted items, go.
//
// The nearest faces are found by a faceindex.Index held in the assigner's
// process (32 bytes a face), brought up to date from person_faces' sequence
// numbers at the start of every transaction and rebuilt from them after a
// failure; its candidates are then compared exactly with their descriptors
// read from Postgres, so an index that lags only proposes candidates that
// are dropped.
//
// # Reference pictures
//
// A person taught from pictures (docs/people.md) has reference pictures
// (person_references) that workers describe as vendor_faces describes a
// harvested picture. The assigner keeps every described reference in
// memory and, once for each new one, names the faces of the archive within
// the threshold of it (store.ClaimFaces says which may move).
//
// The persons' per-container counts (person_containers) are worked out
// again for the persons touched, persons left without face (nor
// reference picture) disappear, and
// the items are marked dirty for search in the same transaction: their
// documents carry their people's ids and names.
package people
