-- What extractors report beside their data: the analysed moments of a video
-- (segment parts, one per extractor and moment, merged by time into the
-- Segment records the search engine serves) and timed transcripts
-- (captions: subtitle tracks, sidecar files, speech, uploads).

-- +goose Up
CREATE TABLE segment_parts (
    item_id   text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    extractor text NOT NULL,
    time_ms   bigint NOT NULL,
    -- the frame's image: {path, width, height, type}, or null
    thumbnail jsonb,
    -- extractors.SegmentSummary
    summary   jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (item_id, extractor, time_ms)
);

CREATE TABLE captions (
    id         text PRIMARY KEY,
    item_id    text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    -- extractor that found it; empty for an uploaded caption
    extractor  text NOT NULL DEFAULT '',
    label      text NOT NULL DEFAULT '',
    source     text NOT NULL,
    language   text NOT NULL DEFAULT '',
    confidence double precision NOT NULL DEFAULT 0,
    format     text NOT NULL DEFAULT '',
    -- [{start_at, end_at, text}]
    cues       jsonb NOT NULL DEFAULT '[]',
    -- the uploaded file as sent (downloads give it back unchanged)
    original   bytea,
    file_name  text NOT NULL DEFAULT '',
    added_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX captions_item ON captions (item_id);

-- +goose Down
DROP TABLE captions;
DROP TABLE segment_parts;
