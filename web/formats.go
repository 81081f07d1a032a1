package web

// formatNames name the file formats people meet most, by MIME type, for
// the result cards: "Word document" reads better than
// application/vnd.openxmlformats-officedocument.wordprocessingml.document.
// A type not listed is shown as its kind and MIME type.
var formatNames = map[string]string{
	"application/pdf": "PDF document",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "Word document",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel workbook",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation",
	"application/msword":                              "Word 97-2003 document",
	"application/vnd.ms-excel":                        "Excel 97-2003 workbook",
	"application/vnd.ms-powerpoint":                   "PowerPoint 97-2003 presentation",
	"application/vnd.oasis.opendocument.text":         "OpenDocument text",
	"application/vnd.oasis.opendocument.spreadsheet":  "OpenDocument spreadsheet",
	"application/vnd.oasis.opendocument.presentation": "OpenDocument presentation",
	"application/vnd.oasis.opendocument.graphics":     "OpenDocument drawing",
	"application/rtf":                                 "RTF document",
	"application/epub+zip":                            "EPUB book",
	"message/rfc822":                                  "Email message",
	"application/vnd.ms-outlook":                      "Outlook message",
	"text/rtf":                                        "RTF document",
	"text/plain":                                      "Plain text",
	"text/csv":                                        "CSV table",
	"text/html":                                       "Web page",
	"application/json":                                "JSON data",
	"application/xml":                                 "XML data",
	"text/xml":                                        "XML data",
	"application/x-subrip":                            "SubRip subtitles",
	"text/vtt":                                        "WebVTT subtitles",
	"application/zip":                                 "ZIP archive",
	"application/x-tar":                               "Tar archive",
	"application/gzip":                                "Gzip archive",
	"application/x-7z-compressed":                     "7-Zip archive",
	"image/jpeg":                                      "JPEG image",
	"image/png":                                       "PNG image",
	"image/gif":                                       "GIF image",
	"image/webp":                                      "WebP image",
	"image/tiff":                                      "TIFF image",
	"image/bmp":                                       "BMP image",
	"image/avif":                                      "AVIF image",
	"image/heic":                                      "HEIC image",
	"image/svg+xml":                                   "SVG drawing",
	"image/x-adobe-dng":                               "DNG raw image",
	"video/mp4":                                       "MP4 video",
	"video/quicktime":                                 "QuickTime video",
	"video/matroska":                                  "Matroska video",
	"video/x-matroska":                                "Matroska video",
	"video/webm":                                      "WebM video",
	"video/x-msvideo":                                 "AVI video",
	"video/mp2t":                                      "MPEG transport stream",
	"video/3gpp":                                      "3GP video",
	"video/x-flv":                                     "Flash video",
	"video/ogg":                                       "Ogg video",
	"video/mpeg":                                      "MPEG video",
	"application/mxf":                                 "MXF video",
	"audio/mpeg":                                      "MP3 audio",
	"audio/wav":                                       "WAV audio",
	"audio/x-wav":                                     "WAV audio",
	"audio/flac":                                      "FLAC audio",
	"audio/aac":                                       "AAC audio",
	"audio/x-m4a":                                     "M4A audio",
	"audio/mp4":                                       "M4A audio",
	"audio/ogg":                                       "Ogg audio",
	"audio/aiff":                                      "AIFF audio",
	"audio/x-aiff":                                    "AIFF audio",
}

// formatLabel is what a result card calls an item: the name of its format
// when it is a common one, else its kind and MIME type ("Other ·
// application/x-foo").
func formatLabel(kind, mime string) string {
	if name := formatNames[mime]; name != "" {
		return name
	}
	label := typeLabels[kind]
	if mime != "" {
		if label != "" {
			label += " · "
		}
		label += mime
	}
	return label
}
