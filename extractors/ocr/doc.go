// Package ocr reads the text seen in pictures: tesseract (pictures, the
// pages of scanned PDFs, the frames of videos) and the analyses built on
// the text of a video's frames, slates, credits, vendor_digital_slates,
// vendor_texted and vendor_textless. The vendor_* names are the
// reference's vendor-branded analyses; they run here, locally, with
// tesseract, and need no provider.
//
// # Reading a picture
//
// Every picture is first checked by Go (image.DecodeConfig: PNG, JPEG, GIF,
// BMP, TIFF, WebP; anything else is refused): at most 50 megapixels and
// 32000 pixels a side (a pixel flood is refused before any decode), and a
// picture, not a list of image names, which tesseract would otherwise open
// (URLs included). Then, through the Runner (Heavy, 3 GiB of address
// space, OMP_THREAD_LIMIT=1 so that it keeps to one CPU):
//
//	tesseract FILE - -l eng --psm 3 -c tessedit_page_number=0 tsv
//
// whose TSV gives each word with its confidence (ParseTSV). Words below
// confidence 40 are left out of the text (60 in video frames, which are
// busier pictures); a frame shows text when its kept words hold at least
// four letters or digits. Only the first page of a multi-page TIFF is
// read. The bare-tool equivalent for benchmarks is `tesseract FILE - -l
// eng` (the TSV costs the same). Measured here: about 0.1 s of CPU for
// a 640x360 frame with a few lines, 0.25 s for a sparse page at 100 dpi,
// 1.6 s for a dense page of print at 1024 pixels; 40 to 50 MB of memory.
//
// # What tesseract reads
//
//   - Pictures (PNG, JPEG, GIF, BMP, TIFF, WebP): the picture.
//   - PDFs: the page images document_pages rendered (its data lists
//     {page, path}, files below its artifact directory), only the pages
//     without a text layer when pdf ran (pdf's pages[].characters under 32,
//     or every page when pdf says scanned without listing pages). Without
//     document_pages, or when every page has text, nothing is recorded
//     (ErrUnsupported): pdf holds the text. Pages are separated by form
//     feeds in the text.
//   - Videos: the frames video_main_frames kept when it ran in the harvest
//     (its data lists {time, path}), else frames sampled by one ffmpeg
//     decode (sampling.go): every 2 s in the first and the last minute,
//     where slates, titles and credits are, evenly between, within the
//     budget.
//
// The bare-tool equivalent of the sampling is
//
//	ffmpeg -nostdin -i FILE -map 0:v:0 -vf "select='EXPR',scale=w='min(960,iw)':h='min(960,ih)':force_original_aspect_ratio=decrease,format=gray" \
//	  -fps_mode passthrough -frames:v 200 -f image2 DIR/%09d.png
//
// TESSERACT_MAX_IMAGES (default 200) bounds the pictures read per item:
// the first pages of a document, frames spread evenly over a video. Each
// extractor has an hour; a video's frames are read by as many tesseracts
// at once as the Runner has heavy slots (up to four).
//
// # One reading per harvest
//
// A video's frames are read once per harvest (Input.Shared): tesseract
// stores each frame's reading in its data (frames[]: time, text, words,
// lines, confidence, has_text), and the analyses, which run after it,
// read them there; when tesseract was not requested, the first analysis
// to run reads the frames and the others share its reading. Frames with
// text are tesseract's segments (summary.ocr [{text, source
// "tesseract"}]) at the frames' times, which are video_main_frames' own
// times when its frames were read, so that they merge with its segments.
//
// # The analyses
//
// Times found on frames are exact to the spacing of the frames (stored as
// frame_interval): a frame stands for the video from its time to the next
// frame's. The rules: slates and vendor_digital_slates in slate_rule.go
// (slate words in the first or last minute, confirmed by vendor_start_end's
// still and silent slates when it ran) and slate_fields.go (fields read off
// the slate: title, scene, take, date, duration ...); credits in
// credits.go (runs of frames of short lines near the end); vendor_texted
// and vendor_textless in texted_ranges.go (frames with and without text).
// Lists hold the first 1000 ranges; counts and totals cover all.
//
// # Limits of the text
//
// tesseract's text is at most 256 KiB per item (what search indexes per
// item; text_truncated says more was read), a frame's text in frames[] at
// most 1 KiB, the text of a run of credits 16 KiB.
package ocr
