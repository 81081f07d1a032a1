package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

type duplicatesBody struct {
	Duplicates []duplicateJSON `json:"duplicates"`
	Next       string          `json:"next_page_token"`
	Prev       string          `json:"previous_page_token"`
}

// dupSummary renders a page as "hash-label:count:names" for comparison.
func dupSummary(b duplicatesBody, label map[string]string) []string {
	var out []string
	for _, d := range b.Duplicates {
		names := make([]string, 0, len(d.Items))
		for _, it := range d.Items {
			names = append(names, it.Name)
		}
		if len(names) > 3 {
			names = append(names[:2], fmt.Sprintf("...%d", len(names)))
		}
		out = append(out, fmt.Sprintf("%s:%d:%s", label[d.Hash], d.Count, strings.Join(names, ",")))
	}
	return out
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-dup", nil, nil)
	hidLoc, hidCtr := w.location("loc-dup-hidden", []string{"g-dup"}, nil)
	ctrLoc, hidCtrInLoc := w.location("loc-dup-ctr", nil, []string{"g-dup-ctr"})
	label := map[string]string{}
	for _, l := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		label[sha(l)] = l
	}
	gone := time.Now()
	var items []models.Item
	add := func(locID, ctrID, name, hash string, deleted *time.Time) {
		meta := map[string]any{"hashes": map[string]any{"md5": "x", "sha256": hash}}
		if hash == "-" {
			meta = map[string]any{"store": map[string]any{}}
		}
		items = append(items, models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name,
			Name: name, Size: int64(len(name)), MimeType: "image/jpeg", Metadata: models.MustJSON(meta), DeletedAt: deleted})
	}
	add(loc, ctr, "a2", sha("A"), nil)
	add(loc, ctr, "a1", sha("A"), nil)
	add(loc, ctr, "a3", sha("A"), nil)
	add(loc, ctr, "b1", sha("B"), nil)
	add(loc, ctr, "b2", sha("B"), nil)
	add(loc, ctr, "c1", sha("C"), nil)
	add(hidLoc, hidCtr, "c2", sha("C"), nil) // a group for members only
	add(loc, ctr, "d1", sha("D"), nil)       // alone
	add(loc, ctr, "e1", sha("E"), nil)
	add(loc, ctr, "e2", sha("E"), &gone) // its copy is deleted
	add(ctrLoc, hidCtrInLoc, "f1", sha("F"), nil)
	add(ctrLoc, hidCtrInLoc, "f2", sha("F"), nil) // container hidden, location visible
	add(loc, ctr, "none", "-", nil)
	add(loc, ctr, "empty1", "", nil)
	add(loc, ctr, "empty2", "", nil)
	for k := range 101 { // more copies than a group lists
		add(loc, ctr, fmt.Sprintf("g%03d", k), sha("G"), nil)
	}
	if err := e.db.CreateInBatches(items, 100).Error; err != nil {
		t.Fatal(err)
	}

	const path = "/api/data/v3/duplicates"
	get := func(tok, query string) duplicatesBody {
		t.Helper()
		var b duplicatesBody
		e.do("GET", path+query, tok, nil).status(200).decode(&b)
		return b
	}
	// Groups with equal counts come in hash order.
	two := []string{"B", "C", "F"}
	for i := range two {
		for j := i + 1; j < len(two); j++ {
			if sha(two[j]) < sha(two[i]) {
				two[i], two[j] = two[j], two[i]
			}
		}
	}
	names := map[string]string{"B": "b1,b2", "C": "c1,c2", "F": "f1,f2"}
	var want []string
	want = append(want, "G:101:g000,g001,...100", "A:3:a1,a2,a3")
	for _, l := range two {
		want = append(want, l+":2:"+names[l])
	}

	all := get(e.adminToken, "")
	if got := dupSummary(all, label); !reflect.DeepEqual(got, want) || all.Next != "" || all.Prev != "" {
		t.Fatalf("admin: %v next %q prev %q\nwant %v", got, all.Next, all.Prev, want)
	}
	first := all.Duplicates[1].Items[0]
	if first != (duplicateItemJSON{ItemID: models.ItemID(ctr, "a1"), Name: "a1", LocationID: loc, ContainerID: ctr, Size: 2}) {
		t.Fatalf("item %+v", first)
	}

	// Paging by tokens, both spellings, forwards and back.
	p1 := get(e.adminToken, "?limit=2")
	p2 := get(e.adminToken, "?limit=2&page-token="+p1.Next)
	p3 := get(e.adminToken, "?limit=2&page_token="+p2.Next)
	got := append(append(dupSummary(p1, label), dupSummary(p2, label)...), dupSummary(p3, label)...)
	if !reflect.DeepEqual(got, want) || p1.Prev != "" || p3.Next != "" || p3.Prev == "" {
		t.Fatalf("pages: %v (p1 prev %q, p3 next %q)\nwant %v", got, p1.Prev, p3.Next, want)
	}
	if back := get(e.adminToken, "?limit=2&page-token="+p3.Prev); !reflect.DeepEqual(back, p2) {
		t.Fatalf("previous of page 3: %+v, want page 2", back)
	}
	if past := get(e.adminToken, "?limit=2&page-token="+encodeOffset(10)); len(past.Duplicates) != 0 || past.Next != "" || past.Prev == "" {
		t.Fatalf("past the end: %+v", past)
	}

	// Outsiders group only what they see: no C (one copy hidden) and no F.
	_, outsider := e.userWithScopes("dup-out@example.com", "items:read")
	if got := dupSummary(get(outsider, ""), label); !reflect.DeepEqual(got, []string{want[0], want[1], "B:2:b1,b2"}) {
		t.Fatalf("outsider: %v", got)
	}
	memberID, member := e.userWithScopes("dup-in@example.com", "items:read")
	w.create(&models.UserGroup{UserID: memberID, GroupID: "g-dup"})
	var wantMember []string
	for _, s := range want {
		if !strings.HasPrefix(s, "F:") {
			wantMember = append(wantMember, s)
		}
	}
	if got := dupSummary(get(member, ""), label); !reflect.DeepEqual(got, wantMember) {
		t.Fatalf("member: %v\nwant %v", got, wantMember)
	}

	// Bad limits and tokens.
	// "eA" is base64 of "x"; encodeOffset(-1) a token for a negative offset.
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?page-token=%21%21", "?page-token=eA",
		"?page-token=" + encodeOffset(-1), "?page_token=not-a-token", "?offset=-1"} {
		r := e.do("GET", path+q, e.adminToken, nil)
		if r.Code != 400 || r.errCode() != "validation_failed" {
			t.Errorf("%s: %d %s", q, r.Code, r.Body)
		}
	}
}
