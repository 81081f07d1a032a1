-- Face descriptors (issue 48): one row per face vendor_faces described,
-- kept apart from the item's JSON data and from the search documents. The
-- descriptor is Human's faceres embedding (1024 numbers) L2-normalised
-- and quantised to int8 with one float32 scale (internal/facedesc): 1028
-- bytes a face. Rows are written in the transaction that stores the
-- item's results, replaced when vendor_faces harvests the item again,
-- deleted with the item (here by cascade, and when it is deleted by a
-- user), and all deleted when a role starts with FACIAL_RECOGNITION=false.

-- +goose Up
CREATE TABLE face_descriptors (
    item_id    text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    -- the extractor that found the face (vendor_faces)
    extractor  text NOT NULL,
    -- the face's index in the extractor's data "faces" list
    face       integer NOT NULL,
    -- the person of the item the face belongs to (data "people")
    person_id  text NOT NULL DEFAULT '',
    -- the video frame's time, milliseconds; null for a picture
    time_ms    bigint,
    -- the face's rectangle in the upright picture or the frame, pixels
    box_left   real NOT NULL,
    box_top    real NOT NULL,
    box_width  real NOT NULL,
    box_height real NOT NULL,
    -- crop of the face, path from the artifact root ('' when none)
    thumbnail  text NOT NULL DEFAULT '',
    -- what made the descriptor: "human-faceres" and the package version
    model      text NOT NULL,
    -- float32 scale (little-endian), then one int8 a dimension
    descriptor bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (item_id, extractor, face)
);

-- +goose Down
DROP TABLE face_descriptors;
