package ocr

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// languageName is a tessdata model name: "eng", "chi_sim", "script/Latin".
var languageName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64})?$`)

// ParseLanguages reads the output of `tesseract --list-langs`: a line
// naming the tessdata directory, then one model per line. Lines that are
// not model names are ignored.
func ParseLanguages(out []byte) []string {
	var langs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if languageName.MatchString(l) && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	return langs
}

// parseLanguageSetting splits TESSERACT_LANGUAGES ("eng", "eng+fra", or
// with commas or spaces) into model names, checking each is installed.
// osd (orientation and script detection) is not a language to read with.
func parseLanguageSetting(value string, installed []string) ([]string, error) {
	fields := strings.FieldsFunc(value, func(r rune) bool { return r == '+' || r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("TESSERACT_LANGUAGES is empty")
	}
	if len(fields) > 16 {
		return nil, fmt.Errorf("TESSERACT_LANGUAGES names %d languages, at most 16", len(fields))
	}
	var out []string
	for _, f := range fields {
		switch {
		case !languageName.MatchString(f):
			return nil, fmt.Errorf("TESSERACT_LANGUAGES: %q is not a tessdata language name", clip(f, 40))
		case f == "osd":
			return nil, fmt.Errorf("TESSERACT_LANGUAGES: osd detects orientation, it does not read text")
		case !slices.Contains(installed, f):
			return nil, fmt.Errorf("TESSERACT_LANGUAGES: language %q is not installed (installed: %s; Debian packages tesseract-ocr-<lang>)",
				f, strings.Join(installed, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// installedLanguages asks tesseract which models its tessdata holds.
func installedLanguages(run *extractors.Runner) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := run.Run(ctx, extractors.Cmd{Name: "tesseract", Args: []string{"--list-langs"}, MaxOutput: 1 << 20})
	if err != nil {
		return nil, fmt.Errorf("list tesseract languages: %w", err)
	}
	return ParseLanguages(out), nil
}
