package store

import (
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// auditOrders maps the audit list's order parameter to SQL. group_id
// orders by the initiator's first group (alphabetically); users without
// groups come last.
var auditOrders = map[string]string{
	"ctime":       "time DESC, id DESC",
	"user_id":     "user_id, time DESC, id DESC",
	"target_kind": "target_kind, time DESC, id DESC",
	"action_key":  "action_key, time DESC, id DESC",
	"group_id":    "(SELECT min(group_id) FROM user_groups ug WHERE ug.user_id = audit_events.user_id) NULLS LAST, time DESC, id DESC",
}

// AuditOrderKnown reports whether name is an order of the audit list.
func AuditOrderKnown(name string) bool { _, ok := auditOrders[name]; return ok }

// AuditFilter narrows the audit list; empty fields do not filter. GroupID
// keeps the events initiated by members of that group; From and To are
// exclusive bounds on the event time.
type AuditFilter struct {
	UserID, GroupID, TargetKind, TargetID, ActionKey string
	From, To                                         *time.Time
}

// AuditEvents lists one page of the events matching f in the given order
// (AuditOrderKnown), with their total.
func AuditEvents(db *gorm.DB, f AuditFilter, order string, p Page) ([]models.AuditEvent, int64, error) {
	q := db.Model(&models.AuditEvent{})
	for col, v := range map[string]string{"user_id": f.UserID, "target_kind": f.TargetKind,
		"target_id": f.TargetID, "action_key": f.ActionKey} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	if f.GroupID != "" {
		q = q.Where("user_id IN (SELECT user_id FROM user_groups WHERE group_id = ?)", f.GroupID)
	}
	if f.From != nil {
		q = q.Where("time > ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("time < ?", *f.To)
	}
	return List[models.AuditEvent](q, p, auditOrders[order])
}
