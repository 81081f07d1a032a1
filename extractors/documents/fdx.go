package documents

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "fdx",
		DisplayName:    "Final Draft Script",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptFDX,
		Fields: []extractors.Field{
			{Path: "title", Type: extractors.TypeString, Doc: "first line of the title page"},
			{Path: "scene_count", Type: extractors.TypeNumber, Doc: "scene headings in the script"},
			{Path: "scenes.number", Type: extractors.TypeString, Doc: "scene number as written (empty when unnumbered)"},
			{Path: "scenes.heading", Type: extractors.TypeString, Doc: `scene heading ("INT. KITCHEN - NIGHT"); at most 2000 scenes listed`},
			{Path: "characters.name", Type: extractors.TypeString, Doc: "speaking character, without extensions such as (V.O.)"},
			{Path: "characters.lines", Type: extractors.TypeNumber, Doc: "dialogue blocks of the character"},
			{Path: "dialogue_count", Type: extractors.TypeNumber, Doc: "dialogue blocks in the script"},
			{Path: "text", Type: extractors.TypeText, Doc: "the script in reading order (headings, action, characters, dialogue), at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the script holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) {
			return walker{max: fdxMaxBytes, walk: readFDX}, nil
		},
	})
}

// Final Draft files are XML; mime_type calls them text/xml or
// application/xml, so the extension decides.
func acceptFDX(f extractors.File) bool { return f.Ext == "fdx" }

const (
	fdxMaxBytes      = 64 << 20
	fdxMaxScenes     = 2000
	fdxMaxCharacters = 500
	fdxMaxParagraph  = 64 << 10
)

// characterExtension is a parenthesised suffix of a character cue: (V.O.),
// (O.S.), (CONT'D).
var characterExtension = regexp.MustCompile(`\s*\([^)]*\)\s*$`)

// readFDX reads the paragraphs of a Final Draft document: <FinalDraft>
// <Content> <Paragraph Type="Scene Heading|Action|Character|Dialogue|...">
// <Text>...</Text> (several runs per paragraph), and <TitlePage> with
// paragraphs of its own.
func readFDX(ctx context.Context, r io.Reader) (map[string]any, error) {
	var label string
	dec := newXMLDecoder(r, &label)
	text := doctext.NewBuilder(doctext.MaxText)
	var (
		stack      []string // open element names
		root       string
		paraType   string
		paraNumber string
		para       strings.Builder
		inText     bool
		title      string
		scenes     []any
		sceneCount int
		dialogue   int
		lines      = map[string]int{}
		speaker    string
		tokens     int
	)
	inTitlePage := func() bool {
		for _, n := range stack {
			if n == "TitlePage" {
				return true
			}
		}
		return false
	}
	endParagraph := func() {
		s := strings.TrimSpace(para.String())
		para.Reset()
		if inTitlePage() {
			if title == "" && s != "" {
				title = doctext.Clip(s, 512)
			}
			return
		}
		switch paraType {
		case "Scene Heading":
			sceneCount++
			if len(scenes) < fdxMaxScenes {
				scenes = append(scenes, map[string]any{"number": doctext.Clip(paraNumber, 32), "heading": doctext.Clip(s, 512)})
			}
		case "Character":
			speaker = strings.ToUpper(strings.TrimSpace(characterExtension.ReplaceAllString(s, "")))
		case "Dialogue":
			dialogue++
			if speaker != "" && (lines[speaker] > 0 || len(lines) < fdxMaxCharacters) {
				lines[speaker]++
			}
		}
		if s != "" {
			if !text.Full() {
				text.Separate("\n")
				text.WriteString(s)
			} else {
				text.MarkTruncated()
			}
		}
	}
	for {
		tokens++
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errors.New("not a Final Draft document: " + doctext.Clip(err.Error(), 200))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
				if root != "FinalDraft" {
					return nil, errors.New("not a Final Draft document: root element " + doctext.Clip(root, 64))
				}
			}
			stack = append(stack, t.Name.Local)
			switch t.Name.Local {
			case "Paragraph":
				paraType, paraNumber = "", ""
				para.Reset()
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "Type":
						paraType = a.Value
					case "Number":
						paraNumber = a.Value
					}
				}
			case "Text":
				inText = true
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			switch t.Name.Local {
			case "Paragraph":
				endParagraph()
			case "Text":
				inText = false
			}
		case xml.CharData:
			if inText && para.Len() < fdxMaxParagraph {
				para.Write(t)
			}
		case xml.Directive:
			if strings.HasPrefix(strings.TrimSpace(string(t)), "DOCTYPE") {
				if err := checkDoctype(string(t)); err != nil {
					return nil, err
				}
			}
		}
	}
	if root == "" {
		return nil, errors.New("not a Final Draft document: no root element")
	}
	data := map[string]any{"scene_count": sceneCount, "dialogue_count": dialogue}
	if title != "" {
		data["title"] = title
	}
	if len(scenes) > 0 {
		data["scenes"] = scenes
	}
	if len(lines) > 0 {
		names := make([]string, 0, len(lines))
		for n := range lines {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			if lines[names[i]] != lines[names[j]] {
				return lines[names[i]] > lines[names[j]]
			}
			return names[i] < names[j]
		})
		chars := make([]any, len(names))
		for i, n := range names {
			chars[i] = map[string]any{"name": doctext.Clip(n, 256), "lines": lines[n]}
		}
		data["characters"] = chars
	}
	text.Put(data)
	return data, nil
}
