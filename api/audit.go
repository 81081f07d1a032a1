package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
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
	"feature":          {"enable", "disable"},
}

// record writes an audit event in tx (the mutation's own transaction, so an
// action and its audit record commit together).
func record(tx *gorm.DB, p *Principal, kind, action, targetID, additionalID string) error {
	if !auditAllowed(kind, action) {
		return fmt.Errorf("audit: %s/%s is not in the catalogue", kind, action)
	}
	userID := ""
	if p != nil {
		userID = p.User.ID
	}
	return tx.Create(&models.AuditEvent{ID: ids.New(), UserID: userID, ActionKey: action,
		TargetKind: kind, TargetID: targetID, AdditionalID: additionalID, Time: time.Now().UTC()}).Error
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

// auditOrders maps the order parameter to SQL. group_id orders by the
// initiator's first group (alphabetically); users without groups come last.
var auditOrders = map[string]string{
	"ctime":       "time DESC, id DESC",
	"user_id":     "user_id, time DESC, id DESC",
	"target_kind": "target_kind, time DESC, id DESC",
	"action_key":  "action_key, time DESC, id DESC",
	"group_id":    "(SELECT min(group_id) FROM user_groups ug WHERE ug.user_id = audit_events.user_id) NULLS LAST, time DESC, id DESC",
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
	orderSQL, ok := auditOrders[order]
	if !ok {
		return apperr.InvalidField("order", "must be one of user_id, group_id, target_kind, action_key, ctime")
	}
	q := s.DB.WithContext(c.Request.Context()).Model(&models.AuditEvent{})
	for _, f := range []string{"user_id", "target_kind", "target_id", "action_key"} {
		if v := c.Query(f); v != "" {
			q = q.Where(f+" = ?", v)
		}
	}
	if g := c.Query("group_id"); g != "" {
		q = q.Where("user_id IN (SELECT user_id FROM user_groups WHERE group_id = ?)", g)
	}
	for _, b := range []struct{ name, op string }{{"from", ">"}, {"to", "<"}} {
		if v := c.Query(b.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return apperr.InvalidField(b.name, "must be an RFC 3339 timestamp")
			}
			q = q.Where("time "+b.op+" ?", t)
		}
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return err
	}
	var rows []models.AuditEvent
	if err := q.Order(orderSQL).Limit(count).Offset(page * count).Find(&rows).Error; err != nil {
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
	var e models.AuditEvent
	err := s.DB.WithContext(c.Request.Context()).Where("id = ?", c.Param("id")).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return apperr.NotFound("audit event", c.Param("id"))
	}
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
func (s *Server) audited(c *gin.Context, kind, action, targetID, additionalID string, change func(tx *gorm.DB) error) error {
	return s.DB.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
		if err := change(tx); err != nil {
			return err
		}
		return record(tx, principalOf(c), kind, action, targetID, additionalID)
	})
}
