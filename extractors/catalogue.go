package extractors

// catalogue lists every extractor API name of the reference as a
// placeholder: settings, profiles and harvest requests can name them all,
// with the tools they need so that deployments can be prepared, and
// Available reports a placeholder as not implemented. An implementation
// registers itself under the same name from its family's package (see
// extractors/standard), which replaces the placeholder; store, mime_type
// and hashes live in this package. TestDefaultKnowsReference checks that
// the names are exactly the reference's list.
var catalogue = []Info{
	// Containers and documents, parsed in Go.
	{Name: "archive", DisplayName: "Archive Contents", Version: "1.0.0"},
	{Name: "csv", DisplayName: "CSV", Version: "1.0.0"},
	{Name: "dbf", DisplayName: "dBASE Table", Version: "1.0.0"},
	{Name: "email", DisplayName: "Email", Version: "1.0.0"},
	{Name: "fdx", DisplayName: "Final Draft Script", Version: "1.0.0"},
	{Name: "html", DisplayName: "HTML", Version: "1.0.0"},
	{Name: "json", DisplayName: "JSON", Version: "1.0.0"},
	{Name: "officex", DisplayName: "Office Documents", Version: "1.0.0"},
	{Name: "xml", DisplayName: "XML", Version: "1.0.0"},
	{Name: "dpx", DisplayName: "DPX Image Header", Version: "1.0.0"},
	{Name: "caption_files", DisplayName: "Caption Files", Version: "1.0.0"},
	{Name: "tokens", DisplayName: "Text Tokens", Version: "1.0.0"},

	// PDF and other paged documents (poppler-utils).
	{Name: "pdf", DisplayName: "PDF Text and Info", Version: "1.0.0", Tools: []string{"pdfinfo", "pdftotext"}},
	{Name: "document_pages", DisplayName: "Document Pages", Version: "1.0.0", Tools: []string{"pdfinfo", "pdftoppm"}},

	// Images.
	{Name: "exiv2", DisplayName: "Image Metadata (EXIF, IPTC, XMP)", Version: "1.0.0", Tools: []string{"exiftool"}},
	{Name: "tesseract", DisplayName: "Text Recognition (OCR)", Version: "1.0.0", Tools: []string{"tesseract"}},
	{Name: "thumbnailer", DisplayName: "Thumbnails", Version: "1.0.0", Tools: []string{"ffmpeg"}},

	// Audio and video technical information.
	{Name: "mediainfo", DisplayName: "Media Info", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "audioinfo", DisplayName: "Audio Info", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "m2ts", DisplayName: "MPEG Transport Stream", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "drm", DisplayName: "DRM Detection", Version: "1.0.0", Tools: []string{"ffprobe"}},

	// Audio and video analysis and previews.
	{Name: "audio_previews", DisplayName: "Audio Previews", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "audiopeak", DisplayName: "Audio Peaks", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "volumedetect", DisplayName: "Volume Detection", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "black_scenes", DisplayName: "Black Scenes", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "video_main_frames", DisplayName: "Video Main Frames", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "video_previews", DisplayName: "Video Previews", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "captions", DisplayName: "Embedded Captions", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "captionsv2", DisplayName: "Embedded Captions v2", Version: "1.0.0", Tools: []string{"ffprobe", "ffmpeg"}},
	{Name: "slates", DisplayName: "Slates", Version: "1.0.0", Tools: []string{"ffmpeg", "tesseract"}},
	{Name: "credits", DisplayName: "Credits", Version: "1.0.0", Tools: []string{"ffmpeg", "tesseract"}},

	// Location services: no tool, an external provider.
	{Name: "geocoding", DisplayName: "Geocoding", Version: "1.0.0", Provider: "geocoding"},
	{Name: "weather", DisplayName: "Weather", Version: "1.0.0", Provider: "weather"},

	// Owner-branded analyses (brand replaced by "vendor" in the reference): frames
	// or audio are cut with ffmpeg and sent to the vendor's service.
	{Name: "vendor_color_bars", DisplayName: "Color Bars", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_digital_slates", DisplayName: "Digital Slates", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_audio_classification", DisplayName: "Audio Classification", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_faces", DisplayName: "Faces", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_silence", DisplayName: "Silence", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_start_end", DisplayName: "Program Start and End", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_texted", DisplayName: "Texted Segments", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_textless", DisplayName: "Textless Segments", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendorsports", DisplayName: "Sports", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendorlanguage", DisplayName: "Spoken Language", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
}

func init() {
	for _, info := range catalogue {
		MustRegister(info)
	}
}
