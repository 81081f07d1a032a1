package pdf

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// examinedPages is how many pages are looked at one by one (sizes, images,
// scanned or not) and rendered by default.
const examinedPages = 50

// info is what pdfinfo says of a document.
type info struct {
	Title, Author, Subject, Keywords, Creator, Producer string
	Created, Modified                                   string // RFC 3339
	Pages                                               int
	Encrypted, Tagged, Optimized, JavaScript            bool
	Form, Version                                       string
	// PageSizes are the sizes in points of the pages listed (-f 1 -l 50),
	// by page number.
	PageSizes map[int][2]float64
}

// errPassword is the error of a document that needs a user password.
var errPassword = errors.New("pdf is encrypted with a password: nothing can be read without it")

// runPDFInfo runs pdfinfo once per harvest of the file (shared by pdf and
// document_pages).
func runPDFInfo(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*info, error) {
	v, err := in.Shared("poppler.pdfinfo", func() (any, error) {
		out, err := run.Run(ctx, extractors.Cmd{Name: "pdfinfo",
			Args:      []string{"-isodates", "-enc", "UTF-8", "-f", "1", "-l", strconv.Itoa(examinedPages), in.Path},
			MaxOutput: 1 << 20, MaxMemory: 1 << 30})
		if err != nil {
			return nil, toolError("pdfinfo", err)
		}
		return parsePDFInfo(string(out))
	})
	if err != nil {
		return nil, err
	}
	return v.(*info), nil
}

// toolError words a failed poppler run: a password, the caller's context,
// or the tool's own complaint (a damaged file).
func toolError(tool string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Incorrect password"):
		return errPassword
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%s: %w", tool, err)
}

// pdfInfoKeys are the keys pdfinfo prints; a line starting with none of
// them continues the previous value (a title with a line break).
var pdfInfoKeys = map[string]bool{
	"Title": true, "Subject": true, "Keywords": true, "Author": true, "Creator": true, "Producer": true,
	"CreationDate": true, "ModDate": true, "Custom Metadata": true, "Metadata Stream": true, "Tagged": true,
	"UserProperties": true, "Suspects": true, "Form": true, "JavaScript": true, "Pages": true, "Encrypted": true,
	"Page size": true, "Page rot": true, "File size": true, "Optimized": true, "PDF version": true,
	"PDF subtype": true, "Abbreviation": true, "Subtitle": true, "Standard": true, "Conformance": true,
}

// parsePDFInfo parses pdfinfo's "Key:   value" lines.
func parsePDFInfo(out string) (*info, error) {
	inf := &info{PageSizes: map[int][2]float64{}}
	vals := map[string]string{}
	last := ""
	for _, line := range strings.Split(out, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if ok && (pdfInfoKeys[key] || isPageKey(key)) {
			last = key
			vals[key] = strings.TrimSpace(value)
			continue
		}
		if last != "" && (last == "Title" || last == "Subject" || last == "Keywords" || last == "Author") {
			vals[last] += " " + strings.TrimSpace(line)
		}
	}
	pages, err := strconv.Atoi(vals["Pages"])
	if err != nil || pages < 0 {
		return nil, fmt.Errorf("pdfinfo: no page count in its output")
	}
	inf.Pages = pages
	clean := func(s string) string { return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ") }
	inf.Title, inf.Author, inf.Subject = clip(clean(vals["Title"])), clip(clean(vals["Author"])), clip(clean(vals["Subject"]))
	inf.Keywords, inf.Creator, inf.Producer = clip(clean(vals["Keywords"])), clip(clean(vals["Creator"])), clip(clean(vals["Producer"]))
	inf.Created, inf.Modified = isoDate(vals["CreationDate"]), isoDate(vals["ModDate"])
	inf.Encrypted = strings.HasPrefix(vals["Encrypted"], "yes")
	inf.Tagged = vals["Tagged"] == "yes"
	inf.Optimized = vals["Optimized"] == "yes"
	inf.JavaScript = vals["JavaScript"] == "yes"
	inf.Form = clip(vals["Form"])
	inf.Version = clip(vals["PDF version"])
	for key, v := range vals {
		if n, ok := pageNumber(key); ok && strings.HasSuffix(key, " size") {
			if w, h, ok := pageSize(v); ok {
				inf.PageSizes[n] = [2]float64{w, h}
			}
		}
	}
	if w, h, ok := pageSize(vals["Page size"]); ok {
		if _, has := inf.PageSizes[1]; !has {
			inf.PageSizes[1] = [2]float64{w, h}
		}
	}
	return inf, nil
}

func clip(s string) string {
	if len(s) > 1024 {
		s = strings.ToValidUTF8(s[:1024], "")
	}
	return s
}

// isPageKey recognises "Page    7 size" and "Page    7 rot".
func isPageKey(key string) bool {
	_, ok := pageNumber(key)
	return ok
}

func pageNumber(key string) (int, bool) {
	f := strings.Fields(key)
	if len(f) != 3 || f[0] != "Page" || (f[2] != "size" && f[2] != "rot") {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil && n > 0
}

// pageSize reads "595.28 x 841.89 pts (A4)".
func pageSize(v string) (w, h float64, ok bool) {
	f := strings.Fields(v)
	if len(f) < 4 || f[1] != "x" || f[3] != "pts" {
		return 0, 0, false
	}
	w, err1 := strconv.ParseFloat(f[0], 64)
	h, err2 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil || !(w > 0) || !(h > 0) || w > 1e7 || h > 1e7 {
		return 0, 0, false
	}
	return w, h, true
}

// isoDate normalises pdfinfo -isodates output ("2000-01-02T10:22:30Z",
// "2019-05-01T12:00:00+02:00", sometimes without a zone) to RFC 3339;
// "" when it is not a date.
func isoDate(v string) string {
	v = strings.TrimSpace(v)
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, v); err == nil && t.Year() > 0 && t.Year() < 10000 {
			return t.Format(time.RFC3339)
		}
	}
	return ""
}
