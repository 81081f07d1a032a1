// Package e2e holds the end-to-end tests of metaharvest: they build the
// binary (internal/testproc) and start it as its users do — `all`, `api`,
// `worker`, the command-line client — beside Postgres, Redis, the S3 test
// server, Meilisearch, the vision sidecar and Chromium, and check what a
// person or a client sees: the README's walkthrough, the web pages in a
// browser with axe-core, harvests through the API, crashes and restarts,
// deployment files and the docs' links. It has no code of its own.
package e2e
