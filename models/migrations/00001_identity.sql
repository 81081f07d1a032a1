-- Identity, access control and audit.

-- +goose Up
CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE roles (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    scopes      text[] NOT NULL DEFAULT '{}',
    builtin     boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX roles_name_key ON roles (lower(name));

CREATE TABLE users (
    id            text PRIMARY KEY,
    email         text NOT NULL,
    first_name    text NOT NULL DEFAULT '',
    last_name     text NOT NULL DEFAULT '',
    enabled       boolean NOT NULL DEFAULT true,
    role_id       text NOT NULL REFERENCES roles (id),
    admin         boolean NOT NULL DEFAULT false,
    avatar        text NOT NULL DEFAULT '',
    company_uid   text NOT NULL DEFAULT '',
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_role_id ON users (role_id);

CREATE TABLE groups (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_name_key ON groups (lower(name));

CREATE TABLE user_groups (
    user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    group_id text NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, group_id)
);
CREATE INDEX user_groups_group_id ON user_groups (group_id);

CREATE TABLE api_keys (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    active     boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user_id ON api_keys (user_id);

CREATE TABLE audit_events (
    id            text PRIMARY KEY,
    user_id       text NOT NULL DEFAULT '',
    action_key    text NOT NULL,
    target_kind   text NOT NULL,
    target_id     text NOT NULL DEFAULT '',
    additional_id text NOT NULL DEFAULT '',
    time          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_time ON audit_events (time DESC, id);
CREATE INDEX audit_events_user ON audit_events (user_id, time DESC);
CREATE INDEX audit_events_target ON audit_events (target_kind, target_id);

-- Built-in roles. root holds every scope (the api treats it as the full
-- catalogue); default-user holds the read scopes.
INSERT INTO roles (id, name, description, builtin, scopes) VALUES
  ('root', 'root', 'Administrators: every scope', true, '{}'),
  ('default-user', 'default-user', 'Read access to the platform', true, ARRAY[
    'activity:read', 'adult:read', 'captions:read', 'comments:read',
    'compilations:read', 'containers:read', 'extractors:read', 'fielddata:read',
    'fields:read', 'groups:read', 'items:read', 'keywords:read', 'locations:read',
    'logos:read', 'roles:read', 'savedsearches:read', 'search:read', 'segments:read',
    'summary:read', 'users:read', 'apikeys:read']);

-- +goose Down
DROP TABLE audit_events;
DROP TABLE api_keys;
DROP TABLE user_groups;
DROP TABLE groups;
DROP TABLE users;
DROP TABLE roles;
DROP TABLE settings;
