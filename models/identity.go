package models

import "time"

// Setting is a key/value of the deployment (e.g. the token signing secret).
type Setting struct {
	Key   string `gorm:"primaryKey"`
	Value string
}

// Role holds the scopes its users may use.
type Role struct {
	ID          string `gorm:"primaryKey"`
	Name        string
	Description string
	Scopes      Strings `gorm:"type:text[]"`
	Builtin     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// User is a person who logs in. PasswordHash is argon2id in PHC form.
type User struct {
	ID           string `gorm:"primaryKey"`
	Email        string
	FirstName    string
	LastName     string
	Enabled      bool
	RoleID       string
	Admin        bool
	Avatar       string
	CompanyUID   string `gorm:"column:company_uid"`
	PasswordHash string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Group gathers users; groups are associated with locations and containers.
type Group struct {
	ID          string `gorm:"primaryKey"`
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// UserGroup is a membership.
type UserGroup struct {
	UserID  string `gorm:"primaryKey"`
	GroupID string `gorm:"primaryKey"`
}

// APIKey is a bearer credential acting as its owner. Only a hash of the
// token is stored.
type APIKey struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	UserID    string
	TokenHash string
	Active    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName keeps GORM from guessing "a_p_i_keys".
func (APIKey) TableName() string { return "api_keys" }

// AuditEvent records one mutating action.
type AuditEvent struct {
	ID           string `gorm:"primaryKey"`
	UserID       string
	ActionKey    string
	TargetKind   string
	TargetID     string
	AdditionalID string
	Time         time.Time
}
