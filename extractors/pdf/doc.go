// Package pdf holds the extractors of PDF documents, run with poppler-utils
// (22.12) through the extractors' Runner:
//
//   - pdf: metadata and page facts from `pdfinfo -isodates -enc UTF-8 -f 1
//     -l 50 FILE`, the text from `pdftotext -enc UTF-8 -eol unix FILE -`
//     (reading order, not -layout: layout pads columns with spaces, which
//     costs the text cap and splits phrases across columns) capped at
//     doctext.MaxText (256 KiB; pdftotext is killed once it has written
//     2 MiB, so a huge document costs bounded time), pages separated by form
//     feeds ("\f") as pdftotext writes them, and whether the document is a
//     scan: `pdfimages -list -f 1 -l 50 FILE` gives the images of the first
//     50 pages with their resolution, so their area on the page; a page is
//     scanned when it has fewer than 32 non-space characters of text and
//     images cover at least half of it, and the document is a scan when at
//     least half of the pages examined are.
//   - document_pages: page images as artifacts (kind "page"), the first 50
//     pages at most 1024 pixels on their long side, JPEG, by `pdftoppm -jpeg
//     -scale-to 1024 -f 1 -l 50 FILE DIR/page`, plus a 256-pixel first page
//     (kind "thumbnail"). Both limits are settings
//     (DOCUMENT_PAGES_MAX_PAGES, DOCUMENT_PAGES_MAX_SIDE). OCR (tesseract)
//     reads the pages listed in its data below Input.ArtifactsOf.
//
// A long document is not refused: pdfinfo reads its structure whole and
// pdftotext its text until the output cap, each under the Runner's memory
// bound (1 and 2 GiB), and what is cut is the text kept (the documented
// cap, text_truncated): the page facts still cover the document, unlike
// the Go parsers of extractors/documents, which refuse a file larger than
// they parse. A file poppler cannot read is a recorded error of the tool.
//
// pdfinfo's reading is shared between the two (Input.Shared), so a harvest
// running both reads the document's structure once. A PDF encrypted with a
// user password is refused with the error "encrypted with a password"
// (nothing can be read without it); one with only an owner password
// (restrictions) is read and reported "encrypted": true.
package pdf
