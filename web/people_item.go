package web

import (
	"net/url"
	"sort"

	"github.com/metaharvest/metaharvest/internal/store"
)

// itemPeople is what the item page shows of the persons across the
// archive of an item's faces (docs/people.md).
type itemPeople struct {
	// labels names each of the item's own persons on the faces lane.
	labels map[string]string
	// named are the named persons, by name, each linking to its page.
	named []summaryPart
	// unnamed counts the persons without a name.
	unnamed int
}

// itemPersons reads the persons of an item's faces.
func itemPersons(db *store.DB, itemID string) (*itemPeople, error) {
	rows, err := store.ItemPeople(db, itemID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := &itemPeople{labels: make(map[string]string, len(rows))}
	seen := map[string]bool{}
	for _, r := range rows {
		first := !seen[r.PersonID]
		seen[r.PersonID] = true
		if r.Name == "" {
			out.labels[r.LocalPerson] = "Unnamed person"
			if first {
				out.unnamed++
			}
			continue
		}
		out.labels[r.LocalPerson] = r.Name
		if first {
			out.named = append(out.named, summaryPart{Text: r.Name, Href: "/people/" + url.PathEscape(r.PersonID)})
		}
	}
	sort.Slice(out.named, func(i, j int) bool { return out.named[i].Text < out.named[j].Text })
	return out, nil
}
