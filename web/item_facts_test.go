package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// A photo's page shows it at the larger thumbnail's size and its summary
// says what a person asks of it first: its size as seen, when and with
// what it was taken, and where, each value a search for it.
func TestPhotoPageFacts(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	photo := c.item("pub", models.ContainerID("pub", "media"), "photos/harbour.jpg", "image/jpeg", map[string]any{
		"exiv2": map[string]any{"width": 4000.0, "height": 3000.0, "orientation": 6.0, "created_local": "2014-04-26T19:09:19",
			"camera": map[string]any{"make": "Canon", "model": "Canon EOS 5D <Mark II>"}},
		"geocoding": map[string]any{"city": "Stockholm", "region": "Stockholm", "country": map[string]any{"name": "Sweden", "code": "SE"}}})
	for _, a := range []models.Artifact{
		{ItemID: photo, Path: "aa/" + photo + "/thumbnailer/thumb_320.jpg", Extractor: "thumbnailer", Kind: "thumbnail", Width: 240, Height: 320},
		{ItemID: photo, Path: "aa/" + photo + "/thumbnailer/thumb_1280.jpg", Extractor: "thumbnailer", Kind: "thumbnail_large", Width: 960, Height: 1280},
	} {
		c.must(c.db.Create(&a).Error)
	}
	body := c.page("/items/"+url.PathEscape(photo), admin, http.StatusOK)
	for _, want := range []string{`<p class="where">JPEG image · `, `<img src="/api/data/artifacts/aa/` + photo + `/thumbnailer/thumb_1280.jpg" alt="Preview of harbour.jpg" width="960" height="1280">`,
		"<div><dt>Dimensions</dt><dd>3000 × 4000 · 12.0 MP</dd></div>",
		"<div><dt>Taken</dt><dd>2014-04-26 19:09:19 (camera clock, time zone unknown)</dd></div>",
		`<div><dt>Camera</dt><dd><a href="/?f=exiv2.camera.model%3ACanon&#43;EOS&#43;5D&#43;%3CMark&#43;II%3E">Canon EOS 5D &lt;Mark II&gt;</a></dd></div>`,
		`<div><dt>Place</dt><dd><a href="/?f=geocoding.city%3AStockholm">Stockholm</a> · <a href="/?f=geocoding.country.name%3ASweden">Sweden</a></dd></div>`,
		`<a href="/api/data/items/` + photo + `/export?format=xmp" download>XMP sidecar</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the photo's page lacks %s", want)
		}
	}
	clip := c.item("pub", models.ContainerID("pub", "media"), "trips/ferry.mov", "video/quicktime", map[string]any{
		"mediainfo": map[string]any{"duration": 5.0, "creation_time": "2023-07-01T08:30:00Z", "video": map[string]any{"width": 1920.0, "height": 1080.0}}})
	c.must(c.db.Create(&models.Artifact{ItemID: clip, Path: "bb/" + clip + "/thumbnailer/thumb_1280.jpg", Extractor: "thumbnailer",
		Kind: "thumbnail_large", Width: 1280, Height: 720}).Error)
	body = c.page("/items/"+url.PathEscape(clip), admin, http.StatusOK)
	// The video's representative frame stands in the player until it plays.
	for _, want := range []string{`<video id="player" controls preload="metadata" poster="/api/data/artifacts/bb/` + clip + `/thumbnailer/thumb_1280.jpg" src="/api/data/items/` + clip + `/content"></video>`,
		"<div><dt>Picture</dt><dd>1920 × 1080</dd></div>", "<div><dt>Recorded</dt><dd>2023-07-01 08:30 UTC</dd></div>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the video's page lacks %s", want)
		}
	}
	if strings.Contains(body, "<dt>Camera</dt>") || strings.Contains(body, "<dt>Place</dt>") || strings.Contains(body, "format=xmp") {
		t.Errorf("the video's page names a camera or place it has none of, or offers an XMP sidecar")
	}
}
