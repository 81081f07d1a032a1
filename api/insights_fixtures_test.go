package api

import (
	"errors"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/models"
)

// Fixtures of the insight tests (summary, keyword hits, adult): what a
// harvest leaves in the database, written by hand.

// setMetadata replaces an item's extracted data.
func (e *env) setMetadata(itemID string, meta map[string]any) {
	e.t.Helper()
	if err := e.db.Exec(`UPDATE items SET metadata = ?::jsonb WHERE id = ?`, string(models.MustJSON(meta)), itemID).Error; err != nil {
		e.t.Fatal(err)
	}
}

// insertSegmentPart adds what one extractor reported of one moment.
func (e *env) insertSegmentPart(itemID, extractor string, timeMS int64, summary any) {
	e.t.Helper()
	if err := e.db.Exec(`INSERT INTO segment_parts (item_id, extractor, time_ms, summary) VALUES (?, ?, ?, ?::jsonb)`,
		itemID, extractor, timeMS, string(models.MustJSON(summary))).Error; err != nil {
		e.t.Fatal(err)
	}
}

// insertCaption adds a caption; addedAt orders the captions of an item.
func (e *env) insertCaption(id, itemID, extractor, source, language string, addedAt int, cues []extractors.Cue) {
	e.t.Helper()
	if err := e.db.Exec(`INSERT INTO captions (id, item_id, extractor, source, language, cues, added_at)
		VALUES (?, ?, ?, ?, ?, ?::jsonb, timestamptz '2024-01-01 00:00:00Z' + make_interval(secs => ?))`,
		id, itemID, extractor, source, language, string(models.MustJSON(cues)), addedAt).Error; err != nil {
		e.t.Fatal(err)
	}
}

// hiddenItemUser makes the item's location visible only to a group and
// returns the token of a user in another group holding scopes.
func (e *env) hiddenItemUser(locID, email string, scopes ...string) string {
	e.t.Helper()
	members := e.createGroup("Members of " + email)
	others := e.createGroup("Others of " + email)
	loc := e.do("GET", "/api/data/v3/locations/"+locID, e.adminToken, nil).status(200).json()
	cfg := loc["config"].(map[string]any)
	cfg["groups"] = []string{members}
	e.do("PUT", "/api/data/v3/locations/"+locID, e.adminToken, map[string]any{"kind": "filesystem", "name": loc["name"],
		"config": cfg, "version": loc["config"].(map[string]any)["version"]}).status(200)
	uid, tok := e.userWithScopes(email, scopes...)
	e.joinGroup(uid, others)
	return tok
}

// textRegistry knows a document extractor with a text (pdf), tesseract and
// an analysis that re-reads tesseract's frames (credits), as the standard
// families declare them: enough for the keyword hits to know the texts.
func textRegistry(t *testing.T) *extractors.Registry {
	t.Helper()
	reg := extractors.NewRegistry()
	text := []extractors.Field{{Path: "text", Type: extractors.TypeText, Doc: "text"}}
	never := func(extractors.Env) (extractors.Extractor, error) { return nil, errors.New("not run in these tests") }
	for _, info := range []extractors.Info{
		{Name: "pdf", Fields: text},
		{Name: "tesseract", Fields: text},
		{Name: "credits", Fields: text, After: []string{"tesseract", "video_main_frames"}},
		{Name: "speech_to_text", Fields: text},
		{Name: "mediainfo", Fields: []extractors.Field{{Path: "title", Type: extractors.TypeString, Doc: "title"}}},
	} {
		info.Implemented, info.Version, info.New, info.Family = true, "1", never, extractors.FamilyDocuments
		reg.MustRegister(info)
	}
	return reg
}
