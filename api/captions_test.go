package api

import (
	"bytes"
	"mime"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
)

func init() {
	openapi3filter.RegisterBodyDecoder("application/x-subrip", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/vtt", openapi3filter.PlainBodyDecoder)
}

const uploadSRT = "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Bonjour</i> tout le monde\r\n\r\n2\r\n00:01:00,250 --> 00:01:01,000\r\nAu revoir\r\n"

type captionBody struct {
	ID       string `json:"id"`
	Source   string `json:"source"`
	Language struct {
		Language   string  `json:"language"`
		Confidence float64 `json:"confidence"`
	} `json:"language"`
	AddedAt    int64 `json:"added_at"`
	Transcript []struct {
		StartAt float64 `json:"start_at"`
		EndAt   float64 `json:"end_at"`
		Text    string  `json:"text"`
	} `json:"transcript"`
	Extractor string `json:"extractor"`
	Format    string `json:"format"`
	FileName  string `json:"file_name"`
}

// uploadCaption posts a multipart body with a caption_file part (when
// fileName is not empty) and the given form fields.
func (e *env) uploadCaption(token, itemID, fileName, content string, fields map[string]string) *response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if fileName != "" {
		w, _ := mw.CreateFormFile("caption_file", fileName)
		w.Write([]byte(content))
	}
	mw.Close()
	return e.doRaw("POST", "/api/data/v3/items/"+itemID+"/captions", token, buf.Bytes(), mw.FormDataContentType())
}

func (e *env) listCaptions(token, itemID string) []captionBody {
	e.t.Helper()
	var body struct {
		Captions struct {
			Captions []captionBody `json:"captions"`
		} `json:"captions"`
	}
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions", token, nil).status(200).decode(&body)
	return body.Captions.Captions
}

func TestCaptionsListUploadDownloadDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "show"))["id"].(string)
	itemID := e.insertItem(locID, "show", "2024/clip one.mp4")
	otherID := e.insertItem(locID, "show", "other.mp4")
	if err := e.db.Exec(`INSERT INTO captions (id, item_id, extractor, label, source, language, confidence, format, cues)
		VALUES ('cap-x', ?, 'captionsv2', '2', 'embedded', 'eng', 1, 'mov_text',
		'[{"start_at": 0.5, "end_at": 1.25, "text": "Hello world"}, {"start_at": 3661.001, "end_at": 3662, "text": "two\nlines"}]')`,
		itemID).Error; err != nil {
		t.Fatal(err)
	}

	got := e.listCaptions(e.adminToken, itemID)
	if len(got) != 1 || got[0].ID != "cap-x" || got[0].Source != "embedded" || got[0].Language.Language != "eng" ||
		got[0].Language.Confidence != 1 || got[0].AddedAt < 1e9 || len(got[0].Transcript) != 2 ||
		got[0].Transcript[1].StartAt != 3661.001 || got[0].Transcript[1].Text != "two\nlines" {
		t.Fatalf("extracted caption %+v", got)
	}

	// Extracted captions download as SubRip made from their cues.
	r := e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id=cap-x", e.adminToken, nil).status(200)
	wantSRT := "1\r\n00:00:00,500 --> 00:00:01,250\r\nHello world\r\n\r\n2\r\n01:01:01,001 --> 01:01:02,000\r\ntwo\r\nlines\r\n\r\n"
	if string(r.Body) != wantSRT || !strings.HasPrefix(r.Head.Get("Content-Type"), "application/x-subrip") {
		t.Errorf("extracted download %q (%s)", r.Body, r.Head.Get("Content-Type"))
	}
	if _, params, err := mime.ParseMediaType(r.Head.Get("Content-Disposition")); err != nil || params["filename"] != "clip one.eng.srt" {
		t.Errorf("content disposition %q", r.Head.Get("Content-Disposition"))
	}

	// Upload: validated, stored as sent, the item queued for the index.
	var up captionBody
	e.uploadCaption(e.adminToken, itemID, "film.srt", uploadSRT, map[string]string{"language": "fr"}).status(201).decode(&up)
	if up.Source != "uploaded" || up.Language.Language != "fr" || up.Language.Confidence != 1 || up.Format != "srt" ||
		up.Extractor != "" || up.FileName != "film.srt" || len(up.Transcript) != 2 ||
		up.Transcript[0].StartAt != 1 || up.Transcript[0].EndAt != 2.5 || up.Transcript[0].Text != "Bonjour tout le monde" ||
		up.Transcript[1].StartAt != 60.25 {
		t.Fatalf("uploaded %+v", up)
	}
	if e.auditCount("caption", "upload", up.ID) != 1 {
		t.Error("no upload audit event")
	}
	if e.count(`SELECT count(*) FROM search_outbox WHERE item_id = ?`, itemID) != 1 {
		t.Error("item not queued for the search index")
	}
	r = e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+up.ID, e.adminToken, nil).status(200)
	if string(r.Body) != uploadSRT || !strings.HasPrefix(r.Head.Get("Content-Type"), "application/x-subrip") ||
		!strings.Contains(r.Head.Get("Content-Disposition"), `attachment; filename=film.srt`) {
		t.Errorf("uploaded download %q %v", r.Body, r.Head)
	}
	if got := e.listCaptions(e.adminToken, itemID); len(got) != 2 || got[1].ID != up.ID {
		t.Errorf("list after upload %+v", got)
	}

	// WebVTT: the language from its header, else from the file name.
	vtt := "WEBVTT\nLanguage: de\n\n00:01.000 --> 00:02.000\nHallo\n"
	var v captionBody
	e.uploadCaption(e.adminToken, itemID, "x.vtt", vtt, nil).status(201).decode(&v)
	if v.Format != "vtt" || v.Language.Language != "de" {
		t.Errorf("vtt upload %+v", v)
	}
	r = e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+v.ID, e.adminToken, nil).status(200)
	if string(r.Body) != vtt || !strings.HasPrefix(r.Head.Get("Content-Type"), "text/vtt") {
		t.Errorf("vtt download %q %s", r.Body, r.Head.Get("Content-Type"))
	}
	e.uploadCaption(e.adminToken, itemID, "movie.pt-BR.srt", uploadSRT, nil).status(201).decode(&v)
	if v.Language.Language != "pt-BR" {
		t.Errorf("language from the name: %+v", v.Language)
	}
	// None declared: the language of the words when they tell, else none.
	turkish := "1\n00:00:01,000 --> 00:00:02,000\nBenim adım Deniz ve bu akşam İstanbul'a dönüyorum.\n\n" +
		"2\n00:00:03,000 --> 00:00:04,000\nBaşka seçeneğim yoktu, yarın sabah erkenden limana gideceğiz.\n\n" +
		"3\n00:00:05,000 --> 00:00:06,000\nNeden bana hiç güvenmiyorsun? Çünkü her seferinde yalan söylüyorsun.\n"
	e.uploadCaption(e.adminToken, itemID, "movie.srt", turkish, nil).status(201).decode(&v)
	if v.Language.Language != "tr" || v.Language.Confidence <= 0.8 || v.Language.Confidence >= 1 {
		t.Errorf("language of the words: %+v", v.Language)
	}
	e.uploadCaption(e.adminToken, itemID, "music.srt", "1\n00:00:01,000 --> 00:00:02,000\n♪ ♪\n", nil).status(201).decode(&v)
	if v.Language.Language != "" || v.Language.Confidence != 0 {
		t.Errorf("no language: %+v", v.Language)
	}

	// Delete, uploaded or extracted.
	d := e.do("DELETE", "/api/data/v3/items/"+itemID+"/captions?caption_id="+up.ID, e.adminToken, nil).status(200).json()
	if d["id"] != up.ID || d["deleted"] != true || e.auditCount("caption", "delete", up.ID) != 1 {
		t.Errorf("delete %v", d)
	}
	e.do("DELETE", "/api/data/v3/items/"+itemID+"/captions?caption_id=cap-x", e.adminToken, nil).status(200)
	if got := e.listCaptions(e.adminToken, itemID); len(got) != 4 {
		t.Errorf("after deletes: %d captions", len(got))
	}
	e.do("DELETE", "/api/data/v3/items/"+itemID+"/captions?caption_id="+up.ID, e.adminToken, nil).status(404)
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+up.ID, e.adminToken, nil).status(404)

	// A caption is reached only through its own item.
	e.do("GET", "/api/data/v3/items/"+otherID+"/captions/download?caption_id="+v.ID, e.adminToken, nil).status(404)
	e.do("DELETE", "/api/data/v3/items/"+otherID+"/captions?caption_id="+v.ID, e.adminToken, nil).status(404)
	if got := e.listCaptions(e.adminToken, otherID); len(got) != 0 {
		t.Errorf("other item has %d captions", len(got))
	}
}

func TestCaptionUploadRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "show"))["id"].(string)
	itemID := e.insertItem(locID, "show", "clip.mp4")
	notSRT, err := os.ReadFile("../extractors/captions/testdata/not.srt.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		file, content string
		fields        map[string]string
		status        int
		code          string
	}{
		"looks like srt":   {"x.srt", string(notSRT), nil, 400, "invalid_caption"},
		"binary":           {"x.srt", "\x00\x01\x02\xff garbage", nil, 400, "invalid_caption"},
		"empty":            {"x.srt", "", nil, 400, "invalid_caption"},
		"no cue":           {"x.vtt", "WEBVTT\n", nil, 400, "validation_failed"},
		"ass":              {"x.ass", "[Script Info]\n[Events]\nDialogue: 0,0:00:01.00,0:00:02.00,,,0,0,0,,x\n", nil, 400, "validation_failed"},
		"bad language":     {"x.srt", uploadSRT, map[string]string{"language": "not a language"}, 400, "validation_failed"},
		"long language":    {"x.srt", uploadSRT, map[string]string{"language": strings.Repeat("e", 100)}, 400, "validation_failed"},
		"no file part":     {"", "", map[string]string{"language": "en"}, 400, "validation_failed"},
		"too large":        {"x.srt", strings.Repeat("a", 5<<20), nil, 413, ""},
		"cue without text": {"x.srt", "1\n00:00:01,000 --> 00:00:02,000\n\n", nil, 400, "validation_failed"},
	} {
		r := e.uploadCaption(e.adminToken, itemID, c.file, c.content, c.fields)
		if r.Code != c.status || c.code != "" && r.errCode() != c.code {
			t.Errorf("%s: %d %s", name, r.Code, r.Body)
		}
	}
	// Not multipart at all.
	if r := e.doRaw("POST", "/api/data/v3/items/"+itemID+"/captions", e.adminToken, []byte(uploadSRT), "application/x-subrip"); r.Code != 400 {
		t.Errorf("raw body: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/api/data/v3/items/"+itemID+"/captions", e.adminToken, map[string]string{"caption_file": uploadSRT}); r.Code != 400 {
		t.Errorf("JSON body: %d %s", r.Code, r.Body)
	}
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+strings.Repeat("x", 65), e.adminToken, nil).status(400)
	e.do("DELETE", "/api/data/v3/items/"+itemID+"/captions", e.adminToken, nil).status(400)
	if n := e.count(`SELECT count(*) FROM captions WHERE item_id = ?`, itemID); n != 0 {
		t.Errorf("%d captions stored by refused uploads", n)
	}
}

func TestCaptionsVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.createGroup("Newsroom")
	e.createGroup("Sports")
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "show"), g)["id"].(string)
	itemID := e.insertItem(locID, "show", "clip.mp4")
	var up captionBody
	e.uploadCaption(e.adminToken, itemID, "a.srt", uploadSRT, nil).status(201).decode(&up)

	// Another group's user sees nothing of the item.
	outsider, tok := e.userWithScopes("out@example.com", "captions:read", "captions:write")
	e.joinGroup(outsider, e.do("GET", "/api/data/v3/groups", e.adminToken, nil).status(200).json()["groups"].([]any)[1].(map[string]any)["id"].(string))
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions", tok, nil).status(403)
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+up.ID, tok, nil).status(403)
	e.do("DELETE", "/api/data/v3/items/"+itemID+"/captions?caption_id="+up.ID, tok, nil).status(403)
	e.uploadCaption(tok, itemID, "b.srt", uploadSRT, nil).status(403)

	// A member reads; without captions:write it may not change anything.
	member, mtok := e.userWithScopes("member@example.com", "captions:read")
	e.joinGroup(member, g)
	if got := e.listCaptions(mtok, itemID); len(got) != 1 {
		t.Errorf("member sees %d captions", len(got))
	}
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions/download?caption_id="+up.ID, mtok, nil).status(200)
	if r := e.uploadCaption(mtok, itemID, "b.srt", uploadSRT, nil); r.Code != 403 || r.errCode() != "missing_scope" {
		t.Errorf("upload without captions:write: %d %s", r.Code, r.Body)
	}

	// Unknown and deleted items are 404.
	for _, id := range []string{"nope", strings.Repeat("f", 200)} {
		e.do("GET", "/api/data/v3/items/"+id+"/captions", e.adminToken, nil).status(404)
		e.do("GET", "/api/data/v3/items/"+id+"/captions/download?caption_id=x", e.adminToken, nil).status(404)
		e.do("DELETE", "/api/data/v3/items/"+id+"/captions?caption_id=x", e.adminToken, nil).status(404)
		e.uploadCaption(e.adminToken, id, "a.srt", uploadSRT, nil).status(404)
	}
	e.do("DELETE", "/api/data/items/"+itemID, e.adminToken, nil).status(200)
	e.do("GET", "/api/data/v3/items/"+itemID+"/captions", e.adminToken, nil).status(404)
}
