package ocr

import "github.com/metaharvest/metaharvest/extractors"

// vendor_digital_slates is a vendor-branded analysis of the reference run
// here, locally, without a provider: the slates of slates (same rule),
// their text read into fields. The top-level fields are those of the first
// slate, so that a search can filter on a slate's title or date.
func init() {
	fields := []extractors.Field{
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
	registerAnalysis(extractors.Info{
		Name:        "vendor_digital_slates",
		DisplayName: "Digital Slates",
		Family:      extractors.FamilyText,
		Version:     "1.0.0",
		Fields:      slateListFields(fields...),
	}, digitalSlatesRule)
}

// digitalSlatesRule lists the slates of slatesRule with the fields their
// text names, the first slate's at the top level too.
func digitalSlatesRule(in *extractors.Input, vr *videoReading) map[string]any {
	found := slatesOf(in, vr)
	data := map[string]any{"count": len(found)}
	list := make([]any, 0, len(found))
	for i, s := range found[:min(len(found), maxListed)] {
		fields := ParseSlateFields(s.Text)
		d := s.data()
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
	return data
}
