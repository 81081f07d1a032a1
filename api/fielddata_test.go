package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

type fieldDataBody struct {
	FieldDataID   string         `json:"fielddata_id"`
	ItemID        string         `json:"item_id"`
	FieldID       string         `json:"field_id"`
	FieldName     string         `json:"field_name"`
	FieldDatatype string         `json:"field_datatype"`
	Value         map[string]any `json:"value"`
}

func fdPath(itemID, fieldID string) string {
	return "/api/data/v3/fielddata/" + itemID + "/field/" + fieldID
}

func TestFieldValuesSingle(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	str := e.createField(e.adminToken, "Rights", "string")
	date := e.createField(e.adminToken, "Air date", "date")
	num := e.createField(e.adminToken, "Rating", "number")
	flag := e.createField(e.adminToken, "Approved", "bool")

	var fd fieldDataBody
	e.do("POST", fdPath(e.video, str.ID), e.adminToken, map[string]any{"string_value": "CC-BY"}).status(201).decode(&fd)
	if fd.FieldDataID == "" || fd.ItemID != e.video || fd.FieldID != str.ID || fd.FieldName != "Rights" || fd.FieldDatatype != "string" ||
		fd.Value["string_value"] != "CC-BY" || len(fd.Value) != 1 {
		t.Fatalf("created %+v", fd)
	}
	// Dates are written YYYY-MM-DD and answered at midnight UTC.
	e.do("POST", fdPath(e.video, date.ID), e.adminToken, map[string]any{"date_value": "2024-02-29"}).status(201).decode(&fd)
	if fd.Value["date_value"] != "2024-02-29T00:00:00Z" {
		t.Fatalf("date %+v", fd.Value)
	}
	e.do("PUT", fdPath(e.video, num.ID), e.adminToken, map[string]any{"numeric_value": 4.5}).status(200).decode(&fd)
	if fd.Value["numeric_value"] != 4.5 {
		t.Fatalf("number %+v", fd.Value)
	}
	e.do("POST", fdPath(e.video, flag.ID), e.adminToken, map[string]any{"bool_value": false}).status(201).decode(&fd)
	if fd.Value["bool_value"] != false {
		t.Fatalf("bool %+v", fd.Value)
	}
	// PUT replaces; the value keeps its id.
	id := fd.FieldDataID
	e.do("PUT", fdPath(e.video, flag.ID), e.adminToken, map[string]any{"bool_value": true}).status(200).decode(&fd)
	if fd.FieldDataID != id || fd.Value["bool_value"] != true {
		t.Fatalf("replaced %+v (was %s)", fd, id)
	}

	e.do("GET", fdPath(e.video, date.ID), e.adminToken, nil).status(200).decode(&fd)
	if fd.Value["date_value"] != "2024-02-29T00:00:00Z" {
		t.Fatalf("read date %+v", fd)
	}
	var all struct {
		ItemID string          `json:"item_id"`
		Fields []fieldDataBody `json:"fields"`
	}
	e.do("GET", "/api/data/v3/fielddata/"+e.video, e.adminToken, nil).status(200).decode(&all)
	if all.ItemID != e.video || len(all.Fields) != 4 || all.Fields[0].FieldID != str.ID || all.Fields[3].FieldID != flag.ID {
		t.Fatalf("all values %+v", all)
	}
	e.do("GET", "/api/data/v3/fielddata/"+e.pdf, e.adminToken, nil).status(200).decode(&all)
	if len(all.Fields) != 0 {
		t.Fatalf("item without values: %+v", all)
	}

	// Status codes of the Errors table.
	for _, bad := range []map[string]any{
		{}, {"string_value": "a", "bool_value": true}, {"numeric_value": 3}, {"date_value": "2024-13-01"},
		{"string_value": strings.Repeat("x", 4097)}, {"other": 1},
	} {
		field := str.ID
		if _, ok := bad["date_value"]; ok {
			field = date.ID
		}
		if r := e.do("POST", fdPath(e.video, field), e.adminToken, bad); r.Code != 400 {
			t.Errorf("value %v: %d %s", bad, r.Code, r.Body)
		}
	}
	e.do("POST", fdPath(e.video, "nope"), e.adminToken, map[string]any{"string_value": "a"}).status(404)
	e.do("POST", fdPath("nope", str.ID), e.adminToken, map[string]any{"string_value": "a"}).status(404)
	e.do("GET", fdPath(e.pdf, str.ID), e.adminToken, nil).status(404)
	e.do("GET", fdPath("%20", str.ID), e.adminToken, nil).status(400)
	e.do("GET", fdPath(e.video, "%20"), e.adminToken, nil).status(400)
	e.do("GET", "/api/data/v3/fielddata/%20", e.adminToken, nil).status(400)

	// Delete answers the deleted value.
	e.do("DELETE", fdPath(e.video, num.ID), e.adminToken, nil).status(200).decode(&fd)
	if fd.Value["numeric_value"] != 4.5 {
		t.Fatalf("deleted %+v", fd)
	}
	e.do("DELETE", fdPath(e.video, num.ID), e.adminToken, nil).status(404)
	if e.count(`SELECT count(*) FROM audit_events WHERE target_kind = 'fielddata' AND target_id = ?`, e.video) != 6 {
		t.Fatal("value writes not audited (5 sets, 1 delete)")
	}

	// Deleting the field deletes its values.
	e.do("DELETE", "/api/data/v3/fields/"+str.ID, e.adminToken, nil).status(200)
	if n := e.count(`SELECT count(*) FROM field_values WHERE field_id = ?`, str.ID); n != 0 {
		t.Fatalf("%d values of a deleted field", n)
	}

	// A second user: items of the Secret location are 403 to them, their
	// values too; public items are theirs to annotate.
	e.do("POST", fdPath(e.secret, date.ID), e.adminToken, map[string]any{"date_value": "2020-01-01"}).status(201)
	e.do("GET", fdPath(e.secret, date.ID), e.other, nil).status(403)
	e.do("GET", "/api/data/v3/fielddata/"+e.secret, e.other, nil).status(403)
	e.do("PUT", fdPath(e.secret, date.ID), e.other, map[string]any{"date_value": "2021-01-01"}).status(403)
	e.do("DELETE", fdPath(e.secret, date.ID), e.other, nil).status(403)
	e.do("PUT", fdPath(e.pdf, date.ID), e.other, map[string]any{"date_value": "2021-01-01"}).status(200)
	_, reader := e.userWithScopes("reader@example.com", "items:read", "fielddata:read")
	e.do("GET", fdPath(e.pdf, date.ID), reader, nil).status(200)
	e.do("PUT", fdPath(e.pdf, date.ID), reader, map[string]any{"date_value": "2021-01-01"}).status(403)
}

func TestFieldValuesBulk(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	str := e.createField(e.adminToken, "Rights", "string")
	num := e.createField(e.adminToken, "Rating", "number")
	var res struct {
		Changed []struct {
			ItemID string `json:"item_id"`
			Fields []struct {
				FieldDataID string         `json:"fielddata_id"`
				FieldID     string         `json:"field_id"`
				Value       map[string]any `json:"value"`
			} `json:"fields"`
		} `json:"changed"`
		InvalidItems  []string `json:"invalid_items"`
		InvalidFields []string `json:"invalid_fields"`
	}
	body := []map[string]any{
		{"item_id": e.video, "fields": []map[string]any{
			{"field_id": str.ID, "value": map[string]any{"string_value": "mine"}},
			{"field_id": num.ID, "value": map[string]any{"numeric_value": 3}},
			{"field_id": "nofield", "value": map[string]any{"string_value": "x"}},
		}},
		{"item_id": "noitem", "fields": []map[string]any{{"field_id": str.ID, "value": map[string]any{"string_value": "x"}},
			{"field_id": "ghost", "value": map[string]any{"string_value": "x"}}}},
		{"item_id": e.secret, "fields": []map[string]any{{"field_id": str.ID, "value": map[string]any{"string_value": "x"}},
			{"field_id": "nofield", "value": map[string]any{"string_value": "x"}},
			{"field_id": "phantom", "value": map[string]any{"bool_value": true}}}},
	}
	// Every value set is audited: fielddata set on the item, naming the
	// field, by whoever set it; nothing else is.
	audits := func() string {
		t.Helper()
		var rows []struct{ TargetID, AdditionalID, UserID string }
		e.db.Raw(`SELECT target_id, additional_id, user_id FROM audit_events WHERE target_kind = 'fielddata'
			AND action_key = 'set' ORDER BY target_id, additional_id, user_id`).Scan(&rows)
		return fmt.Sprint(rows)
	}
	// The second user sees neither the unknown item nor the Secret one: both invalid alike.
	e.do("PUT", "/api/data/v3/fielddata", e.other, body).status(200).decode(&res)
	if len(res.Changed) != 1 || res.Changed[0].ItemID != e.video || len(res.Changed[0].Fields) != 2 ||
		res.Changed[0].Fields[1].Value["numeric_value"] != 3.0 || res.Changed[0].Fields[0].FieldDataID == "" {
		t.Fatalf("changed %+v", res.Changed)
	}
	if fmt.Sprint(res.InvalidItems) != fmt.Sprint([]string{"noitem", e.secret}) || fmt.Sprint(res.InvalidFields) != "[nofield ghost phantom]" {
		t.Fatalf("invalid %v %v", res.InvalidItems, res.InvalidFields)
	}
	want := []struct{ TargetID, AdditionalID, UserID string }{{e.video, str.ID, e.otherID}, {e.video, num.ID, e.otherID}}
	if num.ID < str.ID {
		want[0], want[1] = want[1], want[0]
	}
	if got := audits(); got != fmt.Sprint(want) {
		t.Fatalf("audit events %s, want %v", got, want)
	}
	if n := e.count(`SELECT count(*) FROM field_values WHERE item_id = ?`, e.secret); n != 0 {
		t.Fatal("a value was set on an item the caller may not see")
	}
	// An administrator sees the Secret item.
	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, body).status(200).decode(&res)
	if len(res.Changed) != 2 || fmt.Sprint(res.InvalidItems) != "[noitem]" || fmt.Sprint(res.InvalidFields) != "[nofield ghost phantom]" {
		t.Fatalf("admin bulk %+v", res)
	}
	if n := e.count(`SELECT count(*) FROM audit_events WHERE target_kind = 'fielddata' AND action_key = 'set'
		AND target_id = ? AND additional_id = ? AND user_id <> ?`, e.secret, str.ID, e.otherID); n != 1 {
		t.Fatalf("%d audit events of the Secret item's value set by the administrator", n)
	}
	before := audits()

	// A value of the wrong type fails the whole request.
	r := e.do("PUT", "/api/data/v3/fielddata", e.adminToken, []map[string]any{{"item_id": e.pdf, "fields": []map[string]any{
		{"field_id": str.ID, "value": map[string]any{"string_value": "ok"}},
		{"field_id": num.ID, "value": map[string]any{"string_value": "three"}}}}})
	if r.Code != 400 || r.field("[0].fields[1].value") == "" {
		t.Fatalf("wrong type: %d %s", r.Code, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM field_values WHERE item_id = ?`, e.pdf); n != 0 {
		t.Fatal("a refused bulk request set values")
	}
	if audits() != before {
		t.Fatal("a refused bulk request was audited")
	}
	// At most 1000 values.
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"field_id": str.ID, "value": map[string]any{"string_value": "v"}}
	}
	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, []map[string]any{{"item_id": e.pdf, "fields": many}}).status(400)
	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, []map[string]any{{"item_id": e.pdf, "fields": many[:1000]}}).status(200)
	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, map[string]any{"item_id": e.pdf}).status(400)
	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, []any{}).status(200)
}

// Values are searchable, filterable, sortable and aggregatable as
// fields.<field id> once the outbox is drained; a declared field without
// values filters to nothing, an unknown one is 400; the Secret item's
// values stay out of the second user's answers.
func TestFieldValuesInSearch(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	str := e.createField(e.adminToken, "Rights", "string")
	num := e.createField(e.adminToken, "Rating", "number")
	date := e.createField(e.adminToken, "Air date", "date")
	flag := e.createField(e.adminToken, "Approved", "bool")
	empty := e.createField(e.adminToken, "Unused", "number")

	search1 := func(tok string, req map[string]any) map[string]any {
		t.Helper()
		return e.do("POST", "/api/data/search", tok, req).status(200).json()
	}
	// Declared before any value: a filter and an aggregation work, with nothing in them.
	r := search1(e.adminToken, map[string]any{"filters": map[string]any{"ranges": []map[string]any{
		{"field": "fields." + empty.ID, "from": "1", "to": ""}}}})
	if r["total_hits"].(float64) != 0 {
		t.Fatalf("empty field filter: %v", r)
	}
	e.do("POST", "/api/data/search", e.adminToken, map[string]any{"filters": map[string]any{"exists": []string{"fields.nope"}}}).status(400)

	e.do("PUT", "/api/data/v3/fielddata", e.adminToken, []map[string]any{
		{"item_id": e.video, "fields": []map[string]any{
			{"field_id": str.ID, "value": map[string]any{"string_value": "zanzibar licence"}},
			{"field_id": num.ID, "value": map[string]any{"numeric_value": 2}},
			{"field_id": date.ID, "value": map[string]any{"date_value": "2024-05-01"}},
			{"field_id": flag.ID, "value": map[string]any{"bool_value": true}}}},
		{"item_id": e.pdf, "fields": []map[string]any{
			{"field_id": num.ID, "value": map[string]any{"numeric_value": 7}},
			{"field_id": date.ID, "value": map[string]any{"date_value": "2023-01-01"}},
			{"field_id": flag.ID, "value": map[string]any{"bool_value": false}}}},
		{"item_id": e.secret, "fields": []map[string]any{
			{"field_id": str.ID, "value": map[string]any{"string_value": "zanzibar secret"}},
			{"field_id": num.ID, "value": map[string]any{"numeric_value": 9}}}},
	}).status(200)
	if n, err := search.Drain(context.Background(), e.db, e.srv.Search, 100); err != nil || n != 3 {
		t.Fatalf("drain: %d %v", n, err)
	}

	ids := func(r map[string]any) []string {
		var out []string
		for _, x := range r["results"].([]any) {
			out = append(out, x.(map[string]any)["result"].(map[string]any)["_id"].(string))
		}
		return out
	}
	// Full text.
	if got := ids(search1(e.adminToken, map[string]any{"query": "zanzibar"})); len(got) != 2 {
		t.Fatalf("admin text search: %v", got)
	}
	if got := ids(search1(e.other, map[string]any{"query": "zanzibar"})); fmt.Sprint(got) != fmt.Sprint([]string{e.video}) {
		t.Fatalf("second user's text search: %v", got)
	}
	// Filters of each type.
	for _, f := range []map[string]any{
		{"terms": []map[string]any{{"field": "fields." + str.ID, "value": "zanzibar licence"}}},
		{"ranges": []map[string]any{{"field": "fields." + num.ID, "from": "1", "to": "5"}}},
		{"ranges": []map[string]any{{"field": "fields." + date.ID, "from": "2024-01-01", "to": ""}}},
		{"terms": []map[string]any{{"field": "fields." + flag.ID, "value": "true"}}},
	} {
		if got := ids(search1(e.other, map[string]any{"filters": f})); fmt.Sprint(got) != fmt.Sprint([]string{e.video}) {
			t.Errorf("filter %v: %v", f, got)
		}
	}
	// Sort, descending by number: the second user never sees the Secret item's 9.
	r = search1(e.other, map[string]any{"sort_fields": []map[string]any{{"field": "fields." + num.ID, "asc": false}},
		"only": []string{"fields." + num.ID}})
	if got := ids(r); len(got) < 2 || got[0] != e.pdf || got[1] != e.video {
		t.Fatalf("sorted: %v", got)
	}
	// Aggregations.
	r = search1(e.other, map[string]any{"aggregations": map[string]any{
		"metrics": []map[string]any{{"name": "top", "field": "fields." + num.ID, "type": "max"}},
		"terms":   []map[string]any{{"name": "ok", "field": "fields." + flag.ID}}}})
	aggs := r["aggregations"].(map[string]any)
	if aggs["metrics"].(map[string]any)["top"] != 7.0 {
		t.Fatalf("max rating %v", aggs)
	}
	if b := aggs["terms"].(map[string]any)["ok"].(map[string]any)["buckets"].([]any); len(b) != 2 {
		t.Fatalf("bool buckets %v", b)
	}

	// A deleted value leaves the document at the next drain.
	e.do("DELETE", fdPath(e.video, str.ID), e.adminToken, nil).status(200)
	if _, err := search.Drain(context.Background(), e.db, e.srv.Search, 100); err != nil {
		t.Fatal(err)
	}
	if got := ids(search1(e.adminToken, map[string]any{"query": "zanzibar"})); fmt.Sprint(got) != fmt.Sprint([]string{e.secret}) {
		t.Fatalf("after delete: %v", got)
	}
}
