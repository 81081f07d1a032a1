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
	{Name: "archive", Family: FamilyTechnical, DisplayName: "Archive Contents", Version: "1.0.0"},
	{Name: "csv", Family: FamilyDocuments, DisplayName: "CSV", Version: "1.0.0"},
	{Name: "dbf", Family: FamilyDocuments, DisplayName: "dBASE Table", Version: "1.0.0"},
	{Name: "email", Family: FamilyDocuments, DisplayName: "Email", Version: "1.0.0"},
	{Name: "fdx", Family: FamilyDocuments, DisplayName: "Final Draft Script", Version: "1.0.0"},
	{Name: "html", Family: FamilyDocuments, DisplayName: "HTML", Version: "1.0.0"},
	{Name: "json", Family: FamilyDocuments, DisplayName: "JSON", Version: "1.0.0"},
	{Name: "officex", Family: FamilyDocuments, DisplayName: "Office Documents", Version: "1.0.0"},
	{Name: "xml", Family: FamilyDocuments, DisplayName: "XML", Version: "1.0.0"},
	{Name: "dpx", Family: FamilyTechnical, DisplayName: "DPX Image Header", Version: "1.0.0"},
	{Name: "caption_files", Family: FamilyCaptions, DisplayName: "Caption Files", Version: "1.0.0"},
	{Name: "tokens", Family: FamilyNLP, DisplayName: "Text Tokens", Version: "1.0.0"},

	// PDF and other paged documents (poppler-utils).
	{Name: "pdf", Family: FamilyDocuments, DisplayName: "PDF Text and Info", Version: "1.0.0", Tools: []string{"pdfinfo", "pdftotext"}},
	{Name: "document_pages", Family: FamilyDocuments, DisplayName: "Document Pages", Version: "1.0.0", Tools: []string{"pdfinfo", "pdftoppm"}},

	// Images.
	{Name: "exiv2", Family: FamilyImages, DisplayName: "Image Metadata (EXIF, IPTC, XMP)", Version: "1.0.0", Tools: []string{"exiftool"}},
	{Name: "tesseract", Family: FamilyText, DisplayName: "Text Recognition (OCR)", Version: "1.0.0", Tools: []string{"tesseract"}},
	{Name: "thumbnailer", Family: FamilyImages, DisplayName: "Thumbnails", Version: "1.0.0", Tools: []string{"ffmpeg"}},

	// Audio and video technical information.
	{Name: "mediainfo", Family: FamilyTechnical, DisplayName: "Media Info", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "audioinfo", Family: FamilyTechnical, DisplayName: "Audio Info", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "m2ts", Family: FamilyTechnical, DisplayName: "MPEG Transport Stream", Version: "1.0.0", Tools: []string{"ffprobe"}},
	{Name: "drm", Family: FamilyTechnical, DisplayName: "DRM Detection", Version: "1.0.0", Tools: []string{"ffprobe"}},

	// Audio and video analysis and previews.
	{Name: "audio_previews", Family: FamilyVideo, DisplayName: "Audio Previews", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "audiopeak", Family: FamilyQC, DisplayName: "Audio Peaks", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "volumedetect", Family: FamilyQC, DisplayName: "Volume Detection", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "black_scenes", Family: FamilyQC, DisplayName: "Black Scenes", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "video_main_frames", Family: FamilyVideo, DisplayName: "Video Main Frames", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "video_previews", Family: FamilyVideo, DisplayName: "Video Previews", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "captions", Family: FamilyCaptions, DisplayName: "Embedded Captions", Version: "1.0.0", Tools: []string{"ffmpeg"}},
	{Name: "captionsv2", Family: FamilyCaptions, DisplayName: "Embedded Captions v2", Version: "1.0.0", Tools: []string{"ffprobe", "ffmpeg"}},
	{Name: "slates", Family: FamilyText, DisplayName: "Slates", Version: "1.0.0", Tools: []string{"ffmpeg", "tesseract"}},
	{Name: "credits", Family: FamilyText, DisplayName: "Credits", Version: "1.0.0", Tools: []string{"ffmpeg", "tesseract"}},

	// Location services: no tool, an external provider.
	{Name: "geocoding", Family: FamilyPlaces, DisplayName: "Geocoding", Version: "1.0.0", Provider: "geocoding"},
	{Name: "weather", Family: FamilyPlaces, DisplayName: "Weather", Version: "1.0.0", Provider: "weather"},

	// Owner-branded analyses (brand replaced by "vendor" in the reference): frames
	// or audio are cut with ffmpeg and sent to the vendor's service.
	{Name: "vendor_color_bars", Family: FamilyQC, DisplayName: "Color Bars", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_digital_slates", Family: FamilyText, DisplayName: "Digital Slates", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_audio_classification", Family: FamilyRecognition, DisplayName: "Audio Classification", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_faces", Family: FamilyFaces, DisplayName: "Faces", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_silence", Family: FamilyQC, DisplayName: "Silence", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_start_end", Family: FamilyQC, DisplayName: "Program Start and End", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_texted", Family: FamilyText, DisplayName: "Texted Segments", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendor_textless", Family: FamilyText, DisplayName: "Textless Segments", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendorsports", Family: FamilyRecognition, DisplayName: "Sports", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
	{Name: "vendorlanguage", Family: FamilyNLP, DisplayName: "Spoken Language", Version: "1.0.0", Tools: []string{"ffmpeg"}, Provider: "vendor"},
}

func init() {
	for _, info := range catalogue {
		MustRegister(info)
	}
}
