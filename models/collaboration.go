package models

import "time"

// Compilation is a curated, ordered list of items made by a user.
type Compilation struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	Public    bool
	AuthorID  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CompilationItem places an item, or a moment of it (InPoint to OutPoint,
// seconds), in a compilation: an entry, named by EntryID.
type CompilationItem struct {
	CompilationID string `gorm:"primaryKey"`
	EntryID       string `gorm:"primaryKey"`
	ItemID        string
	DisplayOrder  int
	AddedAt       time.Time
	InPoint       *float64
	OutPoint      *float64
}

// Comment is one version of a comment on a target (an item, a
// compilation). RootID is the id of the first version, which names the
// comment; a version made by an update has ParentID = RootID. Only the
// newest version of a comment is Current.
type Comment struct {
	ID         string `gorm:"primaryKey"`
	RootID     string
	ParentID   string
	TargetType string
	TargetID   string
	Body       string
	TimeMarker string
	AuthorID   string
	Current    bool
	Deleted    bool
	// CreatedAt is when the comment's first version was written, CTime
	// when this version was.
	CreatedAt time.Time
	CTime     time.Time `gorm:"column:ctime"`
}

// CustomField is a field users define and give values per item.
type CustomField struct {
	ID           string `gorm:"primaryKey"`
	Name         string
	Description  string
	DataType     string
	DisplayOrder int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Custom field data types.
const (
	FieldBool   = "bool"
	FieldDate   = "date"
	FieldNumber = "number"
	FieldString = "string"
)

// FieldValue is the value of a custom field on an item, in the column of
// the field's type.
type FieldValue struct {
	ID           string `gorm:"primaryKey"`
	ItemID       string
	FieldID      string
	BoolValue    *bool
	DateValue    *time.Time
	NumericValue *float64
	StringValue  *string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// LogoTrainingRequest is a brand's logos sent to the logo provider.
type LogoTrainingRequest struct {
	ID                         string `gorm:"primaryKey"`
	Name                       string
	Website                    string
	TrainingComplete           bool
	RequestedBy                string
	ProviderRequestID          string
	CreatedAt                  time.Time
	LastCheckedForCompletionAt *time.Time
}

// LogoTrainingImage is one reference logo of a request, stored in the
// logo bucket.
type LogoTrainingImage struct {
	ID        string `gorm:"primaryKey"`
	RequestID string
	FilePath  string
	PublicURL string
	CreatedAt time.Time
}
