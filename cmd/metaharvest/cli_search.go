package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"
)

// filterFlags collects repeated --filter field=value.
type filterFlags []map[string]string

func (f *filterFlags) String() string { return fmt.Sprint(*f) }

func (f *filterFlags) Set(v string) error {
	field, value, ok := strings.Cut(v, "=")
	if !ok || field == "" {
		return fmt.Errorf("want field=value, got %q", v)
	}
	*f = append(*f, map[string]string{"field": field, "value": value})
	return nil
}

func cliSearch(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("search", `search ["query"] [--filter field=value]... [--fields a,b] [--limit N]`)
	var filters filterFlags
	fs.Var(&filters, "filter", "field=value: only items whose field has that value (repeatable; all must hold)")
	fields := fs.String("fields", "name,mime_type,size,store_container_name", "comma-separated fields to show after the id")
	limit := fs.Int("limit", 20, "most results to show (1 to 1000)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return fmt.Errorf("%w: one query at most (quote it): %q", errCLIUsage, rest)
	}
	if *limit < 1 || *limit > 1000 {
		return fmt.Errorf("%w: --limit must be 1 to 1000", errCLIUsage)
	}
	cols := []string{"_id"}
	for _, f := range strings.Split(*fields, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "_id" {
			cols = append(cols, f)
		}
	}
	body := map[string]any{"limit": *limit, "only": cols}
	if len(rest) == 1 {
		body["query"] = rest[0]
	}
	if len(filters) > 0 {
		body["filters"] = map[string]any{"terms": filters}
	}
	var out struct {
		TotalHits int64 `json:"total_hits"`
		Results   []struct {
			Result map[string]json.RawMessage `json:"result"`
		} `json:"results"`
	}
	if err := c.call(ctx, http.MethodPost, "/api/data/search", body, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	header := make([]string, len(cols))
	for i, col := range cols {
		header[i] = strings.ToUpper(strings.TrimPrefix(col, "_"))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range out.Results {
		row := make([]string, len(cols))
		for i, col := range cols {
			row[i] = cell(lookupField(r.Result, col))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%d of %d results\n", len(out.Results), out.TotalHits)
	return nil
}

// lookupField finds a dotted field in a result: "hashes.sha256" is either
// a key of that name or the sha256 key of the hashes object.
func lookupField(doc map[string]json.RawMessage, field string) json.RawMessage {
	if v, ok := doc[field]; ok {
		return v
	}
	head, tail, ok := strings.Cut(field, ".")
	if !ok {
		return nil
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(doc[head], &inner) != nil {
		return nil
	}
	return lookupField(inner, tail)
}

// cell renders a JSON value for a table: strings bare, the rest as JSON,
// on one line and at most 60 characters.
func cell(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "-"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}
