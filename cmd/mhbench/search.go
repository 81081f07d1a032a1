package main

import "context"

// benchSearch measures search latency through the API against the bare
// engine; filled in with the search engine.
func benchSearch(ctx context.Context) error { return nil }
