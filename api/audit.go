package api

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// auditCatalogue lists every target kind and the action keys written for it.
// record refuses anything else, so the filters endpoint is always complete.
var auditCatalogue = map[string][]string{
	"authenticate":     {"login", "update-password"},
	"role":             {"create", "delete", "add-scopes", "remove-scopes"},
	"user":             {"create", "update", "delete", "enable", "disable", "add-group", "remove-group"},
	"group":            {"create", "update", "delete"},
	"apikey":           {"create", "update", "enable", "disable", "delete"},
	"location":         {"create", "update", "delete", "add-group"},
	"container":        {"enable", "disable", "update"},
	"item":             {"delete", "upload"},
	"caption":          {"upload", "delete"},
	"harvest":          {"start", "cancel"},
	"extractor":        {"enable", "disable"},
	"extractorprofile": {"create", "update", "delete"},
	"savedsearch":      {"create", "update", "delete"},
	"search":           {"export"},
	"feature":          {"enable", "disable"},
	// collaboration (routes.go)
	"compilation":  {"create", "update", "delete", "add-item", "remove-item", "order-items", "clone"},
	"comment":      {"create", "update", "delete"},
	"field":        {"create", "update", "delete", "order"},
	"fielddata":    {"set", "delete"},
	"logotraining": {"create", "check", "complete"},
	// people (routes.go)
	"person": {"rename", "hide", "show", "merge", "move-face", "reject-face", "delete", "teach", "delete-reference"},
}

// record writes an audit event in tx (the mutation's own transaction, so an
// action and its audit record commit together).
func record(tx *store.DB, p *Principal, kind, action, targetID, additionalID string) error {
	ev, err := auditEvent(p, kind, action, targetID, additionalID)
	if err != nil {
		return err
	}
	return store.Record(tx, ev)
}

// auditEvent is the event of an action by p, refused when the catalogue
// does not list it (so the filters endpoint is always complete).
func auditEvent(p *Principal, kind, action, targetID, additionalID string) (store.Event, error) {
	if !auditAllowed(kind, action) {
		return store.Event{}, fmt.Errorf("audit: %s/%s is not in the catalogue", kind, action)
	}
	ev := store.Event{Kind: kind, Action: action, TargetID: targetID, AdditionalID: additionalID}
	if p != nil {
		ev.UserID = p.User.ID
	}
	return ev, nil
}

// event is auditEvent for the caller of c.
func event(c *gin.Context, kind, action, targetID, additionalID string) (store.Event, error) {
	return auditEvent(principalOf(c), kind, action, targetID, additionalID)
}

func auditAllowed(kind, action string) bool {
	for _, a := range auditCatalogue[kind] {
		if a == action {
			return true
		}
	}
	return false
}

type auditEventJSON struct {
	ID           string    `json:"id"`
	UserID       string    `json:"user_id"`
	ActionKey    string    `json:"action_key"`
	TargetKind   string    `json:"target_kind"`
	TargetID     string    `json:"target_id"`
	Time         time.Time `json:"time"`
	AdditionalID string    `json:"additional_id,omitempty"`
}

func auditJSON(e models.AuditEvent) auditEventJSON {
	return auditEventJSON{ID: e.ID, UserID: e.UserID, ActionKey: e.ActionKey, TargetKind: e.TargetKind,
		TargetID: e.TargetID, Time: e.Time.UTC(), AdditionalID: e.AdditionalID}
}

func (s *Server) listAudit(c *gin.Context) error {
	page, err := queryInt(c, "page", 0, 0, 1<<31-1)
	if err != nil {
		return err
	}
	count, err := queryInt(c, "count", 20, 1, 1000)
	if err != nil {
		return err
	}
	order := c.DefaultQuery("order", "ctime")
	if !store.AuditOrderKnown(order) {
		return apperr.InvalidField("order", "must be one of user_id, group_id, target_kind, action_key, ctime")
	}
	f := store.AuditFilter{UserID: c.Query("user_id"), GroupID: c.Query("group_id"), TargetKind: c.Query("target_kind"),
		TargetID: c.Query("target_id"), ActionKey: c.Query("action_key")}
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := c.Query(b.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return apperr.InvalidField(b.name, "must be an RFC 3339 timestamp")
			}
			*b.dst = &t
		}
	}
	rows, total, err := store.AuditEvents(s.db(c), f, order,
		store.Page{Limit: count, Offset: page * count})
	if err != nil {
		return err
	}
	out := make([]auditEventJSON, len(rows))
	for i, e := range rows {
		out[i] = auditJSON(e)
	}
	c.JSON(http.StatusOK, gin.H{"audit_events": out, "total": total, "page": page})
	return nil
}

func (s *Server) getAudit(c *gin.Context) error {
	e, err := store.Take[models.AuditEvent](s.db(c), "audit event", c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, auditJSON(e))
	return nil
}
func (s *Server) auditFilters(c *gin.Context) error {
	type kind struct {
		Name       string   `json:"name"`
		ActionKeys []string `json:"action_keys"`
	}
	out := make([]kind, 0, len(auditCatalogue))
	for name, actions := range auditCatalogue {
		a := append([]string(nil), actions...)
		sort.Strings(a)
		out = append(out, kind{Name: name, ActionKeys: a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	c.JSON(http.StatusOK, gin.H{"target_kinds": out})
	return nil
}

// audited runs change and the audit record of the action in one
// transaction: the action and its record commit together or not at all.
func (s *Server) audited(c *gin.Context, kind, action, targetID, additionalID string, change func(tx *store.DB) error) error {
	ev, err := event(c, kind, action, targetID, additionalID)
	if err != nil {
		return err
	}
	return store.Audited(s.db(c), ev, change)
}

// auditedUpdate saves the columns of row (a model with its id set) and
// records kind/action on targetID in one transaction (store.Update); taken
// maps a unique violation, when given.
func (s *Server) auditedUpdate(c *gin.Context, kind, action, targetID string, row any, taken func(error) error, columns ...string) error {
	ev, err := event(c, kind, action, targetID, "")
	if err != nil {
		return err
	}
	return store.Update(s.db(c), ev, row, taken, columns...)
}

// auditedDelete deletes the row of T with this id and records kind/delete
// in one transaction; 404 (naming label) when there is none (store.Delete).
func auditedDelete[T any](s *Server, c *gin.Context, kind, id, label string) error {
	ev, err := event(c, kind, "delete", id, "")
	if err != nil {
		return err
	}
	return store.Delete[T](s.db(c), ev, label, id)
}
