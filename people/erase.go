package people

import (
	"context"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/store"
)

// EraseAll deletes every person and everything kept to recognise them
// (face codes, exclusions, reference pictures and their descriptors):
// what a role does when it starts with FACIAL_RECOGNITION=false, after the
// face descriptors went. dataDir is DATA_DIR: reference pictures kept in
// its artifact directory are removed at once; in an artifact bucket they
// are left to the artifact sweep, which removes files nothing refers to.
// It returns how many persons went.
func EraseAll(ctx context.Context, db *store.DB, dataDir string) (int64, error) {
	return EraseAllFrom(ctx, db, blobstore.Local(dataDir).Artifacts)
}

// EraseAllFrom is EraseAll with the artifact store of the reference
// pictures.
func EraseAllFrom(ctx context.Context, db *store.DB, files blobstore.Store) (int64, error) {
	var n int64
	var keys []string
	err := db.WithContext(ctx).Transaction(func(tx *store.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		var err error
		if n, err = store.CountPersons(tx); err != nil {
			return err
		}
		keys, err = store.EraseAllPeople(tx)
		return err
	})
	if err != nil {
		return 0, err
	}
	if len(keys) > 0 {
		_ = files.Remove(ctx, keys) // what is left is the sweep's
	}
	return n, nil
}
