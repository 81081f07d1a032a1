// Package families links every extractor family into the Default registry,
// as Caddy's modules/standard does for its modules: a program that imports
// it for its side effects (cmd/metaharvest, tests of the worker) knows every
// extractor of the reference. The base extractors (store, mime_type,
// hashes) live in package extractors itself.
package families

import (
	_ "github.com/metaharvest/metaharvest/extractors"             // base extractors
	_ "github.com/metaharvest/metaharvest/extractors/archive"     // archive
	_ "github.com/metaharvest/metaharvest/extractors/broadcast"   // broadcast quality control
	_ "github.com/metaharvest/metaharvest/extractors/captions"    // caption_files, captions, captionsv2
	_ "github.com/metaharvest/metaharvest/extractors/documents"   // text, csv, json, xml, html, email, fdx, dbf
	_ "github.com/metaharvest/metaharvest/extractors/faces"       // vendor_faces
	_ "github.com/metaharvest/metaharvest/extractors/images"      // exiv2, thumbnailer
	_ "github.com/metaharvest/metaharvest/extractors/nlp"         // tokens, vendorlanguage, tokens_provider
	_ "github.com/metaharvest/metaharvest/extractors/nsfw"        // nsfw (the vision sidecar: deploy/vision), nsfw_provider
	_ "github.com/metaharvest/metaharvest/extractors/objects"     // objects (COCO, the vision sidecar)
	_ "github.com/metaharvest/metaharvest/extractors/ocr"         // tesseract, slates, credits, vendor_digital_slates, vendor_texted, vendor_textless
	_ "github.com/metaharvest/metaharvest/extractors/office"      // officex
	_ "github.com/metaharvest/metaharvest/extractors/pdf"         // pdf, document_pages
	_ "github.com/metaharvest/metaharvest/extractors/places"      // geocoding, weather
	_ "github.com/metaharvest/metaharvest/extractors/probe"       // mediainfo, audioinfo, m2ts, dpx, drm
	_ "github.com/metaharvest/metaharvest/extractors/recognition" // vendor_audio_classification, vendorsports, tags, logos (providers)
	_ "github.com/metaharvest/metaharvest/extractors/speech"      // speech_to_text, speech_to_text_provider
	_ "github.com/metaharvest/metaharvest/extractors/video"       // video_main_frames, video_previews, audio_previews
)
