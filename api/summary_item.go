package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// GET /api/data/v3/summary/items/{id}: what the extractors found in an
// item, summed up for a person (the reference's item summary, designed
// mainly for videos). The item rules apply (404 unknown or deleted, 403
// not visible). Every part is present: a part nothing was found for is an
// empty list or object, never null. See summary_technical.go,
// summary_people.go, summary_lists.go and keywords_hits.go for where each
// part comes from.

type itemSummaryJSON struct {
	Summary itemSummaryBodyJSON `json:"summary"`
}

type itemSummaryBodyJSON struct {
	Title      string                   `json:"title"`
	Sentiment  []summarySentimentJSON   `json:"sentiment"`
	Technical  summaryTechnicalJSON     `json:"technical"`
	People     []summaryPeopleEntryJSON `json:"people"`
	Tags       []summaryNameCountJSON   `json:"tags"`
	Logos      []summaryNameCountJSON   `json:"logos"`
	Locations  []summaryNameCountJSON   `json:"locations"`
	KeyPhrases []summaryNameCountJSON   `json:"key_phrases"`
	Entities   []summaryNameCountJSON   `json:"entities"`
	Insights   []summaryInsightJSON     `json:"insights"`
}

type summarySentimentJSON struct {
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence"`
}

// summaryInsightJSON counts the hits of a keyword group in the item, by
// kind of text: ocrs and speech_to_texts as the reference names them, and
// captions and texts (documents) beside them. Groups without hits are left
// out, and every group for a caller without keywords:read.
type summaryInsightJSON struct {
	Name          string `json:"name"`
	Color         string `json:"color"`
	OCRs          int    `json:"ocrs"`
	SpeechToTexts int    `json:"speech_to_texts"`
	Captions      int    `json:"captions"`
	Texts         int    `json:"texts"`
}

// titleSources are where a title is looked for, in order; the file name
// comes last.
var titleSources = []struct{ extractor, field string }{
	{"exiv2", "title"}, {"pdf", "title"}, {"officex", "title"}, {"html", "title"}, {"fdx", "title"},
	{"email", "subject"}, {"audioinfo", "title"}, {"mediainfo", "title"},
}

func (s *Server) itemSummary(c *gin.Context) error {
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	raw := itemMetadata(it)
	decoded := map[string]map[string]any{}
	meta := metaReader(func(x string) map[string]any {
		d, ok := decoded[x]
		if !ok {
			d = dataOf(raw, x)
			decoded[x] = d
		}
		return d
	})

	out := itemSummaryBodyJSON{Title: it.Name, Sentiment: []summarySentimentJSON{},
		Technical: technicalSummary(meta, it.Size, it.MimeType)}
	for _, t := range titleSources {
		if v := strAt(meta(t.extractor), t.field); v != "" {
			out.Title = v
			break
		}
	}
	// A language-analysis provider (tokens_provider, tokens' shapes) is
	// read first; a part it gave nothing for is tokens' own.
	tokens := func(part string) []any {
		if l := listAt(meta("tokens_provider"), part); len(l) > 0 {
			return l
		}
		return listAt(meta("tokens"), part)
	}
	for _, e := range tokens("sentiment") {
		if name := strAt(e, "name"); name != "" {
			conf, _ := numAt(e, "confidence")
			out.Sentiment = append(out.Sentiment, summarySentimentJSON{Name: name, Confidence: conf})
		}
	}
	if out.People, err = s.peopleSummary(ctx, it, meta); err != nil {
		return err
	}
	seg, err := s.segmentNames(ctx, it.ID)
	if err != nil {
		return err
	}
	documentTags(meta, seg["tags"])
	seg["locations"].addListed(listAt(meta("geocoding"), "locations"))
	var phrases, entities nameCounts
	phrases.addListed(tokens("key_phrases"))
	entities.addListed(tokens("entities"))
	out.Tags, out.Logos, out.Locations = seg["tags"].list(), seg["logos"].list(), seg["locations"].list()
	out.KeyPhrases, out.Entities = phrases.list(), entities.list()

	// Keyword groups are read with keywords:read: a caller without it sees
	// no insights rather than the groups' names.
	var insights []keywordInsightJSON
	if p := principalOf(c); p != nil && p.Can("keywords:read") {
		if insights, err = s.keywordInsights(ctx, it, raw); err != nil {
			return err
		}
	}
	out.Insights = make([]summaryInsightJSON, 0, len(insights))
	for _, g := range insights {
		in := summaryInsightJSON{Name: g.GroupName, Color: g.Color}
		for _, m := range g.Matches {
			switch m.Type {
			case matchOCR:
				in.OCRs += m.Count
			case matchSpeech:
				in.SpeechToTexts += m.Count
			case matchCaption:
				in.Captions += m.Count
			case matchText:
				in.Texts += m.Count
			}
		}
		out.Insights = append(out.Insights, in)
	}
	c.JSON(http.StatusOK, itemSummaryJSON{Summary: out})
	return nil
}
