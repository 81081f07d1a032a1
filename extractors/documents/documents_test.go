package documents

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// names are the extractors of this package.
var names = []string{"text", "csv", "json", "xml", "html", "email", "fdx", "dbf"}

// registry holds the base extractors and this package's.
func registry(t testing.TB) *extractors.Registry {
	return extractortest.Registry(t, nil, append([]string{"store", "mime_type"}, names...)...)
}

// run runs one extractor on the file at path, as a harvest of the file
// named name (its base name when empty) would.
func run(t testing.TB, extractor, path, name string) extractors.Outcome {
	t.Helper()
	in := extractortest.Input(t, path)
	if name != "" {
		in.Name = name
	}
	return extractortest.Run(t, registry(t), extractor, in)
}

func TestSuite(t *testing.T) {
	t.Parallel()
	extractortest.Suite(t, registry(t), extractortest.Samples(t, "testdata"))
}

// expect compares the listed fields of got with want (JSON-decoded).
func expect(t *testing.T, got map[string]any, want map[string]any) {
	t.Helper()
	for k, w := range want {
		wj, _ := json.Marshal(w)
		var wv any
		json.Unmarshal(wj, &wv)
		if !reflect.DeepEqual(got[k], wv) {
			t.Errorf("%s = %#v, want %#v", k, got[k], wv)
		}
	}
}

func textOf(d map[string]any) string { s, _ := d["text"].(string); return s }

func contains(t *testing.T, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q: %.300q", w, text)
		}
	}
}

// Expected values below were read from the files by hand and with other
// tools when they were added: Python 3.13's csv, json, xml.etree, email
// and struct modules, and wc -l.

// The worker hands small files over as Content (with a Path that must not
// be read): the text is the same.
func TestTextFromContent(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"utf8.txt", "utf16lebom.txt", "hello.py"} {
		want := extractortest.Data(t, run(t, "text", "testdata/"+f, ""))
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		in := &extractors.Input{Name: f, Path: filepath.Join(t.TempDir(), "not-read"), Size: int64(len(b)), Content: b, MIME: "text/plain"}
		got := extractortest.Data(t, extractors.RunOne(context.Background(), registry(t), "text", in, time.Minute))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: from content %v, from the file %v", f, got, want)
		}
	}
}

func TestTextGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "text", "testdata/utf8.txt", ""))
	expect(t, d, map[string]any{"encoding": "utf-8", "line_count": 43})
	contains(t, textOf(d), "Anführungszeichen", "the euro symbol: │ 14.95 € │", "ði ıntəˈnæʃənəl")
	for _, f := range []string{"utf16lebom.txt", "utf16bebom.txt"} {
		d := extractortest.Data(t, run(t, "text", "testdata/"+f, ""))
		enc := map[string]string{"utf16lebom.txt": "utf-16le", "utf16bebom.txt": "utf-16be"}[f]
		expect(t, d, map[string]any{"encoding": enc, "bom": true, "line_count": 2})
		contains(t, textOf(d), "this is a utf16 file with", "it also has a BOM")
	}
	d = extractortest.Data(t, run(t, "text", "testdata/hello.py", ""))
	expect(t, d, map[string]any{"text": "#!/usr/bin/python\nprint(\"Olá, Mundo!\")", "line_count": 2})
}

// The same text in the encodings without a byte order mark, made by iconv
// (glibc), decodes to the same UTF-8.
func TestTextEncodingsByIconv(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("iconv"); err != nil {
		t.Skip("iconv not installed")
	}
	const sample = "Mañana el café estará en la estación. Ça coûte 5 €.\nZweite Zeile: Grüße.\n"
	dir := t.TempDir()
	for _, tc := range []struct{ iconv, want string }{
		{"UTF-16LE", "utf-16le"}, {"UTF-16BE", "utf-16be"}, {"ISO-8859-15", "iso-8859-1"}, {"WINDOWS-1252", "windows-1252"},
	} {
		cmd := exec.Command("iconv", "-f", "UTF-8", "-t", tc.iconv)
		cmd.Stdin = strings.NewReader(sample)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("iconv %s: %v", tc.iconv, err)
		}
		p := filepath.Join(dir, strings.ToLower(tc.iconv)+".txt")
		os.WriteFile(p, out, 0o644)
		d := extractortest.Data(t, run(t, "text", p, ""))
		if d["encoding"] != tc.want || d["line_count"] != 2.0 {
			t.Errorf("%s: encoding %v, lines %v", tc.iconv, d["encoding"], d["line_count"])
		}
		want := strings.TrimSpace(sample)
		if tc.iconv == "ISO-8859-15" {
			// No bytes 0x80-0x9f: read as Latin-1, where 0xa4 is ¤, not €.
			want = strings.ReplaceAll(want, "€", "¤")
		}
		if textOf(d) != want {
			t.Errorf("%s: text %q", tc.iconv, textOf(d))
		}
	}
}

func TestCSVGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "csv", "testdata/debian.csv", ""))
	expect(t, d, map[string]any{
		"delimiter": ",", "has_header": true, "column_count": 8, "row_count": 22,
		"columns": []string{"version", "codename", "series", "created", "release", "eol", "eol-lts", "eol-elts"},
	})
	sample, _ := d["sample_rows"].([]any)
	if len(sample) != 5 || !reflect.DeepEqual(sample[0], []any{"1.1", "Buzz", "buzz", "1993-08-16", "1996-06-17", "1997-06-05"}) {
		t.Errorf("sample_rows %v", sample)
	}
	contains(t, textOf(d), "Bookworm", "Trixie")

	// Semicolons, tabs and pipes, quoted fields with delimiters and
	// newlines, a header over numbers.
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, delim string
		rows              float64
	}{
		{"semi.csv", "name;amount;note\n\"Müller; Anna\";12,50;\"two\nlines\"\nBob;7;plain\n", ";", 2},
		{"tabs.tsv", "city\tpopulation\nLyon\t522250\nNantes\t320732\nLille\t236234\n", "\t", 3},
		{"pipes.csv", "a|b|c\n1|2|3\n4|5|6\n\n7|8|9", "|", 3},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.body), 0o644)
		d := extractortest.Data(t, run(t, "csv", p, ""))
		expect(t, d, map[string]any{"delimiter": tc.delim, "has_header": true, "row_count": tc.rows})
	}
}

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "json", "testdata/person.json", ""))
	expect(t, d, map[string]any{
		"valid": true, "top_level_type": "object", "key_count": 11, "max_depth": 3,
		"keys": []string{"firstName", "lastName", "age", "limit", "width", "height", "good", "bad", "address", "phoneNumber", "gender"},
	})
	contains(t, textOf(d), "John", "New York", "646 555-4567")
	if strings.Contains(textOf(d), "firstName") {
		t.Error("keys are in the text")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		body string
		want map[string]any
	}{
		{`[1, {"a": [2, 3]}, "x"]`, map[string]any{"valid": true, "top_level_type": "array", "element_count": 3, "max_depth": 3, "text": "x"}},
		{`"just a string"`, map[string]any{"valid": true, "top_level_type": "string", "text": "just a string"}},
		{`{"a": 1,}`, map[string]any{"valid": false}},
		{`{"a": 1} {"b": 2}`, map[string]any{"valid": false, "error": "more than one value"}},
	} {
		p := filepath.Join(dir, "x.json")
		os.WriteFile(p, []byte(tc.body), 0o644)
		expect(t, extractortest.Data(t, run(t, "json", p, "")), tc.want)
	}
}

func TestXMLGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "xml", "testdata/xsl-intro.xml", ""))
	expect(t, d, map[string]any{"valid": true, "root": "HTML", "element_count": 41, "encoding": "iso-8859-1",
		"namespaces": []string{"http://www.isogen.com/paul/post-processor"}})
	contains(t, textOf(d), "Introduction to XSL", "XSL Formatting Model", "Who are you?")
	d = extractortest.Data(t, run(t, "xml", "testdata/simple-ns.xml", ""))
	expect(t, d, map[string]any{"valid": true, "root": "root", "root_namespace": "namespace", "element_count": 4,
		"text": "text\ntext\ntail"})
}

func TestHTMLGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "html", "testdata/exiftool-under.html", ""))
	expect(t, d, map[string]any{"title": "Under the Hood", "link_count": 10, "image_count": 1})
	contains(t, textOf(d), "\"Under the Hood\" of ExifTool", "Why Perl?", "Reading or extracting information")
	if strings.Contains(textOf(d), "margin: 0") {
		t.Error("style content in the text")
	}
	d = extractortest.Data(t, run(t, "html", "testdata/latin1.html", ""))
	expect(t, d, map[string]any{"title": "hello website", "description": "Publicidad, Noticias", "link_count": 0})
	if _, has := d["text"]; has {
		t.Errorf("script text kept: %q", d["text"])
	}
}

func TestEmailGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "email", "testdata/dingus.eml", ""))
	expect(t, d, map[string]any{
		"format": "eml", "message_count": 1, "subject": "Here is your dingus fish",
		"from": "Barry <barry@digicool.com>", "to": []string{"Dingus Lovers <cravindogs@cravindogs.com>"},
		"date":        "2001-04-20T19:35:02-04:00",
		"attachments": []map[string]any{{"name": "dingusfish.gif", "type": "image/gif", "size": 3512}},
		"text":        "Hi there,\n\nThis is the dingus fish.",
	})
	// A broken multipart/alternative (its boundary is its parent's) in
	// ISO-8859-1, quoted-printable: what can be read is.
	d = extractortest.Data(t, run(t, "email", "testdata/alternative.eml", ""))
	expect(t, d, map[string]any{"subject": "XX", "from": "xx@xx.dk", "to": []string{"XX"}})
	contains(t, textOf(d), "Some removed test.")
	d = extractortest.Data(t, run(t, "email", "testdata/plain.eml", ""))
	expect(t, d, map[string]any{"subject": "This is a test message", "from": "John X. Doe <bbb@ddd.com>",
		"to": []string{"bbb@zzz.org"}, "date": "2001-05-04T14:05:44-04:00", "text": "Hi,\n\nDo you like this message?\n\n-Me"})
	d = extractortest.Data(t, run(t, "email", "testdata/attachment.eml", ""))
	expect(t, d, map[string]any{"subject": "IMAP file test", "date": "2002-05-12T08:56:15+01:00",
		"text": "Simple email with attachment."})

	// A mailbox of the three, as mboxrd writes one (a body line starting
	// with "From " quoted).
	var mbox strings.Builder
	for _, f := range []string{"dingus.eml", "plain.eml", "attachment.eml"} {
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		mbox.WriteString("From someone@example.com Sat Jan  3 01:05:34 1996\n")
		mbox.Write(b)
		mbox.WriteString("\n>From the archive.\n\n")
	}
	p := filepath.Join(t.TempDir(), "box.mbox")
	os.WriteFile(p, []byte(mbox.String()), 0o644)
	d = extractortest.Data(t, run(t, "email", p, ""))
	expect(t, d, map[string]any{"format": "mbox", "message_count": 3})
	if _, has := d["subject"]; has {
		t.Error("a mailbox has top-level message fields")
	}
	msgs, _ := d["messages"].([]any)
	var subjects []string
	for _, m := range msgs {
		subjects = append(subjects, m.(map[string]any)["subject"].(string))
	}
	if strings.Join(subjects, "|") != "Here is your dingus fish|This is a test message|IMAP file test" {
		t.Errorf("subjects %q", subjects)
	}
	contains(t, textOf(d), "This is the dingus fish.", "Simple email with attachment.", "-Me\n\nFrom the archive.")

	// One message saved with its mailbox separator line is an .eml.
	b, _ := os.ReadFile("testdata/plain.eml")
	p = filepath.Join(t.TempDir(), "saved.eml")
	os.WriteFile(p, append([]byte("From bbb@ddd.com Fri May  4 14:05:44 2001\n"), b...), 0o644)
	expect(t, extractortest.Data(t, run(t, "email", p, "")), map[string]any{"format": "eml", "message_count": 1, "subject": "This is a test message"})
}

func TestFDXGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "fdx", "testdata/short-scene.fdx", ""))
	expect(t, d, map[string]any{
		"title": "THE KEEPER", "scene_count": 2, "dialogue_count": 4,
		"scenes": []map[string]any{{"number": "1", "heading": "INT. LIGHTHOUSE - NIGHT"},
			{"number": "2", "heading": "EXT. HARBOUR - CONTINUOUS"}},
		"characters": []map[string]any{{"name": "MARGARET", "lines": 2}, {"name": "TOMAS", "lines": 2}},
	})
	contains(t, textOf(d), "Forty years and the sea has never once asked permission.", "Light the signal!")
	if strings.Contains(textOf(d), "written for the metaharvest tests") {
		t.Error("title page in the script text")
	}
}

func TestDBFGolden(t *testing.T) {
	t.Parallel()
	d := extractortest.Data(t, run(t, "dbf", "testdata/sids.dbf", ""))
	expect(t, d, map[string]any{"version": "dBASE III", "last_update": "2003-06-17T00:00:00Z",
		"record_count": 100, "field_count": 14, "deleted_count": 0, "encoding": "windows-1252"})
	fields, _ := d["fields"].([]any)
	if len(fields) != 14 || !reflect.DeepEqual(fields[4], map[string]any{"name": "NAME", "type": "C", "length": 32.0, "decimals": 0.0}) ||
		!reflect.DeepEqual(fields[8], map[string]any{"name": "BIR74", "type": "N", "length": 12.0, "decimals": 6.0}) {
		t.Errorf("fields %v", fields)
	}
	sample, _ := d["sample_rows"].([]any)
	if len(sample) != 5 || !reflect.DeepEqual(sample[0], []any{"0.114", "1.442", "1825", "1825", "Ashe", "37009", "37009", "5",
		"1091.000000", "1.000000", "10.000000", "1364.000000", "0.000000", "19.000000"}) {
		t.Errorf("sample_rows[0] %v", sample)
	}
	text := textOf(d)
	if !strings.HasPrefix(text, "Ashe\t37009\n") || !strings.HasSuffix(text, "Brunswick\t37019") || strings.Count(text, "\n") != 99 {
		t.Errorf("text %.200q ... %d lines", text, strings.Count(text, "\n")+1)
	}
}

// Files of another kind are left to their own extractor, so that no text
// is indexed twice; the text extractor takes source files mime_type does
// not call text/.
func TestAccept(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	for _, tc := range []struct {
		file extractors.File
		want []string
	}{
		{extractors.File{Name: "a.txt", Ext: "txt", MIME: "text/plain"}, []string{"text"}},
		{extractors.File{Name: "a.csv", Ext: "csv", MIME: "text/plain"}, []string{"csv"}},
		{extractors.File{Name: "a.eml", Ext: "eml", MIME: "text/plain"}, []string{"email"}},
		{extractors.File{Name: "a", Ext: "", MIME: "message/rfc822"}, []string{"email"}},
		{extractors.File{Name: "a.html", Ext: "html", MIME: "text/html"}, []string{"html"}},
		{extractors.File{Name: "a.svg", Ext: "svg", MIME: "image/svg+xml"}, []string{"xml"}},
		{extractors.File{Name: "a.fdx", Ext: "fdx", MIME: "text/xml"}, []string{"fdx"}},
		{extractors.File{Name: "a.json", Ext: "json", MIME: "application/json"}, []string{"json"}},
		{extractors.File{Name: "a.dbf", Ext: "dbf", MIME: "application/octet-stream"}, []string{"dbf"}},
		{extractors.File{Name: "a.ts", Ext: "ts", MIME: "application/octet-stream"}, []string{"text"}},
		{extractors.File{Name: "a.srt", Ext: "srt", MIME: "application/x-subrip"}, nil},
		{extractors.File{Name: "a.jpg", Ext: "jpg", MIME: "image/jpeg"}, nil},
	} {
		var got []string
		for _, n := range names {
			if info, _ := reg.Get(n); info.Accept(tc.file) {
				got = append(got, n)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s (%s): accepted by %v, want %v", tc.file.Name, tc.file.MIME, got, tc.want)
		}
	}
}
