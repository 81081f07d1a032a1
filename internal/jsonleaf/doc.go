// Package jsonleaf walks decoded JSON (map[string]any, []any and the
// scalars encoding/json makes) down to its leaves, naming each by the
// dotted path the search catalogue, the extractors' declared fields and
// the item page use: "video.frame_rate". The elements of an array share
// the array's path, so that "tags" names every tag of a list of tags.
package jsonleaf
