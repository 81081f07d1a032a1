package web

import (
	"context"

	"github.com/metaharvest/metaharvest/internal/access"
)

// collabAssets adds the section's stylesheet and a script to a page.
func (u *UI) collabAssets(b *base, script string) {
	b.Nav = "compilations"
	b.Styles = append(b.Styles, u.assets.url("css/collab.css"))
	b.Scripts = append(b.Scripts, u.assets.url(script))
}

// itemCollab adds what the user may see of the item's comments, custom
// fields and compilations to its page, each by its scopes (the api's
// routes' scopes): comments:read, fields:read with fielddata:read,
// compilations:read (and :write to add).
func (u *UI) itemCollab(ctx context.Context, page *itemPage, p *access.Principal) error {
	db := u.DB.WithContext(ctx)
	timed := page.Player != nil
	added := false
	if p.Can("comments:read") {
		part, err := u.itemComments(db, p, page.ID, timed)
		if err != nil {
			return err
		}
		page.Comments = part
		if l, ok := commentLane(part); ok && timed {
			page.Lanes = append(page.Lanes, l)
		}
		added = true
	}
	if p.Can("fields:read") && p.Can("fielddata:read") {
		part, err := itemFields(db, p, page.ID)
		if err != nil {
			return err
		}
		page.Fields = part
		added = true
	}
	if p.Can("compilations:read") && p.Can("compilations:write") {
		v, err := p.Viewer(ctx, u.DB)
		if err != nil {
			return err
		}
		if page.AddTo, err = itemAddPart(db, p, v, timed); err != nil {
			return err
		}
		added = true
	}
	if added {
		page.Styles = append(page.Styles, u.assets.url("css/collab.css"))
		page.Scripts = append(page.Scripts, u.assets.url("js/comments.js"), u.assets.url("js/fields.js"), u.assets.url("js/compilations.js"))
	}
	return nil
}
