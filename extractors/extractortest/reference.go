package extractortest

import "slices"

// referenceNames is the Extractor list of spec/api-reference.md, copied by
// hand: the names a deployment must know, implemented or not.
var referenceNames = []string{
	"archive", "audioinfo", "audio_previews", "audiopeak", "black_scenes", "csv",
	"caption_files", "captionsv2", "slates", "credits", "dbf", "dpx", "drm",
	"document_pages", "exiv2", "email", "captions", "fdx", "geocoding", "html",
	"hashes", "json", "m2ts", "mime_type", "mediainfo", "tesseract", "officex", "pdf",
	"thumbnailer", "tokens", "video_main_frames", "video_previews", "volumedetect",
	"weather", "xml", "store",
	"vendor_color_bars", "vendor_digital_slates", "vendor_audio_classification",
	"vendor_faces", "vendor_silence", "vendor_start_end", "vendor_texted",
	"vendor_textless", "vendorsports", "vendorlanguage",
}

// ReferenceNames returns the 46 extractor names of the reference's
// Extractor list (spec/api-reference.md, copied by hand, so that the
// registry is held to the document and not to itself), sorted.
func ReferenceNames() []string { return slices.Sorted(slices.Values(referenceNames)) }
