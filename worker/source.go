package worker

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// openBatch opens the task's container for reading its items (storage
// decides how each item's bytes reach the extractors: see storage.Inputs).
func (h *Handler) openBatch(t *target) (*storage.Batch, error) {
	st, err := h.openStorage(t.loc)
	if err != nil {
		return nil, err
	}
	return h.inputs.Open(st, t.ctr.Name)
}

// need is what the extractors of names need of an item's bytes: in memory
// or streamed when every one that can run is Inline, ranges when every
// one is Inline or reads ranges (Info.RangeReads), a path otherwise.
func (h *Handler) need(names []string) storage.Need {
	need := storage.NeedContent
	for _, n := range names {
		a := h.Extractors.Access(n)
		switch {
		case !a.Known || !a.Implemented || a.Inline:
		case a.RangeReads:
			need = max(need, storage.NeedRanges)
		default:
			return storage.NeedPath
		}
	}
	return need
}

// siblings is Input.Siblings of an item (see extractors.Sibling): the
// files next to itemPath named like it, among those the storage lists
// after "dir/base."; nil when the storage cannot list them.
func siblings(in *storage.Input, itemPath string) func(ctx context.Context, exts []string) ([]extractors.Sibling, error) {
	if in.Neighbours == nil {
		return nil
	}
	return func(ctx context.Context, exts []string) ([]extractors.Sibling, error) {
		name := path.Base(itemPath)
		prefix := extractors.SiblingPrefix(name)
		if prefix == "" || len(exts) == 0 {
			return nil, nil
		}
		if dir := path.Dir(itemPath); dir != "." {
			prefix = dir + "/" + prefix
		}
		files, err := in.Neighbours(ctx, prefix, extractors.MaxSiblingScan)
		if err != nil {
			return nil, fmt.Errorf("siblings of %s: %w", itemPath, err)
		}
		var out []extractors.Sibling
		for _, f := range files {
			if !extractors.IsSibling(name, path.Base(f.Path), exts) || strings.Contains(f.Path[len(prefix):], "/") {
				continue
			}
			out = append(out, extractors.Sibling{Name: path.Base(f.Path), Size: f.Size, Open: f.Open})
			if len(out) == extractors.MaxSiblings {
				break
			}
		}
		return out, nil
	}
}

func downloadActivity(t *target, item models.Item, n int64, took time.Duration) *models.Activity {
	a := activity(t, models.ActivityHarvestDownload, "")
	a.ItemID, a.Name, a.Bytes, a.Duration = item.ID, item.Name, n, took.Milliseconds()
	return &a
}
