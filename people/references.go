package people

import (
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/search"
)

// DeleteReference deletes a reference picture (in tx, which holds the
// people lock: store.LockPeople) and lets go of the faces it named: a face
// of its person within threshold of it and of none of the person's other
// reference pictures, which no user put on the person, loses its person
// and is assigned again by the assigner as a face it never saw (joining
// the person again if it is near enough to their other faces, else
// another person or a new one). The person's counts are worked out again;
// a person left without faces nor reference pictures goes.
func DeleteReference(tx *store.DB, id int64, threshold float64) (DeletedReference, error) {
	ref, err := store.DeleteReference(tx, id)
	if err != nil {
		return DeletedReference{}, err
	}
	out := DeletedReference{Files: ref.Files}
	if out.Released, err = releaseNamed(tx, ref, threshold); err != nil {
		return DeletedReference{}, err
	}
	gone, err := store.RecountPeople(tx, []string{ref.PersonID})
	if err != nil {
		return DeletedReference{}, err
	}
	out.PersonDeleted = len(gone) > 0
	return out, nil
}

// DeletedReference is what deleting a reference picture did.
type DeletedReference struct {
	// Files are the picture's keys in the artifact store, for the caller
	// to remove after commit.
	Files []string
	// Released is how many faces it had named lost their person.
	Released int
	// PersonDeleted: the person was left without faces nor pictures.
	PersonDeleted bool
}

// releaseNamed lets go of the faces a deleted reference picture named and
// returns how many.
func releaseNamed(tx *store.DB, ref store.DeletedReference, threshold float64) (int, error) {
	if ref.Descriptor == nil {
		return 0, nil // never described: it named nobody
	}
	gone, err := facedesc.Dequantize(ref.Descriptor)
	if err != nil {
		return 0, nil
	}
	var others [][]float32
	// Only descriptors of the deleted one's model compare with it.
	raw, err := store.PersonReferenceDescriptors(tx, ref.PersonID, ref.Model)
	if err != nil {
		return 0, err
	}
	for _, b := range raw {
		if v, err := facedesc.Dequantize(b); err == nil && len(v) == len(gone) {
			others = append(others, v)
		}
	}
	faces, err := store.UnpinnedFaceDescriptors(tx, ref.PersonID, ref.Model)
	if err != nil {
		return 0, err
	}
	var release []int64
	for _, f := range faces {
		v, err := facedesc.Dequantize(f.Descriptor)
		if err != nil || len(v) != len(gone) || facedesc.Cosine(v, gone) < threshold {
			continue
		}
		named := false
		for _, o := range others {
			if facedesc.Cosine(v, o) >= threshold {
				named = true
				break
			}
		}
		if !named {
			release = append(release, f.ID)
		}
	}
	items, err := store.ReleaseFaces(tx, release)
	if err != nil {
		return 0, err
	}
	if err := search.MarkDirty(tx, items...); err != nil {
		return 0, err
	}
	return len(release), nil
}
