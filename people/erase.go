package people

import (
	"context"
	"os"
	"path/filepath"

	"github.com/metaharvest/metaharvest/internal/store"
)

// EraseAll deletes every person and everything kept to recognise them
// (face codes, exclusions, reference pictures and their descriptors):
// what a role does when it starts with FACIAL_RECOGNITION=false, after the
// face descriptors went. dataDir is DATA_DIR, where reference pictures
// are kept. It returns how many persons went.
func EraseAll(ctx context.Context, db *store.DB, dataDir string) (int64, error) {
	var n int64
	var files []string
	err := db.WithContext(ctx).Transaction(func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		var err error
		if n, err = store.CountPersons(tx); err != nil {
			return err
		}
		files, err = store.EraseAllPeople(tx)
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, f := range files {
		_ = os.Remove(filepath.Join(dataDir, filepath.FromSlash(f))) // gone already is fine
	}
	return n, nil
}
