package documents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func seed(f *testing.F, files ...string) {
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func checkText(t *testing.T, text *doctext.Builder) {
	t.Helper()
	if s := text.String(); len(s) > doctext.MaxText || !utf8.ValidString(s) {
		t.Fatalf("text of %d bytes, valid UTF-8 %v", len(s), utf8.ValidString(s))
	}
}

// The row counter agrees with encoding/csv on what it can parse, and the
// sniffer never fails.
func FuzzCSV(f *testing.F) {
	seed(f, "debian.csv")
	f.Add([]byte("a;b\n\"x;\ny\";2\n\n3;4"))
	f.Add([]byte("\"unterminated,1\n2,3"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := strings.ToValidUTF8(string(b), "")
		sn := sniffCSV(s, false)
		c := &csvRowCounter{comma: byte(sn.delimiter)}
		c.scan([]byte(s))
		got := c.finish()
		cr := csv.NewReader(strings.NewReader(s))
		cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = sn.delimiter, true, -1
		var want int64
		for {
			_, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return // a row encoding/csv refuses: no reference count
			}
			want++
		}
		if got != want && !strings.ContainsAny(s, "\r") {
			t.Fatalf("counted %d rows, encoding/csv %d, delimiter %q", got, want, sn.delimiter)
		}
	})
}

func FuzzJSON(f *testing.F) {
	seed(f, "person.json")
	f.Add([]byte(`[[[{"a":[1,{"b":"c"}]}]]]`))
	f.Add([]byte(`{"a":}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := walkJSON(context.Background(), bytes.NewReader(b))
		if err != nil {
			t.Fatal(err) // only a read error of the file may fail
		}
		if _, ok := d["valid"].(bool); !ok {
			t.Fatalf("no verdict: %v", d)
		}
		if s, _ := d["text"].(string); len(s) > doctext.MaxText {
			t.Fatalf("text of %d bytes", len(s))
		}
	})
}

func FuzzXML(f *testing.F) {
	seed(f, "xsl-intro.xml", "simple-ns.xml", "short-scene.fdx")
	f.Add([]byte(`<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>`))
	f.Add([]byte(`<!DOCTYPE a [<!-- c --><!ENTITY x "&#38;y;"><!ENTITY y 'z'><!ATTLIST a b CDATA "[">]><a/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := walkXML(context.Background(), bytes.NewReader(b))
		if err != nil {
			// Only a DTD made to attack parsers may fail the walk.
			if !strings.Contains(err.Error(), "entity") || !strings.Contains(err.Error(), "refused") {
				t.Fatal(err)
			}
			return
		}
		if _, ok := d["valid"].(bool); !ok {
			t.Fatalf("no verdict: %v", d)
		}
	})
}

func FuzzFDX(f *testing.F) {
	seed(f, "short-scene.fdx")
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readFDX(context.Background(), bytes.NewReader(b))
		if err == nil {
			if s, _ := d["text"].(string); len(s) > doctext.MaxText {
				t.Fatalf("text of %d bytes", len(s))
			}
		}
	})
}

func FuzzHTML(f *testing.F) {
	seed(f, "exiftool-under.html", "latin1.html")
	f.Add([]byte("<script>x<svg><style>a</p>b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text := doctext.NewBuilder(4096)
		if _, err := readHTML(context.Background(), bytes.NewReader(b), "", text); err != nil {
			t.Fatal(err)
		}
		if len(text.String()) > 4096 {
			t.Fatalf("text over its cap")
		}
		checkText(t, text)
	})
}

func FuzzEmail(f *testing.F) {
	seed(f, "dingus.eml", "alternative.eml", "attachment.eml", "plain.eml")
	f.Add([]byte("From x\nSubject: =?utf-8?q?caf=C3=A9?=\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Transfer-Encoding: base64\n\naGVsbG8=\n--b--\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text := doctext.NewBuilder(doctext.MaxText)
		m, err := readMessage(context.Background(), bytes.NewReader(b), text)
		if err == nil {
			m.data()
		}
		checkText(t, text)
		text = doctext.NewBuilder(doctext.MaxText)
		if d, err := readMbox(context.Background(), bufio.NewReader(bytes.NewReader(b)), text); err == nil && d["message_count"].(int) < 1 {
			t.Fatal("a mailbox without messages")
		}
		checkText(t, text)
	})
}

// A header that parses gives records whose every field lies inside the
// record.
func FuzzDBFHeader(f *testing.F) {
	sids, err := os.ReadFile("testdata/sids.dbf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sids[:481])
	f.Add([]byte{0x03, 0, 0, 0, 1, 0, 0, 0, 65, 0, 5, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseDBFHeader(b)
		if err != nil {
			return
		}
		rec := bytes.Repeat([]byte{' '}, h.recordLen)
		h.values(rec, false)
		h.values(rec, true)
		h.data()
	})
}

// dbfFieldSpec is one field descriptor of a made header.
type dbfFieldSpec struct {
	name             string
	typ              byte
	length, decimals byte
}

// makeDBFHeader writes a dBASE header: version and language driver bytes,
// the declared record count, the fields, the terminator.
func makeDBFHeader(version, language byte, records uint32, fields []dbfFieldSpec) []byte {
	recordLen := 1
	for _, fs := range fields {
		n := int(fs.length)
		if fs.typ == 'C' && version != 0x30 {
			n += int(fs.decimals) << 8
		}
		recordLen += n
	}
	b := make([]byte, 32, 32+32*len(fields)+1)
	b[0], b[1], b[2], b[3] = version, 124, 5, 17
	binary.LittleEndian.PutUint32(b[4:], records)
	binary.LittleEndian.PutUint16(b[8:], uint16(32+32*len(fields)+1))
	binary.LittleEndian.PutUint16(b[10:], uint16(recordLen))
	b[29] = language
	for _, fs := range fields {
		d := make([]byte, 32)
		copy(d, fs.name)
		d[11], d[16], d[17] = fs.typ, fs.length, fs.decimals
		b = append(b, d...)
	}
	return append(b, 0x0D)
}

// FuzzDBFRecords reads fuzzed records through valid headers: the real
// sids.dbf one (dBASE III, Windows-1252) and made ones with every field
// type, a long character field (its length's high byte in the decimals
// byte), a code page and a Visual FoxPro variant, under a fuzzed declared
// count. The counts stay within the bytes and the declaration, every
// value lies inside its record (no panic), and the text is bounded UTF-8.
func FuzzDBFRecords(f *testing.F) {
	sids, err := os.ReadFile("testdata/sids.dbf")
	if err != nil {
		f.Fatal(err)
	}
	all := []dbfFieldSpec{{"NAME", 'C', 44, 1}, {"AMOUNT", 'N', 8, 2}, {"RATE", 'F', 10, 4}, {"DAY", 'D', 8, 0},
		{"OK", 'L', 1, 0}, {"NOTES", 'M', 10, 0}, {"COUNT", 'I', 4, 0}, {"LABEL", 'V', 20, 0}, {"AT", 'T', 8, 0}, {"ODD", 0x01, 3, 0}}
	headers := [][]byte{
		sids[:481],
		makeDBFHeader(0x03, 0x65, 3, all), // cp866
		makeDBFHeader(0x30, 0x03, 3, all), // Visual FoxPro, Windows-1252
		makeDBFHeader(0x8B, 0x00, 3, []dbfFieldSpec{{"T", 'C', 5, 0}}),
	}
	f.Add(uint8(0), uint32(100), sids[481:])
	f.Add(uint8(0), uint32(0xffffffff), sids[481:481+3*168+7])
	rec := func(flag byte, n int, fill string) []byte {
		return append([]byte{flag}, []byte(strings.Repeat(fill, n))[:n]...)
	}
	recLen := int(binary.LittleEndian.Uint16(headers[1][10:])) - 1
	f.Add(uint8(1), uint32(3), bytes.Join([][]byte{rec(' ', recLen, "\xe9\x93 A1"), rec('*', recLen, "x"), rec(' ', recLen, "\x00")}, nil))
	recLen = int(binary.LittleEndian.Uint16(headers[2][10:])) - 1
	f.Add(uint8(2), uint32(2), bytes.Join([][]byte{rec(' ', recLen, "caf\xe9 "), rec(' ', recLen/2, "T")}, nil))
	f.Add(uint8(3), uint32(1000), []byte(" abcde*fghij\xff\xfe\xfd\xfc\xfb"))
	f.Fuzz(func(t *testing.T, pick uint8, declared uint32, b []byte) {
		// Parsed anew each time: decoding values settles the encoding.
		h, err := parseDBFHeader(headers[int(pick)%len(headers)])
		if err != nil {
			t.Fatal(err)
		}
		h.records = declared
		text := doctext.NewBuilder(4096)
		recs, err := h.readRecords(context.Background(), bytes.NewReader(b), text)
		if err != nil {
			t.Fatal(err) // only a read error of the file may fail
		}
		if recs.present > int64(declared) || recs.present > int64(len(b)/h.recordLen) || recs.deleted > recs.present {
			t.Fatalf("%d present, %d deleted, %d declared, %d bytes of %d-byte records", recs.present, recs.deleted, declared, len(b), h.recordLen)
		}
		if len(recs.sample) > dbfSampleRows {
			t.Fatalf("%d sample rows", len(recs.sample))
		}
		for _, row := range recs.sample {
			if vals := row.([]any); len(vals) != len(h.fields) {
				t.Fatalf("%d values for %d fields", len(vals), len(h.fields))
			}
		}
		if len(text.String()) > 4096 {
			t.Fatalf("text over its cap")
		}
		checkText(t, text)
		d := h.data()
		d["sample_rows"] = recs.sample
		if _, err := json.Marshal(d); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	seed(f, "utf8.txt", "utf16lebom.txt", "utf16bebom.txt")
	f.Add([]byte{0xe9, 0x93, 0x20, 0x41})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _ := doctext.DecodeBytes(b)
		_ = doctext.LooksBinary(s) // must not panic
		r, _, err := doctext.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		text := doctext.NewBuilder(64)
		io.Copy(text, r)
		checkText(t, text)
	})
}
