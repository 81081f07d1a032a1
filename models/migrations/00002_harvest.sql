-- Locations, containers, items, extractor settings, harvest jobs and activity.

-- +goose Up
CREATE TABLE locations (
    id         text PRIMARY KEY,
    kind       text NOT NULL,
    name       text NOT NULL,
    config     jsonb NOT NULL DEFAULT '{}',
    version    integer NOT NULL DEFAULT 0,
    builtin    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The built-in upload store: one per deployment, under DATA_DIR.
INSERT INTO locations (id, kind, name, builtin) VALUES ('uploadstore', 'uploadstore', 'Upload store', true);

CREATE TABLE location_groups (
    location_id text NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
    group_id    text NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    PRIMARY KEY (location_id, group_id)
);

CREATE TABLE extractor_profiles (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    extractors text[] NOT NULL DEFAULT '{}',
    builtin    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX extractor_profiles_name_key ON extractor_profiles (lower(name));
INSERT INTO extractor_profiles (id, name, extractors, builtin)
VALUES ('default', 'default', '{}', true);

-- enabled_at lets new_extractors_only pick extractors enabled since a harvest.
CREATE TABLE extractor_settings (
    name       text PRIMARY KEY,
    enabled    boolean NOT NULL,
    enabled_at timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE containers (
    id                     text PRIMARY KEY,
    location_id            text NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
    name                   text NOT NULL,
    enabled                boolean NOT NULL DEFAULT false,
    version                integer NOT NULL DEFAULT 0,
    profile_id             text NOT NULL DEFAULT '',
    request_id             text NOT NULL DEFAULT '',
    last_harvested         timestamptz,
    last_walked            timestamptz,
    harvest_success_count  bigint NOT NULL DEFAULT 0,
    harvest_failure_count  bigint NOT NULL DEFAULT 0,
    last_harvested_failure timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (location_id, name)
);
CREATE INDEX containers_enabled ON containers (enabled) WHERE enabled;

CREATE TABLE container_groups (
    container_id text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    group_id     text NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    PRIMARY KEY (container_id, group_id)
);

CREATE TABLE items (
    id             text PRIMARY KEY CHECK (length(id) <= 32),
    location_id    text NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
    container_id   text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    path           text NOT NULL,
    name           text NOT NULL,
    size           bigint NOT NULL DEFAULT 0,
    etag           text NOT NULL DEFAULT '',
    last_modified  timestamptz,
    mime_type      text NOT NULL DEFAULT '',
    harvested_etag text NOT NULL DEFAULT '',
    last_harvested timestamptz,
    harvest_failed boolean NOT NULL DEFAULT false,
    -- when a walk last saw the file; a completed walk marks the items not
    -- seen since it started as deleted (safe with concurrent walks).
    last_seen_at   timestamptz NOT NULL DEFAULT now(),
    metadata       jsonb NOT NULL DEFAULT '{}',
    -- the latest run of each extractor: {name: {version, error, ran_at,
    -- request_id}}; kept on the item row so a harvest writes one row per file
    results        jsonb NOT NULL DEFAULT '{}',
    deleted_at     timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (container_id, path)
) WITH (fillfactor = 70);
-- fillfactor 70: a walk inserts an item and its harvest updates it right
-- after; room on the page lets that update be HOT (no index writes).
CREATE INDEX items_location_id ON items (location_id);
CREATE INDEX items_live ON items (container_id) WHERE deleted_at IS NULL;

CREATE TABLE artifacts (
    item_id   text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    path      text NOT NULL,
    extractor text NOT NULL,
    kind      text NOT NULL,
    width     integer NOT NULL DEFAULT 0,
    height    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (item_id, path)
);
CREATE UNIQUE INDEX artifacts_path_key ON artifacts (path);

CREATE TABLE jobs (
    request_id     text PRIMARY KEY,
    job_type       text NOT NULL DEFAULT 'harvest',
    location_id    text NOT NULL DEFAULT '',
    container_id   text NOT NULL DEFAULT '',
    item_id        text NOT NULL DEFAULT '',
    user_id        text NOT NULL DEFAULT '',
    profile_id     text NOT NULL DEFAULT '',
    extractors     text[] NOT NULL DEFAULT '{}',
    options        jsonb NOT NULL DEFAULT '{}',
    priority       integer NOT NULL DEFAULT 5,
    walked_count   bigint NOT NULL DEFAULT 0,
    indexed_count  bigint NOT NULL DEFAULT 0,
    error_count    bigint NOT NULL DEFAULT 0,
    enqueued_count bigint NOT NULL DEFAULT 0,
    walk_complete  boolean NOT NULL DEFAULT false,
    cancelled      boolean NOT NULL DEFAULT false,
    created        timestamptz NOT NULL DEFAULT now(),
    updated        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_container ON jobs (container_id, created DESC);

-- dedupe_key makes every activity write idempotent: a task delivered twice
-- inserts its rows once.
CREATE TABLE activities (
    id           bigserial PRIMARY KEY,
    dedupe_key   text NOT NULL UNIQUE,
    ts           timestamptz NOT NULL DEFAULT now(),
    kind         text NOT NULL,
    request_id   text NOT NULL,
    location_id  text NOT NULL DEFAULT '',
    container_id text NOT NULL DEFAULT '',
    harvest_id   text NOT NULL DEFAULT '',
    profile_id   text NOT NULL DEFAULT '',
    extractors   text[] NOT NULL DEFAULT '{}',
    name         text NOT NULL DEFAULT '',
    source       text NOT NULL DEFAULT '',
    item_id      text NOT NULL DEFAULT '',
    count        bigint NOT NULL DEFAULT 0,
    bytes        bigint NOT NULL DEFAULT 0,
    error        text NOT NULL DEFAULT '',
    error_hash   text NOT NULL DEFAULT '',
    duration     bigint NOT NULL DEFAULT 0
);
CREATE INDEX activities_request ON activities (request_id, kind, name, error_hash);
CREATE INDEX activities_item ON activities (item_id, request_id, id);

-- +goose Down
DROP TABLE activities;
DROP TABLE jobs;
DROP TABLE artifacts;
DROP TABLE items;
DROP TABLE container_groups;
DROP TABLE containers;
DROP TABLE extractor_settings;
DROP TABLE extractor_profiles;
DROP TABLE location_groups;
DROP TABLE locations;
