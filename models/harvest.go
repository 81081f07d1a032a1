package models

import (
	"encoding/json"
	"time"
)

// Location is a storage connection; Config holds kind-specific keys
// (secrets included: the api redacts them).
type Location struct {
	ID        string `gorm:"primaryKey"`
	Kind      string
	Name      string
	Config    JSON `gorm:"type:jsonb"`
	Version   int
	Builtin   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// LocationGroup associates a group with a location.
type LocationGroup struct {
	LocationID string `gorm:"primaryKey"`
	GroupID    string `gorm:"primaryKey"`
}

// Container is one top-level unit of a location (a folder, a bucket).
type Container struct {
	ID                   string `gorm:"primaryKey"`
	LocationID           string
	Name                 string
	Enabled              bool
	Version              int
	ProfileID            string
	RequestID            string
	LastHarvested        *time.Time
	LastWalked           *time.Time
	HarvestSuccessCount  int64
	HarvestFailureCount  int64
	LastHarvestedFailure *time.Time
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// ContainerGroup associates a group with a container.
type ContainerGroup struct {
	ContainerID string `gorm:"primaryKey"`
	GroupID     string `gorm:"primaryKey"`
}

// Item is one file of a container. Metadata holds every extractor's data by
// extractor name, Results the latest run of each (version, error, time).
type Item struct {
	ID            string `gorm:"primaryKey"`
	LocationID    string
	ContainerID   string
	Path          string
	Name          string
	Size          int64
	ETag          string `gorm:"column:etag"`
	LastModified  *time.Time
	MimeType      string
	HarvestedETag string `gorm:"column:harvested_etag"`
	LastHarvested *time.Time
	// LastRequestID is the request of the latest harvest (see Runs).
	LastRequestID string
	HarvestFailed bool
	// LastSeenAt is when a walk last saw the file in storage.
	LastSeenAt time.Time
	Metadata   JSON `gorm:"type:jsonb"`
	Results    JSON `gorm:"type:jsonb"`
	DeletedAt  *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ExtractorRun is the latest run of one extractor on an item, kept in
// Item.Results by extractor name (its data is in Item.Metadata).
type ExtractorRun struct {
	Version   string    `json:"version"`
	Error     string    `json:"error"`
	RanAt     time.Time `json:"ran_at"`
	RequestID string    `json:"request_id"`
}

// Runs decodes Results; a malformed value reads as no runs. The entries of
// the latest harvest (migration 00012) are its version, or its version
// and error, and run at LastHarvested for LastRequestID.
func (it Item) Runs() map[string]ExtractorRun {
	out := map[string]ExtractorRun{}
	var raw map[string]json.RawMessage
	if len(it.Results) == 0 || json.Unmarshal(it.Results, &raw) != nil {
		return out
	}
	for name, v := range raw {
		run := ExtractorRun{RequestID: it.LastRequestID}
		if it.LastHarvested != nil {
			run.RanAt = *it.LastHarvested
		}
		if json.Unmarshal(v, &run.Version) != nil && json.Unmarshal(v, &run) != nil {
			continue
		}
		out[name] = run
	}
	return out
}

// Artifact is a file an extractor produced for an item (thumbnail, frame),
// stored in the artifact store (DATA_DIR/artifacts or the DATA_BUCKET
// bucket) under its path.
type Artifact struct {
	ItemID    string `gorm:"primaryKey"`
	Path      string `gorm:"primaryKey"`
	Extractor string
	Kind      string
	Width     int
	Height    int
}

// ExtractorProfile is a named set of extractors.
type ExtractorProfile struct {
	ID         string `gorm:"primaryKey"`
	Name       string
	Extractors Strings `gorm:"type:text[]"`
	Builtin    bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ExtractorSetting records whether an extractor is enabled on this platform.
// Extractors without a row use their registry default.
type ExtractorSetting struct {
	Name      string `gorm:"primaryKey"`
	Enabled   bool
	EnabledAt *time.Time
	UpdatedAt time.Time
}

// Job is one harvest request.
type Job struct {
	RequestID     string `gorm:"primaryKey"`
	JobType       string
	LocationID    string
	ContainerID   string
	ItemID        string
	UserID        string
	ProfileID     string
	Extractors    Strings `gorm:"type:text[]"`
	Options       JSON    `gorm:"type:jsonb"`
	Priority      int
	WalkedCount   int64
	IndexedCount  int64
	ErrorCount    int64
	EnqueuedCount int64
	WalkComplete  bool
	Cancelled     bool
	Created       time.Time `gorm:"autoCreateTime"`
	Updated       time.Time `gorm:"autoUpdateTime"`
}

// Activity is one record of a harvest report. Activities are read from the
// view activity_rows (migration 00011): an item's extractor runs without
// error are stored folded into its harvestend row, and the view unfolds
// them, so readers see one row per run as the reference describes. Writers
// name the table, ActivitiesTable.
type Activity struct {
	ID          int64 `gorm:"primaryKey"`
	DedupeKey   string
	TS          time.Time `gorm:"column:ts"`
	Kind        string
	RequestID   string
	LocationID  string
	ContainerID string
	HarvestID   string
	ProfileID   string
	Extractors  Strings `gorm:"type:text[]"`
	Name        string
	Source      string
	ItemID      string
	Count       int64
	Bytes       int64
	Error       string
	ErrorHash   string
	Duration    int64
}

// TableName is the view activities are read from.
func (Activity) TableName() string { return "activity_rows" }

// ActivitiesTable is the table activity rows are written to.
const ActivitiesTable = "activities"

// Activity kinds.
const (
	ActivityWalk            = "walk"
	ActivityHarvestDownload = "harvestdownload"
	ActivityExtractor       = "extractor"
	ActivityHarvestEnd      = "harvestend"
)

// SegmentPart is what one extractor reported of one moment of a video;
// the parts of an item are merged by time into its Segment records.
type SegmentPart struct {
	ItemID    string `gorm:"primaryKey"`
	Extractor string `gorm:"primaryKey"`
	TimeMS    int64  `gorm:"primaryKey;column:time_ms"`
	Thumbnail JSON   `gorm:"type:jsonb"`
	Summary   JSON   `gorm:"type:jsonb"`
}

// Caption is a timed transcript of an item. Extracted captions carry their
// extractor and are replaced when it runs again; uploaded ones keep the file
// as sent in Original.
type Caption struct {
	ID         string `gorm:"primaryKey"`
	ItemID     string
	Extractor  string
	Label      string
	Source     string
	Language   string
	Confidence float64
	Format     string
	Cues       JSON `gorm:"type:jsonb"`
	Original   []byte
	FileName   string
	AddedAt    time.Time
}
