package images

import (
	"errors"
	"path/filepath"
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
