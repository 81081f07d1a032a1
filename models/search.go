package models

import "time"

// SavedSearch is a user's named search; Params is the URL query string of
// the search. Names are unique per user.
type SavedSearch struct {
	ID        string `gorm:"primaryKey"`
	UserID    string
	Name      string
	Params    string
	CreatedAt time.Time
	UpdatedAt time.Time
}
