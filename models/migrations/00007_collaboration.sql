-- Collaboration on top of harvested items: compilations (curated ordered
-- lists of items), comments (versioned: an update adds a record), custom
-- fields with their per-item values, and logo training requests passed to
-- an external provider.

-- +goose Up
CREATE TABLE compilations (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    public     boolean NOT NULL DEFAULT false,
    -- a user's compilations go with the user
    author_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX compilations_author ON compilations (author_id);
CREATE INDEX compilations_public ON compilations (created_at) WHERE public;

CREATE TABLE compilation_items (
    compilation_id text NOT NULL REFERENCES compilations (id) ON DELETE CASCADE,
    -- an item removed from storage for good (its location deleted) leaves
    -- every compilation; a soft-deleted one stays and is not shown
    item_id        text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    display_order  integer NOT NULL,
    added_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (compilation_id, item_id)
);
CREATE INDEX compilation_items_item ON compilation_items (item_id);

-- Every version of a comment is a row. The first version's id names the
-- comment (root_id = id); an update adds a row with parent_id = root_id
-- and clears current on the others. Lists show the current versions.
CREATE TABLE comments (
    id          text PRIMARY KEY,
    root_id     text NOT NULL,
    parent_id   text NOT NULL DEFAULT '',
    target_type text NOT NULL CHECK (length(target_type) <= 32),
    target_id   text NOT NULL CHECK (length(target_id) <= 32),
    body        text NOT NULL,
    time_marker text NOT NULL DEFAULT '',
    -- no foreign key: a comment outlives its author (shown without one)
    author_id   text NOT NULL,
    current     boolean NOT NULL DEFAULT true,
    deleted     boolean NOT NULL DEFAULT false,
    -- created_at: the comment's first version (list order); ctime: this version
    created_at  timestamptz NOT NULL DEFAULT now(),
    ctime       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_target ON comments (target_type, target_id, created_at, root_id)
    WHERE current AND NOT deleted;
CREATE INDEX comments_root ON comments (root_id, ctime);

CREATE TABLE custom_fields (
    id            text PRIMARY KEY,
    name          text NOT NULL,
    description   text NOT NULL DEFAULT '',
    data_type     text NOT NULL CHECK (data_type IN ('bool', 'date', 'number', 'string')),
    display_order integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_fields_name_key ON custom_fields (lower(name));

-- One value per item and field, in the column of the field's type.
CREATE TABLE field_values (
    id            text PRIMARY KEY,
    item_id       text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    field_id      text NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
    bool_value    boolean,
    date_value    date,
    numeric_value double precision,
    string_value  text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (item_id, field_id)
);
CREATE INDEX field_values_field ON field_values (field_id);

CREATE TABLE logo_training_requests (
    id                             text PRIMARY KEY,
    name                           text NOT NULL,
    website                        text NOT NULL DEFAULT '',
    training_complete              boolean NOT NULL DEFAULT false,
    requested_by                   text NOT NULL,
    -- the provider's id of the request, asked about when polling
    provider_request_id            text NOT NULL DEFAULT '',
    created_at                     timestamptz NOT NULL DEFAULT now(),
    last_checked_for_completion_at timestamptz
);
CREATE INDEX logo_training_requests_requester ON logo_training_requests (requested_by, created_at);

CREATE TABLE logo_training_images (
    id          text PRIMARY KEY,
    request_id  text NOT NULL REFERENCES logo_training_requests (id) ON DELETE CASCADE,
    -- the object key in the logo bucket, and where the provider fetches it
    file_path   text NOT NULL,
    public_url  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX logo_training_images_request ON logo_training_images (request_id);

-- +goose Down
DROP TABLE logo_training_images;
DROP TABLE logo_training_requests;
DROP TABLE field_values;
DROP TABLE custom_fields;
DROP TABLE comments;
DROP TABLE compilation_items;
DROP TABLE compilations;
