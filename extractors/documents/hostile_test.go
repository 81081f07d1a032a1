package documents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// refusedDoc wants a deterministic error containing want from an outcome,
// and nothing of the file in it.
func refusedDoc(t *testing.T, what string, o extractors.Outcome, want string) {
	t.Helper()
	switch {
	case o.Err == nil:
		t.Errorf("%s: data %s, want an error containing %q", what, o.JSON, want)
	case extractors.IsTransient(o.Err) || errors.Is(o.Err, extractors.ErrUnsupported):
		t.Errorf("%s: %v, want a deterministic error", what, o.Err)
	case !strings.Contains(o.Err.Error(), want):
		t.Errorf("%s: %v, want %q", what, o.Err, want)
	}
}

// billionLaughs is the classic: ten levels of ten references each.
func billionLaughs(root string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE " + root + " [\n <!ENTITY lol \"lol\">\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, " <!ENTITY lol%d \"%s\">\n", i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString("]>\n<" + root + ">&lol9;</" + root + ">\n")
	return strings.ReplaceAll(b.String(), "&lol0;", "&lol;")
}

// A billion laughs is refused: encoding/xml would expand none of its
// entities, but the file is made to attack parsers that do, so it is an
// error, with nothing of it kept and nothing grown.
func TestXMLBillionLaughs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lol.xml")
	os.WriteFile(p, []byte(billionLaughs("lolz")), 0o644)
	var o extractors.Outcome
	n := extractortest.Allocated(func() { o = run(t, "xml", p, "") })
	refusedDoc(t, "billion laughs", o, `entity expansion refused: entity "lol1" refers to entity "lol"`)
	if n > 64<<20 {
		t.Errorf("billion laughs allocated %d bytes", n)
	}
	fdx := filepath.Join(t.TempDir(), "lol.fdx")
	os.WriteFile(fdx, []byte(billionLaughs("FinalDraft")), 0o644)
	refusedDoc(t, "billion laughs (fdx)", run(t, "fdx", fdx, ""), "entity expansion refused")
}

// The DTDs that are refused and those that are not.
func TestCheckDoctype(t *testing.T) {
	t.Parallel()
	for directive, want := range map[string]string{
		`DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]`:                                                        "external entity refused",
		`DOCTYPE a [<!ENTITY x PUBLIC "-//x" "http://127.0.0.1/x">]`:                                                 "external entity refused",
		`DOCTYPE a [<!ENTITY % p SYSTEM "http://127.0.0.1/x.dtd"> %p;]`:                                              `parameter entity "p" is declared SYSTEM`,
		`DOCTYPE a [<!ENTITY a "x"><!ENTITY b "&a;&a;">]`:                                                            `entity "b" refers to entity "a"`,
		`DOCTYPE a [<!ENTITY b "&a;"><!ENTITY a "x">]`:                                                               `entity "b" refers to entity "a"`,
		`DOCTYPE a [<!ENTITY a "&a;">]`:                                                                              `entity "a" refers to entity "a"`,
		`DOCTYPE a [<!ENTITY % a "x"><!ENTITY % b "%a;%a;">]`:                                                        `parameter entity "b" refers to entity "a"`,
		`DOCTYPE a [<!ENTITY a "x"><!ENTITY b "&#38;a;&#38;a;">]`:                                                    `entity "b" refers to entity "a"`,
		`DOCTYPE a [<!-- <!ENTITY c SYSTEM "x"> --><!ENTITY d SYSTEM 'x'>]`:                                          `entity "d"`,
		`DOCTYPE svg [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]`:                                                "",
		`DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"`: "",
		`DOCTYPE a [<!ELEMENT a (#PCDATA)><!ATTLIST a b CDATA "<!ENTITY x SYSTEM 'y'>">]`:                            "",
		`DOCTYPE a [<!-- <!ENTITY c SYSTEM "x"> --><!ENTITY amp2 "&amp;&#60;">]`:                                     "",
		`DOCTYPE a [<!ENTITY a "x">`:                                                                                 "",
		`DOCTYPE a [<!ENTITY`:                                                                                        "",
	} {
		err := checkDoctype(directive)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", directive, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", directive, err, want)
		}
	}
}

// An external entity naming /etc/passwd is never fetched: the xml and fdx
// extractors refuse the file, html and text read the reference as text.
func TestXXE(t *testing.T) {
	t.Parallel()
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil || !bytes.Contains(passwd, []byte("root:")) {
		t.Skip("no /etc/passwd to leak")
	}
	doc := `<?xml version="1.0"?>
<!DOCTYPE FinalDraft [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY % remote SYSTEM "http://127.0.0.1:1/x.dtd">%remote;]>
<FinalDraft><Content><Paragraph Type="Action"><Text>before &xxe; after</Text></Paragraph></Content></FinalDraft>`
	dir := t.TempDir()
	for _, tc := range []struct{ extractor, name string }{{"xml", "xxe.xml"}, {"fdx", "xxe.fdx"}, {"html", "xxe.html"}, {"text", "xxe.txt"}} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(doc), 0o644)
		o := run(t, tc.extractor, p, "")
		out := string(o.JSON)
		if o.Err != nil {
			out = o.Err.Error()
		}
		if strings.Contains(out, "root:") || strings.Contains(out, "/bin/") {
			t.Errorf("%s: /etc/passwd leaked: %s", tc.extractor, out)
		}
		switch tc.extractor {
		case "xml", "fdx":
			refusedDoc(t, tc.extractor, o, `external entity refused: entity "xxe" is declared SYSTEM or PUBLIC (never fetched)`)
		}
	}
}

// Documents over what their parser reads (64 MiB) are refused, unread,
// when the storage gives their size, and once the parser read past the
// cap when it does not. Plain text and CSV are streamed whole: they have
// no such cap (see TestOversizedDocuments).
func TestDocumentsOverTheParserCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, head := range map[string]string{
		"xml": "<doc>", "json": "[", "fdx": "<FinalDraft>", "html": "<html><p>", "email": "From: a@b.c\nSubject: big\n\n",
	} {
		ext := name
		if name == "email" {
			ext = "eml"
		}
		p := filepath.Join(dir, "big."+ext)
		if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 64<<20+1); err != nil { // sparse: nothing written
			t.Fatal(err)
		}
		refusedDoc(t, name, run(t, name, p, ""), "document too large: 67108865 bytes, over the 64 MiB this extractor parses")
	}

	// The storage said nothing of the size: the cap is found by reading.
	var b strings.Builder
	b.WriteString("<doc>")
	for b.Len() <= 2<<20 {
		b.WriteString("<p>words and more words</p>")
	}
	b.WriteString("</doc>")
	x := walker{max: 1 << 20, walk: walkXML}
	_, err := x.Extract(context.Background(), &extractors.Input{Name: "big.xml", Size: -1, Content: []byte(b.String())})
	if err == nil || extractors.IsTransient(err) || !strings.Contains(err.Error(), "document too large: over the 1 MiB") {
		t.Errorf("xml read past the cap: %v", err)
	}
	// A file of exactly the cap is read.
	exact := strings.Repeat(" ", 1<<20-len("<doc>x</doc>")) + "<doc>x</doc>"
	if res, err := x.Extract(context.Background(), &extractors.Input{Name: "exact.xml", Size: -1, Content: []byte(exact)}); err != nil || res.Data["valid"] != true {
		t.Errorf("xml of the cap: %v %v", err, res)
	}
}

// Files much larger than the caps: the text stops at 256 KiB (marked
// truncated) while counts still cover the whole file, with bounded memory.
func TestOversizedDocuments(t *testing.T) {
	dir := t.TempDir()
	line := "the quick brown fox jumps over the lazy dog, again and again\n"
	const lines = 100000 // 6 MB
	big := strings.Repeat(line, lines)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(extractor string, d map[string]any) {
		t.Helper()
		if len(textOf(d)) > doctext.MaxText || len(textOf(d)) < doctext.MaxText-4096 || d["text_truncated"] != true {
			t.Errorf("%s: %d bytes of text, truncated %v", extractor, len(textOf(d)), d["text_truncated"])
		}
	}
	var d map[string]any
	n := extractortest.Allocated(func() { d = extractortest.Data(t, run(t, "text", write("big.txt", big), "")) })
	check("text", d)
	if d["line_count"] != float64(lines) {
		t.Errorf("line_count %v", d["line_count"])
	}
	if n > 32<<20 {
		t.Errorf("text: %d bytes allocated", n)
	}

	var csv strings.Builder
	csv.WriteString("id,words,note\n")
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&csv, "%d,\"%s\",\"multi\nline\"\n", i, strings.TrimSpace(line))
	}
	n = extractortest.Allocated(func() { d = extractortest.Data(t, run(t, "csv", write("big.csv", csv.String()), "")) })
	check("csv", d)
	if d["row_count"] != float64(lines) || d["has_header"] != true {
		t.Errorf("csv: rows %v header %v", d["row_count"], d["has_header"])
	}
	if n > 48<<20 {
		t.Errorf("csv: %d bytes allocated", n)
	}

	var js strings.Builder
	js.WriteString("[")
	for i := 0; i < lines; i++ {
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, "{\"n\":%d,\"s\":%q}", i, strings.TrimSpace(line))
	}
	js.WriteString("]")
	d = extractortest.Data(t, run(t, "json", write("big.json", js.String()), ""))
	check("json", d)
	if d["element_count"] != float64(lines) || d["valid"] != true {
		t.Errorf("json: %v elements, valid %v", d["element_count"], d["valid"])
	}

	d = extractortest.Data(t, run(t, "html", write("big.html", "<html><title>big</title><body><p>"+strings.ReplaceAll(big, "\n", "</p><p>")+"</p>"), ""))
	check("html", d)
	d = extractortest.Data(t, run(t, "xml", write("big.xml", "<doc><p>"+strings.ReplaceAll(big, "\n", "</p><p>")+"</p></doc>"), ""))
	check("xml", d)
	if d["element_count"] != float64(lines+2) || d["valid"] != true {
		t.Errorf("xml: %v elements, valid %v", d["element_count"], d["valid"])
	}

	// One text token of 8 MB: the HTML tokenizer's buffer cap ends it.
	n = extractortest.Allocated(func() {
		d = extractortest.Data(t, run(t, "html", write("token.html", "<p>"+strings.Repeat("a", 8<<20)), ""))
	})
	if d["text_truncated"] != true || n > 64<<20 {
		t.Errorf("html token: truncated %v, %d bytes allocated", d["text_truncated"], n)
	}
	// A JSON nested 100,000 deep: walked without recursion.
	d = extractortest.Data(t, run(t, "json", write("deep.json", strings.Repeat("[", 100000)+strings.Repeat("]", 100000)), ""))
	if d["max_depth"] != float64(100000) || d["valid"] != true {
		t.Errorf("deep json: %v", d)
	}
	// A mailbox of 3000 messages: 1000 listed, all counted.
	var mbox strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&mbox, "From a@b.c Thu Jan  1 00:00:00 2020\nFrom: a@b.c\nSubject: message %d\n\nbody %d\n\n", i, i)
	}
	d = extractortest.Data(t, run(t, "email", write("many.mbox", mbox.String()), ""))
	if msgs, _ := d["messages"].([]any); d["message_count"] != 3000.0 || len(msgs) != 1000 || d["text_truncated"] != true {
		t.Errorf("mbox: count %v, listed %d", d["message_count"], len(msgs))
	}
	// A dBASE header declaring 4 billion records over a short file.
	sids, _ := os.ReadFile("testdata/sids.dbf")
	lie := bytes.Clone(sids)
	copy(lie[4:8], []byte{0xff, 0xff, 0xff, 0xff})
	d = extractortest.Data(t, run(t, "dbf", write("lie.dbf", string(lie)), ""))
	if d["record_count"] != float64(0xffffffff) || d["records_present"] != 100.0 {
		t.Errorf("dbf: %v declared, %v present", d["record_count"], d["records_present"])
	}
}

// A file that cannot be read (here a directory) is a Transient failure of
// every streaming extractor, never a verdict on its content.
func TestReadFailureIsTransient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"json", "xml", "fdx", "html", "email", "dbf", "csv", "text"} {
		o := run(t, name, dir, "folder."+name)
		if !extractors.IsTransient(o.Err) {
			t.Errorf("%s on a directory: %v", name, o.Err)
		}
	}
}
