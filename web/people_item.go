package web

import (
	"fmt"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/internal/store"
)

// itemPersons reads the persons across the archive of an item's faces
// (docs/people.md): it adds a "People" fact naming them and returns how
// the faces lane labels each of the item's own persons.
func itemPersons(db *store.DB, itemID string, page *itemPage) (map[string]string, error) {
	rows, err := store.ItemPeople(db, itemID)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	labels := make(map[string]string, len(rows))
	var named []string
	unnamed := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Name != "" {
			labels[r.LocalPerson] = r.Name
			if !seen[r.PersonID] {
				named = append(named, r.Name)
			}
		} else {
			labels[r.LocalPerson] = "Unnamed person"
			unnamed[r.PersonID] = true
		}
		seen[r.PersonID] = true
	}
	sort.Strings(named)
	if len(unnamed) > 0 {
		s := "s"
		if len(unnamed) == 1 {
			s = ""
		}
		named = append(named, fmt.Sprintf("%d unnamed person%s", len(unnamed), s))
	}
	page.Facts = append(page.Facts, fact{"People", strings.Join(named, ", ")})
	return labels, nil
}
