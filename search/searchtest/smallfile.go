package searchtest

import (
	"encoding/json"

	"github.com/metaharvest/metaharvest/search"
)

// SmallFileDocument is the document of a small file harvested with store,
// mime_type and hashes, as the worker indexes it in the harvest's
// transaction (what the small-file bench writes 20,000 times a round).
func SmallFileDocument() search.Document {
	return search.Document{
		"_id": "5769e347aa2723407e5390ea12d00159", "name": "f001206.bin", "path": "media/d006/f001206.bin",
		"size": int64(4096), "type": "other", "extension": "bin", "last_modified": "2026-11-25T06:21:35.771641Z", "mime_type": "application/octet-stream",
		"location_id": "b40b2b9b7e318b255c753e42a423856f", "location_name": "bench", "location_kind": "filesystem",
		"store_container_id": "d453bf0629c4a0dd965877dae99eaca3", "store_container_name": "media",
		"store_url":      "filesystem://bench/media/d006/f001206.bin",
		"store":          map[string]any{"name": "f001206.bin", "size": json.Number("4096"), "extension": "bin"},
		"mime_type_data": map[string]any{"extension": "", "mime_type": "application/octet-stream"},
		"hashes": map[string]any{"md5": "6440e7fc9f9132035657d33f16d5e442", "sha1": "a1a73c978f2bd0040d62439c2ec15f567a3a6284",
			"sha256": "851221f07dc5793555ec17cbdbb7603fa3f1acbf2d8157b8fb20e50100baa98b"},
		"_location_groups": []string{}, "_container_groups": []string{},
	}
}
