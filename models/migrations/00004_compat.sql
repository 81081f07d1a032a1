-- Indexes for the endpoints kept for clients of the original product
-- (api/compat_items.go, api/compat.go).

-- +goose Up

-- Duplicates: live items grouped by content hash. The expression must stay
-- the one the query groups and joins on: (metadata->'hashes'->>'sha256').
CREATE INDEX items_sha256 ON items ((metadata->'hashes'->>'sha256'))
    WHERE deleted_at IS NULL;

-- Insights: errors recorded in the last day, jobs started in the last day.
CREATE INDEX activities_errors_ts ON activities (ts) WHERE error <> '';
CREATE INDEX jobs_created ON jobs (created);

-- System stats: jobs updated in the last day that are not cancelled.
CREATE INDEX jobs_updated_live ON jobs (updated) WHERE NOT cancelled;

-- +goose Down
DROP INDEX jobs_updated_live;
DROP INDEX jobs_created;
DROP INDEX activities_errors_ts;
DROP INDEX items_sha256;
