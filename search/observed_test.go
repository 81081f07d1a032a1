package search_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/search"
)

// An observed engine answers as the engine does and reports each call with
// its operation, duration and error.
func TestObservedReportsEveryCall(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	inner, err := search.Open(search.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		op  string
		err error
	}
	var calls []call
	e := search.Observed(inner, func(op string, took time.Duration, err error) {
		if took <= 0 {
			t.Errorf("%s: duration %v", op, took)
		}
		calls = append(calls, call{op, err})
	})
	ctx := context.Background()
	if err := search.MarkDirty(db, "i1", "i2", "i3"); err != nil {
		t.Fatal(err)
	}
	if _, err := search.Drain(ctx, db, e, 100); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, search.Request{Query: "clip", Limit: 10}, search.Visibility{All: true})
	if err != nil || res.TotalHits != 1 {
		t.Fatalf("search: %+v %v", res, err)
	}
	_, err = e.Search(ctx, search.Request{Filters: &search.Filters{Terms: []search.Term{{Field: "no.such.field", Value: "x"}}}}, search.Visibility{All: true})
	if ae, ok := apperr.As(err); !ok || ae.Status != 400 {
		t.Fatalf("unknown field: %v", err)
	}
	if e.Name() != inner.Name() {
		t.Fatalf("name %q", e.Name())
	}
	ops := map[string]int{}
	for _, c := range calls {
		ops[c.op]++
	}
	if ops["upsert"] == 0 || ops["search"] != 2 {
		t.Fatalf("calls: %+v", calls)
	}
	last := calls[len(calls)-1]
	if last.op != "search" || last.err == nil || !errors.Is(last.err, err) {
		t.Fatalf("last call %+v", last)
	}
}
