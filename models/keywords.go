package models

import "time"

// KeywordGroup is a named, coloured list of words and phrases looked for in
// the text of items (keyword hits). Names are unique whatever their case.
type KeywordGroup struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	Color     string
	Words     Strings `gorm:"type:text[]"`
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}
