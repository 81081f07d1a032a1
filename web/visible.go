package web

import (
	"net/http"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// visibleByPath loads the row the request's {id} names with take and
// checks that p may see where it lives (place: its location and container,
// "" for any container). An id that is missing, too long, unknown or not
// visible is errNotFound: the same page for all of them, so that nothing of
// a hidden row shows. The caller's viewer comes back with the row.
func visibleByPath[T any](u *UI, r *http.Request, p *access.Principal, take func(db *store.DB, id string) (T, error),
	place func(T) (locationID, containerID string)) (T, store.Viewer, error) {
	var zero T
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	id := r.PathValue("id")
	if id == "" || len(id) > 64 {
		return zero, store.Viewer{}, errNotFound
	}
	row, err := take(db, id)
	if ae, ok := apperr.As(err); ok && ae.Status == http.StatusNotFound {
		return zero, store.Viewer{}, errNotFound
	} else if err != nil {
		return zero, store.Viewer{}, err
	}
	v, err := p.Viewer(ctx, u.DB)
	if err != nil {
		return zero, store.Viewer{}, err
	}
	loc, ctr := place(row)
	if ok, err := v.Sees(db, loc, ctr); err != nil {
		return zero, store.Viewer{}, err
	} else if !ok {
		return zero, store.Viewer{}, errNotFound
	}
	return row, v, nil
}
