// Package search is the search layer of metaharvest: the Engine interface the
// api searches through and the workers feed, the request model of
// POST /api/data/search and /api/data/segments/search, the validation every
// backend shares, and the indexing pipeline that derives documents from
// Postgres.
//
// # Backends
//
// search/postgres (always available) keeps the index in Postgres;
// search/meili uses Meilisearch when MEILI_URL is set. They register
// themselves with Register; Open picks one, so main must import both:
//
//	import (
//		_ "github.com/metaharvest/metaharvest/search/meili"
//		_ "github.com/metaharvest/metaharvest/search/postgres"
//	)
//	engine, err := search.Open(search.Config{DB: db, MeiliURL: cfg.MeiliURL, MeiliAPIKey: cfg.MeiliAPIKey})
//
// search/searchtest is the conformance suite both pass.
//
// # Documents
//
// A Document is "_id", the base fields (name, mime_type, size, last_modified,
// location_id, location_kind, location_name, store_container_id,
// store_container_name, store_url, type, extension), each extractor's data
// under its name, custom fields under "fields.<field_id>" (BuildDocument has
// the hook), and the visibility lists _location_groups / _container_groups.
// Prepare decomposes a document the same way for both backends: leaf paths
// (through arrays) with their scalar values, kinds (string, number, bool,
// date), instants of date strings (RFC 3339, EXIF "2006:01:02 15:04:05",
// plain dates) and the text of full-text search. Strings over 256 bytes are
// text: exists sees them, terms filters and terms aggregations do not.
//
// # Requests
//
// Compile (Validate) checks a Request against the engine's Catalogue of known
// field paths (base fields plus every leaf seen in upserted documents, up to
// MaxCatalogueFields) and resolves it into a Plan: unknown fields are a 400
// naming them, "filters": {} is a 400, limit 0 means 20 and above 1000 means
// 1000. A field may name an object in fields, only, exists and not_exists (it
// stands for every leaf below it); terms, ranges, sorts and aggregations need
// a leaf. Ranges are inclusive; bounds are numbers or dates (ParseBound:
// "now-1h", RFC 3339, YYYY-MM-DD, open when empty). Sorts put documents
// without a value last in both directions. Numeric metrics and histograms of
// date fields work on epoch seconds.
//
// Visibility is enforced inside the engines: a caller who is not All sees a
// document (or segment) when its location groups are empty or share a group
// with the caller, and so do its container groups.
//
// # Hit counts
//
// hit_counts counts, among the documents matching the whole request, those
// holding data of each type at or below these paths (HitCountPaths):
//
//	advertising           advertising
//	audio_classification  vendor_audio_classification, audio_classification
//	caption               captions, captionsv2, caption_files
//	description           description, descriptions
//	labels                labels
//	locations             geocoding, locations
//	logos                 logos
//	keyword               keywords
//	nsfw                  nsfw, nsfw_provider
//	ocr                   tesseract, ocr, slates, credits
//	people                vendor_faces, people, faces
//	sound                 volumedetect, audiopeak, vendor_silence, sound
//	speech_to_text        speech_to_text, speech_to_text_provider, transcript
//	sport                 vendorsports, sport
//	tag                   tags
//	text_content          pdf, officex, html, email, fdx, tokens, tokens_provider, text_content
//
// Types with no hit are left out; "hit_counts": {} asks for every type.
//
// # Indexing
//
// Writers bring the index up to date in the transaction that changes
// items: IndexInTx writes the documents there when the engine keeps its
// index in the database (TxIndexer: the Postgres backend; they are
// searchable when the transaction commits), and otherwise marks the items
// dirty in the outbox (MarkDirty; the api's writes always do). The mark
// notifies OutboxChannel at commit, and every worker runs an Indexer
// that drains the outbox (Drain) until it is empty: woken by the
// notification, and every second in case one was missed. Drain builds the
// documents with BuildDocuments, writes or deletes them, and only then
// removes the outbox rows, so an item saved while the engine is down
// reaches it later; a drainer that dies leaves its rows to the others
// (see outbox.go). GroupsChanged keeps visibility in line with groups.
// Reindex rebuilds everything after Reset. Engine errors that mean "down"
// match *apperr.Error with status 503 (Unavailable). The pipeline's
// statements are in internal/store (search*.go); only the Indexer's LISTEN
// connection speaks to the driver here.
package search
