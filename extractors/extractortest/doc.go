// Package extractortest holds what every extractor's tests share: Suite, the
// conformance checks run over every registered extractor (cancellation,
// empty and garbage input, JSON output, artifact paths, as search/searchtest
// does for engines), and Golden, the folder-driven golden runner that feeds
// recorded tool output to pure parse functions (go test -update rewrites the
// expected files).
package extractortest
