package ocr

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// vendor_digital_slates is a vendor-branded analysis of the reference run
// here, locally, without a provider: the slates of slates (same rule),
// their text read into fields. The top-level fields are those of the first
// slate, so that a search can filter on a slate's title or date.
func init() {
	fields := []extractors.Field{
		{Path: "count", Type: extractors.TypeNumber, Doc: "slates found"},
		{Path: "slates.position", Type: extractors.TypeString, Doc: "head (first minute) or tail (last minute)"},
		{Path: "slates.text", Type: extractors.TypeText, Doc: "text of the slate"},
		{Path: "duration_seconds", Type: extractors.TypeNumber, Doc: "the first slate's duration field read as seconds"},
		{Path: "date_iso", Type: extractors.TypeString, Doc: "the first slate's date field as YYYY-MM-DD, when unambiguous"},
		{Path: "slates.duration_seconds", Type: extractors.TypeNumber, Doc: "the slate's duration field read as seconds"},
		{Path: "slates.date_iso", Type: extractors.TypeString, Doc: "the slate's date field as YYYY-MM-DD, when unambiguous"},
	}
	for _, f := range slateFields {
		fields = append(fields,
			extractors.Field{Path: f, Type: extractors.TypeString, Doc: "the first slate's " + f + " field, as read"},
			extractors.Field{Path: "slates.fields." + f, Type: extractors.TypeString, Doc: "the slate's " + f + " field, as read"})
	}
	extractors.MustRegister(extractors.Info{
		Name:        "vendor_digital_slates",
		DisplayName: "Digital Slates",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"tesseract", "ffmpeg", "ffprobe"},
		After:       analysisAfter,
		Accept:      acceptVideo(),
		Timeout:     time.Hour,
		Settings:    settings,
		Fields:      frameFactFields(append(rangeFields("slates"), fields...)...),
		New:         newAnalysis(func(e *engine) extractors.Extractor { return digitalSlates{e} }),
	})
}

type digitalSlates struct{ e *engine }

var _ extractors.Extractor = digitalSlates{}

func (x digitalSlates) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.videoText(ctx, in)
	if err != nil {
		return nil, err
	}
	found := findSlates(vr, stillSlates(in.Prior["vendor_start_end"]))
	data := map[string]any{"count": len(found)}
	list := make([]any, 0, len(found))
	for i, s := range found[:min(len(found), maxListed)] {
		fields := ParseSlateFields(s.Text)
		d := spanData(s.span)
		d["position"], d["text"] = s.Position, cutUTF8(s.Text, maxFrameText)
		d["fields"] = fields
		if secs, ok := DurationSeconds(fields["duration"]); ok {
			d["duration_seconds"] = secs
		}
		if date, ok := ISODate(fields["date"]); ok {
			d["date_iso"] = date
		}
		list = append(list, d)
		if i == 0 {
			for k, v := range fields {
				data[k] = v
			}
			for _, k := range []string{"duration_seconds", "date_iso"} {
				if v, ok := d[k]; ok {
					data[k] = v
				}
			}
		}
	}
	data["slates"] = list
	return &extractors.Result{Data: frameFacts(vr, data)}, nil
}
