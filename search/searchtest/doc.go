// Package searchtest is the conformance suite of the search engines: Run
// loads a generated corpus (thousands of documents of every media type with
// nested extractor data, dates spread around now, several locations and
// containers with and without groups, and segments of videos) into an engine
// and checks every filter kind, sort, paging, full-text search with
// highlights and scores, only, hit counts, every aggregation, analytics,
// segments, visibility for callers of several groups, validation errors,
// updates, deletes and Reset.
//
// Expected answers are computed from the corpus in plain Go (reference.go),
// never taken from an engine. Backends call it from their tests:
//
//	func TestConformance(t *testing.T) {
//		searchtest.Run(t, func(t *testing.T) search.Engine { return newEngine(t) })
//	}
package searchtest
