package queue

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Task types.
const (
	TypeWalk  = "harvest:walk"
	TypeItem  = "harvest:item"
	TypeIndex = "search:index"
	// TypeArtifactSweep removes artifact files no row refers to, a page
	// range at a time (on the maintenance queue).
	TypeArtifactSweep = "artifacts:sweep"
)

// ArtifactSweepPayload is one stretch of a sweep of the artifact store:
// keys after After. Run names the sweep (its task ids derive from it).
type ArtifactSweepPayload struct {
	Run   string `json:"run"`
	After string `json:"after,omitempty"`
}

// WalkPayload asks for one page of a container walk. The job row
// (RequestID) carries the harvest options.
type WalkPayload struct {
	RequestID   string `json:"request_id"`
	ContainerID string `json:"container_id"`
	Cursor      string `json:"cursor"`
	Page        int    `json:"page"`
	// Repair is set on a walk re-enqueued for a stalled job (a token unique
	// to the repair): the walk runs even if the container was walked
	// recently, and every task it enqueues gets new task ids, since the ids
	// of lost or archived tasks may still be taken.
	Repair string `json:"repair,omitempty"`
}

// ItemPayload asks for the harvest of one item or a batch of items of one
// container (walks enqueue batches: one task, one transaction per batch).
type ItemPayload struct {
	RequestID string   `json:"request_id"`
	ItemID    string   `json:"item_id,omitempty"`
	ItemIDs   []string `json:"item_ids,omitempty"`
	// Files are files of ContainerID a walk found that are no items yet:
	// the harvest writes their rows, whole, once.
	ContainerID string      `json:"container_id,omitempty"`
	Files       []FileEntry `json:"files,omitempty"`
	// Repair marks batches of a repair walk: their items may have finished
	// under the lost tasks, so the handler looks before harvesting.
	Repair bool `json:"repair,omitempty"`
}

// FileEntry is a listed file as a walk saw it.
type FileEntry struct {
	Path     string    `json:"path"`
	Size     int64     `json:"size"`
	ETag     string    `json:"etag,omitempty"`
	Modified time.Time `json:"modified"`
}

// IDs lists the payload's items.
func (p ItemPayload) IDs() []string {
	if p.ItemID != "" {
		return append([]string{p.ItemID}, p.ItemIDs...)
	}
	return p.ItemIDs
}

// IndexPayload asks for a drain of the search outbox.
type IndexPayload struct{}

// NewTask marshals a payload into a task of the given type.
func NewTask(typ string, payload any, opts ...asynq.Option) (*asynq.Task, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("marshal %s payload: %w", typ, err)
	}
	return asynq.NewTask(typ, b, opts...), nil
}

// Decode unmarshals a task payload; a payload that does not decode is a
// permanent failure.
func Decode(t *asynq.Task, dst any) error {
	if err := json.Unmarshal(t.Payload(), dst); err != nil {
		return fmt.Errorf("decode %s payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	return nil
}
