package recognition

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// labelsResult turns a provider's labels into Data, and for a video into
// segments tagged with them. offset is added to the label times (the
// start of the clip sent); maxTime bounds them (the item's duration, 0
// when unknown).
func labelsResult(in *extractors.Input, answer provider.Labels, offset, maxTime float64) *extractors.Result {
	var shifted provider.Labels
	for _, l := range answer.Labels {
		for _, t := range []*float64{l.Time, l.Start, l.End} {
			if t != nil {
				*t += offset
			}
		}
		shifted.Labels = append(shifted.Labels, l)
	}
	bound := maxTime
	if bound > 0 {
		bound += 1 // rounding of the provider's times
	}
	labels := shifted.Clean(bound)
	list := make([]any, 0, len(labels))
	var segs []extractors.Segment
	for _, l := range labels {
		list = append(list, l.Data())
		if !strings.HasPrefix(in.MIME, "video/") || len(segs) >= extractors.MaxSegments {
			continue
		}
		at := l.Time
		if at == nil {
			at = l.Start
		}
		if at != nil {
			conf := 0.0
			if l.Confidence != nil {
				conf = *l.Confidence
			}
			segs = append(segs, extractors.Segment{Time: *at, Summary: extractors.SegmentSummary{
				Tags: []extractors.SegmentTag{{Name: l.Name, Confidence: conf, Source: "vendor"}}}})
		}
	}
	return &extractors.Result{Data: map[string]any{"labels": list}, Segments: segs}
}

// top is the label with the most confidence summed over its appearances.
func top(labels []any) string {
	sum := map[string]float64{}
	name := map[string]string{}
	var order []string
	for _, l := range labels {
		m := l.(map[string]any)
		n := m["name"].(string)
		k := strings.ToLower(n)
		if _, ok := sum[k]; !ok {
			order = append(order, k)
			name[k] = n
		}
		sum[k] += m["confidence"].(float64)
	}
	best := ""
	for _, k := range order {
		if best == "" || sum[k] > sum[best] {
			best = k
		}
	}
	return name[best]
}

func call(ctx context.Context, c *provider.Client, task string, input any) (provider.Labels, error) {
	var out provider.Labels
	if err := c.Call(ctx, task, input, &out); err != nil {
		return out, err
	}
	if len(out.Labels) > 10*provider.MaxLabels {
		return out, fmt.Errorf("provider %s: %d labels, at most %d", task, len(out.Labels), 10*provider.MaxLabels)
	}
	return out, nil
}
