package jsonleaf

import "slices"

// Leaf is a value below the walked one that is neither an object, an array
// nor null: a string, a number, a bool (or any other Go value a document
// holds).
type Leaf struct {
	// Path is the object keys from the walked value down to the leaf,
	// joined by dots: member k of the value at path p is at "p.k", or at
	// "k" when p is "" (the walked value itself, or one below empty keys
	// only). A leaf inside an array has the array's path.
	Path string
	// Keys are those keys one by one: a key with a dot in it is one key
	// here, and two in Path. Only valid until visit returns.
	Keys []string
	// Value is the leaf.
	Value any
}

// Walk calls visit for each leaf of v, depth first, an object's members in
// no particular order (Go's map order).
func Walk(v any, visit func(Leaf)) { Walker{}.Walk(v, visit) }

// Walker is Walk with options.
type Walker struct {
	// Sorted visits an object's members in the order of their keys, so
	// that what the walk builds is the same every time.
	Sorted bool
	// Array, when set, is called for each array before its elements, as a
	// Leaf whose Value is the []any; when it returns false, the elements
	// are not visited (the caller took the array as one value).
	Array func(Leaf) bool
}

// Walk calls visit for each leaf of v, depth first.
func (w Walker) Walk(v any, visit func(Leaf)) {
	s := walk{Walker: w, visit: visit, keys: make([]string, 0, 8)}
	s.value(v, "", 0)
}

// walk is the state of one Walk: the keys from the root to the current
// value, and a stack of sorted member keys (one buffer for the whole walk,
// not one per object).
type walk struct {
	Walker
	visit func(Leaf)
	keys  []string
	order []string
}

func (s *walk) value(v any, path string, depth int) {
	switch x := v.(type) {
	case map[string]any:
		if !s.Sorted {
			for k, e := range x {
				s.member(path, depth, k, e)
			}
			return
		}
		start := len(s.order)
		if cap(s.order)-start < len(x) {
			// Room for the members of the objects below too: most
			// documents need one buffer.
			s.order = slices.Grow(s.order, 2*len(x))
		}
		for k := range x {
			s.order = append(s.order, k)
		}
		end := len(s.order)
		slices.Sort(s.order[start:end])
		for i := start; i < end; i++ {
			k := s.order[i] // s.order again: a member's walk may grow it
			s.member(path, depth, k, x[k])
		}
		s.order = s.order[:start]
	case []any:
		if s.Array != nil && !s.Array(Leaf{Path: path, Keys: s.keys[:depth], Value: x}) {
			return
		}
		for _, e := range x {
			s.value(e, path, depth)
		}
	case nil:
	default:
		s.visit(Leaf{Path: path, Keys: s.keys[:depth], Value: v})
	}
}

func (s *walk) member(path string, depth int, k string, v any) {
	child := k
	if path != "" {
		child = path + "." + k
	}
	s.keys = append(s.keys[:depth], k)
	s.value(v, child, depth+1)
}
