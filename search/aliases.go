package search

// fieldAliases are field names that clients written for the original
// product send, and the fields of ours they mean (DECISIONS.md,
// "Compatibility"). A request may use either name anywhere a field is
// named; results carry our name.
var fieldAliases = map[string]string{
	// The original product called an item's id gm_item_id.
	"gm_item_id": FieldID,
	// Its clients ask for harvested items with exists "extracted"; every
	// harvest runs the store extractor, so an item has store data exactly
	// when it was harvested.
	"extracted": "store",
}

// FieldAlias returns the field a name stands for: itself, or the field it
// is an alias of.
func FieldAlias(name string) string {
	if f, ok := fieldAliases[name]; ok {
		return f
	}
	return name
}
