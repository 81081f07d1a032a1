package office

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func thumbnailOf(t *testing.T, b []byte) ([]byte, error) {
	t.Helper()
	return Thumbnail(context.Background(), bytes.NewReader(b), int64(len(b)))
}

// The OpenDocument samples carry Thumbnails/thumbnail.png (sizes read with
// unzip -p and the PNG header); the OOXML samples carry none.
func TestThumbnailOfRealDocuments(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][2]int{"sample-odt.odt": {181, 256}, "sample-ods.ods": {189, 255}, "sample-odp.odp": {256, 144}} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pic, err := thumbnailOf(t, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(pic))
		if err != nil || cfg.Width != want[0] || cfg.Height != want[1] {
			t.Errorf("%s: %dx%d (%v), want %dx%d", name, cfg.Width, cfg.Height, err, want[0], want[1])
		}
	}
	for _, name := range []string{"sample-docx.docx", "sample-xlsx.xlsx", "sample-pptx.pptx"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		if _, err := thumbnailOf(t, b); !errors.Is(err, extractors.ErrUnsupported) {
			t.Errorf("%s: err %v, want unsupported (no thumbnail)", name, err)
		}
	}
}

// An OOXML package's thumbnail is the part its thumbnail relationship
// names, wherever it is; without the relationship, docProps/thumbnail.jpeg.
// Bombs and non-zips are refused as officex refuses them.
func TestThumbnailOfOOXML(t *testing.T) {
	t.Parallel()
	const types = `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`
	related := zipOf(t, map[string]string{
		"[Content_Types].xml": types,
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail" Target="/docProps/cover.jpeg"/></Relationships>`,
		"docProps/cover.jpeg":     "the related picture",
		"docProps/thumbnail.jpeg": "not this one",
	})
	if b, err := thumbnailOf(t, related); err != nil || string(b) != "the related picture" {
		t.Errorf("related thumbnail: %q, %v", b, err)
	}
	plain := zipOf(t, map[string]string{"[Content_Types].xml": types, "docProps/thumbnail.jpeg": "the usual place"})
	if b, err := thumbnailOf(t, plain); err != nil || string(b) != "the usual place" {
		t.Errorf("thumbnail without relationship: %q, %v", b, err)
	}
	big := zipOf(t, map[string]string{"[Content_Types].xml": types, "docProps/thumbnail.jpeg": string(make([]byte, maxThumbnailBytes+1))})
	if _, err := thumbnailOf(t, big); err == nil {
		t.Error("a thumbnail over the cap (and a bomb by its ratio) was read")
	}
	if _, err := thumbnailOf(t, []byte("PK\x03\x04 not really")); err == nil || errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("a broken zip: err %v, want a recorded error", err)
	}
}
