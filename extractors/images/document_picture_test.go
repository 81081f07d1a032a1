package images

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// An OpenDocument text is shown by the picture of its first page it
// carries (181 x 256 in the sample); an OOXML document without one is not
// the thumbnailer's (nothing recorded).
func TestDocumentThumbnailIsTheOneItCarries(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	o, dir := run(t, reg, "thumbnailer", "../office/testdata/sample-odt.odt", "application/vnd.oasis.opendocument.text")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["picture"] != pictureEmbedded || lookup(o.Data, "source.format") != "png" || lookup(o.Data, "source.width") != 181 ||
		lookup(o.Data, "thumbnail.width") != 181 || lookup(o.Data, "thumbnail.height") != 256 {
		t.Errorf("data %v", o.Data)
	}
	if b := decodeFile(t, filepath.Join(dir, "thumb_320.jpg")).Bounds(); b.Dx() != 181 || b.Dy() != 256 {
		t.Errorf("thumbnail %v", b)
	}
	o, _ = run(t, reg, "thumbnailer", "../office/testdata/sample-docx.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
	if !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("a docx without a thumbnail: err %v, data %v", o.Err, o.Data)
	}
}

// A document whose thumbnail declares a pixel flood is a recorded error,
// decided before the picture is decoded.
func TestDocumentThumbnailPixelFlood(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string][]byte{"mimetype": []byte("application/vnd.oasis.opendocument.text"), "content.xml": []byte("<office:document-content/>"),
		"Thumbnails/thumbnail.png": pngHeader(60000, 60000)} {
		w, _ := zw.Create(name)
		w.Write(body)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "flood.odt")
	os.WriteFile(p, buf.Bytes(), 0o644)
	o, _ := run(t, registry(t, nil), "thumbnailer", p, "application/vnd.oasis.opendocument.text")
	if o.Err == nil || !strings.Contains(o.Err.Error(), "over the pixel limit") || extractors.IsTransient(o.Err) {
		t.Errorf("err = %v, want a deterministic pixel limit error", o.Err)
	}
}
