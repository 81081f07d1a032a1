package documents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"path"
	"strings"
	"time"

	"golang.org/x/text/transform"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	msg := func(prefix string) []extractors.Field {
		return []extractors.Field{
			{Path: prefix + "from", Type: extractors.TypeString, Doc: "sender, as Name <address>"},
			{Path: prefix + "to", Type: extractors.TypeString, Doc: "recipients"},
			{Path: prefix + "cc", Type: extractors.TypeString, Doc: "copy recipients"},
			{Path: prefix + "subject", Type: extractors.TypeString, Doc: "subject, decoded"},
			{Path: prefix + "date", Type: extractors.TypeDate, Doc: "date of the message (RFC 3339, its own zone)"},
			{Path: prefix + "message_id", Type: extractors.TypeString, Doc: "Message-ID header"},
			{Path: prefix + "attachments.name", Type: extractors.TypeString, Doc: "attachment file name"},
			{Path: prefix + "attachments.type", Type: extractors.TypeString, Doc: "attachment MIME type"},
			{Path: prefix + "attachments.size", Type: extractors.TypeNumber, Doc: "attachment bytes, decoded"},
		}
	}
	fields := []extractors.Field{
		{Path: "format", Type: extractors.TypeString, Doc: "eml (one message) or mbox (a mailbox)"},
		{Path: "message_count", Type: extractors.TypeNumber, Doc: "messages in the file"},
		{Path: "text", Type: extractors.TypeText, Doc: "body text of the messages (plain, or HTML made text), at most 256 KiB"},
		{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the messages hold more text than was kept"},
	}
	fields = append(fields, msg("")...)
	fields = append(fields, msg("messages.")...)
	extractors.MustRegister(extractors.Info{
		Name:           "email",
		DisplayName:    "Email",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptEmail,
		Fields:         fields,
		New:            func(extractors.Env) (extractors.Extractor, error) { return emailExtractor{}, nil },
	})
}

func acceptEmail(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"message/rfc822", "application/mbox"}, "eml", "mbox", "mbx", "msg822")(f)
}

// Caps of the email extractor.
const (
	emailMaxBytes       = 64 << 20 // of an .eml file: a larger one is refused
	emailMaxHeader      = 1 << 20  // of one message's header
	emailMaxMessage     = 16 << 20 // of one message in a mailbox; the rest is skipped
	emailMaxMessages    = 1000     // messages of a mailbox listed (all are counted)
	emailMaxParts       = 200      // MIME parts of one message
	emailMaxDepth       = 8        // nesting of multiparts
	emailMaxAttachments = 100      // listed per message
	emailMaxBodyText    = 1 << 20  // of one text part, read to be decoded
	emailMaxAddresses   = 100
)

type emailExtractor struct{}

func (emailExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	src, err := openSource(in, uncapped)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	br := bufio.NewReaderSize(src, 64<<10)
	head, _ := br.Peek(5)
	text := doctext.NewBuilder(doctext.MaxText)
	var data map[string]any
	isMbox := in.MIME == "application/mbox" || strings.HasSuffix(strings.ToLower(in.Name), ".mbox")
	if string(head) == "From " || isMbox {
		data, err = readMbox(ctx, br, text)
		if msgs, _ := data["messages"].([]any); err == nil && !isMbox && len(msgs) == 1 && data["message_count"] == 1 {
			// One message saved with its mailbox separator line: an .eml.
			data = msgs[0].(map[string]any)
			data["format"], data["message_count"] = "eml", 1
		}
	} else {
		// One message is parsed whole (its parts, attachments' sizes): one
		// larger than the parser reads is refused, unread.
		if in.Size > emailMaxBytes {
			return nil, tooLarge(in.Size, emailMaxBytes)
		}
		lr := &io.LimitedReader{R: br, N: emailMaxBytes + 1}
		var m *emailMessage
		m, err = readMessage(ctx, lr, text)
		if lr.N <= 0 && src.Err() == nil && ctx.Err() == nil {
			return nil, tooLarge(-1, emailMaxBytes)
		}
		if err == nil {
			data = m.data()
			data["format"] = "eml"
			data["message_count"] = 1
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}

// readMbox splits a mailbox at its "From " lines (after an empty line, as
// mboxrd writes them; ">From " lines are unquoted) and reads each message.
func readMbox(ctx context.Context, r *bufio.Reader, text *doctext.Builder) (map[string]any, error) {
	var (
		messages  []any
		count     int
		buf       bytes.Buffer
		cut       bool // the current message was longer than emailMaxMessage
		prevBlank = true
		lineStart = true
	)
	flush := func() error {
		if count == 0 {
			return nil
		}
		if count <= emailMaxMessages {
			m, err := readMessage(ctx, bytes.NewReader(buf.Bytes()), text)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				m = &emailMessage{}
			}
			if cut {
				text.MarkTruncated()
			}
			messages = append(messages, m.data())
		}
		buf.Reset()
		cut = false
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			isFrom := lineStart && prevBlank && bytes.HasPrefix(line, []byte("From "))
			if isFrom {
				if err := flush(); err != nil {
					return nil, err
				}
				count++
			} else if count > 0 && count <= emailMaxMessages {
				if lineStart && isQuotedFrom(line) {
					line = line[1:]
				}
				if buf.Len()+len(line) <= emailMaxMessage {
					buf.Write(line)
				} else {
					cut = true
				}
			}
			complete := line[len(line)-1] == '\n'
			if lineStart {
				prevBlank = len(bytes.TrimRight(line, "\r\n")) == 0 && complete
			} else if complete {
				prevBlank = false
			}
			lineStart = complete
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			break
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, errors.New("not a mailbox: no \"From \" line")
	}
	data := map[string]any{"format": "mbox", "message_count": count, "messages": messages}
	if count > emailMaxMessages {
		text.MarkTruncated()
	}
	return data, nil
}

// isQuotedFrom reports an mboxrd-quoted line: ">From ", ">>From ", ...
func isQuotedFrom(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(line[i:], []byte("From "))
}

// emailMessage is what one message says of itself.
type emailMessage struct {
	from, subject, date, messageID string
	to, cc                         []string
	attachments                    []any
	parts                          int
}

func (m *emailMessage) data() map[string]any {
	d := map[string]any{}
	for k, v := range map[string]string{"from": m.from, "subject": m.subject, "date": m.date, "message_id": m.messageID} {
		if v != "" {
			d[k] = v
		}
	}
	if len(m.to) > 0 {
		d["to"] = m.to
	}
	if len(m.cc) > 0 {
		d["cc"] = m.cc
	}
	if len(m.attachments) > 0 {
		d["attachments"] = m.attachments
	}
	return d
}

// wordDecoder decodes RFC 2047 encoded words in any charset x/text knows.
var wordDecoder = &mime.WordDecoder{CharsetReader: func(label string, input io.Reader) (io.Reader, error) {
	enc := doctext.Charset(label)
	if enc == nil {
		if l := strings.ToLower(label); l == "utf-8" || l == "utf8" {
			return input, nil
		}
		return nil, fmt.Errorf("unknown charset %q", label)
	}
	return transform.NewReader(input, enc.NewDecoder()), nil
}}

// readMessage reads one message: its header (at most emailMaxHeader bytes)
// and the MIME tree of its body, whose text goes to text.
func readMessage(ctx context.Context, r io.Reader, text *doctext.Builder) (*emailMessage, error) {
	br := bufio.NewReader(r)
	header, err := readHeaderBlock(br)
	if err != nil {
		return nil, err
	}
	msg, err := mail.ReadMessage(io.MultiReader(bytes.NewReader(header), br))
	if err != nil {
		return nil, fmt.Errorf("not an email message: %w", err)
	}
	if len(msg.Header) == 0 {
		return nil, errors.New("not an email message: no header")
	}
	m := &emailMessage{
		from:      firstAddress(msg.Header.Get("From")),
		to:        addresses(msg.Header.Get("To")),
		cc:        addresses(msg.Header.Get("Cc")),
		subject:   doctext.Clip(decodeHeader(msg.Header.Get("Subject")), 1024),
		messageID: doctext.Clip(strings.TrimSpace(msg.Header.Get("Message-Id")), 512),
	}
	if t, err := mail.ParseDate(msg.Header.Get("Date")); err == nil && t.Year() > 0 && t.Year() < 10000 {
		m.date = t.Format(time.RFC3339)
	}
	text.Separate("\n\n")
	if err := m.walk(ctx, textproto.MIMEHeader(msg.Header), msg.Body, 0, text); err != nil {
		return nil, err
	}
	return m, nil
}

// readHeaderBlock reads the header up to and including its empty line.
func readHeaderBlock(br *bufio.Reader) ([]byte, error) {
	var header []byte
	for {
		line, err := br.ReadSlice('\n')
		header = append(header, line...)
		if len(header) > emailMaxHeader {
			return nil, fmt.Errorf("not an email message: header over %d bytes", emailMaxHeader)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 || err != nil {
			return header, nil
		}
	}
}

func decodeHeader(s string) string {
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		d = s
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(d, "\uFFFD")), " ")
}

func addresses(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	p := mail.AddressParser{WordDecoder: wordDecoder}
	list, err := p.ParseList(s)
	if err != nil {
		return []string{doctext.Clip(decodeHeader(s), 1024)}
	}
	var out []string
	for _, a := range list {
		if len(out) == emailMaxAddresses {
			break
		}
		out = append(out, doctext.Clip(formatAddress(a), 512))
	}
	return out
}

func firstAddress(s string) string {
	if l := addresses(s); len(l) > 0 {
		return l[0]
	}
	return ""
}

func formatAddress(a *mail.Address) string {
	name := strings.Join(strings.Fields(a.Name), " ")
	if name == "" {
		return a.Address
	}
	return name + " <" + a.Address + ">"
}

// walk reads one MIME part: a multipart is walked into (at most
// emailMaxDepth deep), text parts are decoded into text, anything else (or
// anything named as a file) is listed as an attachment with its decoded
// size.
func (m *emailMessage) walk(ctx context.Context, h textproto.MIMEHeader, body io.Reader, depth int, text *doctext.Builder) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.parts++
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mediaType == "" {
		mediaType, params = "text/plain", map[string]string{}
	}
	body = transferDecoded(h.Get("Content-Transfer-Encoding"), body)
	disposition, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	filename := dparams["filename"]
	if filename == "" {
		filename = params["name"]
	}
	filename = path.Base(strings.ReplaceAll(decodeHeader(filename), `\`, "/"))
	if filename == "." || filename == "/" {
		filename = ""
	}

	if strings.HasPrefix(mediaType, "multipart/") && params["boundary"] != "" && depth < emailMaxDepth {
		return m.walkMultipart(ctx, mediaType, params["boundary"], body, depth, text)
	}
	isText := mediaType == "text/plain" || mediaType == "text/html"
	if isText && disposition != "attachment" && filename == "" {
		return bodyText(ctx, mediaType, params["charset"], body, text)
	}
	// A corrupt encoding ends the count: the size is what decoded.
	size, _ := io.Copy(io.Discard, body)
	if len(m.attachments) < emailMaxAttachments {
		a := map[string]any{"type": mediaType, "size": size}
		if filename != "" {
			a["name"] = doctext.Clip(filename, 512)
		}
		m.attachments = append(m.attachments, a)
	}
	return nil
}

func (m *emailMessage) walkMultipart(ctx context.Context, mediaType, boundary string, body io.Reader, depth int, text *doctext.Builder) error {
	mr := multipart.NewReader(body, boundary)
	alternative := mediaType == "multipart/alternative"
	var plain, rich *doctext.Builder // the versions of an alternative
	for m.parts < emailMaxParts {
		p, err := mr.NextPart()
		if err != nil {
			break // the end, or a malformed rest: what was read stands
		}
		out := text
		if alternative {
			out = doctext.NewBuilder(doctext.MaxText)
		}
		err = m.walk(ctx, p.Header, p, depth+1, out)
		p.Close()
		if err != nil {
			return err
		}
		if alternative {
			ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
			switch {
			case (ct == "text/plain" || ct == "") && plain == nil:
				plain = out
			case rich == nil:
				rich = out
			}
		}
	}
	if alternative {
		best := plain
		if best == nil || best.String() == "" {
			best = rich
		}
		if best != nil {
			text.Separate("\n")
			text.WriteString(best.String())
			if best.Truncated() {
				text.MarkTruncated()
			}
		}
	}
	return nil
}

// bodyText decodes a text part (at most emailMaxBodyText bytes of it) into
// text; HTML is made text as the html extractor does.
func bodyText(ctx context.Context, mediaType, charset string, body io.Reader, text *doctext.Builder) error {
	text.Separate("\n")
	if mediaType == "text/html" {
		if _, err := readHTML(ctx, io.LimitReader(body, emailMaxBodyText), "text/html; charset="+charset, text); err != nil {
			return err
		}
		if n, _ := io.Copy(io.Discard, body); n > 0 {
			text.MarkTruncated()
		}
		return nil
	}
	// A corrupt encoding ends the part: the text is what decoded. (Failures
	// to read the file itself are seen by the caller's source.)
	raw, _ := io.ReadAll(io.LimitReader(body, emailMaxBodyText))
	text.WriteString(strings.ReplaceAll(doctext.DecodeCharset(raw, charset), "\r\n", "\n"))
	if n, _ := io.Copy(io.Discard, body); n > 0 {
		text.MarkTruncated()
	}
	return nil
}

// transferDecoded undoes a Content-Transfer-Encoding (multipart.Reader
// already undoes quoted-printable in parts; a single-part message still
// needs it).
func transferDecoded(cte string, body io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &base64Cleaner{r: body})
	case "quoted-printable":
		return quotedprintable.NewReader(body)
	}
	return body
}

// base64Cleaner drops what is not base64 alphabet (spaces, stray
// characters some mailers add), as mail readers tolerate it.
type base64Cleaner struct{ r io.Reader }

func (c *base64Cleaner) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		j := 0
		for _, b := range p[:n] {
			if b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' {
				p[j] = b
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}
