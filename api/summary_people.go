package api

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// People of the item summary, from vendor_faces: the persons it followed,
// most seen first, each with the crop of their best face. Each of the
// item's own persons is shown as its person across the archive (package
// people: the same person_id in every item, name once named, is_known);
// the item's persons that are the same person across the archive are one
// entry. A face without a person across the archive (facial recognition
// off, or not assigned yet) shows the item's own person, unknown.
// vendor_faces names its crops relative to its artifact directory; the
// summary gives the artifact's full path (as in the item's artifacts) and
// the URL it is served at. One crop is made per face (at most 256 pixels a
// side), so the "small" image is that same crop. created_at and
// updated_at are the person's (for an item's own person: when
// vendor_faces ran on the item).

const facesExtractor = "vendor_faces"

type summaryPersonJSON struct {
	PersonID           string    `json:"person_id"`
	Name               string    `json:"name,omitempty"`
	IsKnown            bool      `json:"is_known"`
	FaceImgPath        string    `json:"face_img_path"`
	FaceImgURL         string    `json:"face_img_url"`
	FaceImgWidth       int64     `json:"face_img_width"`
	FaceImgHeight      int64     `json:"face_img_height"`
	FaceImgSmallPath   string    `json:"face_img_small_path"`
	FaceImgSmallURL    string    `json:"face_img_small_url"`
	FaceImgSmallWidth  int64     `json:"face_img_small_width"`
	FaceImgSmallHeight int64     `json:"face_img_small_height"`
	NumFaces           int       `json:"num_faces"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

type summaryPeopleEntryJSON struct {
	Appearances float64           `json:"appearances"`
	Person      summaryPersonJSON `json:"person"`
}

func (s *Server) peopleSummary(ctx context.Context, it models.Item, meta metaReader) ([]summaryPeopleEntryJSON, error) {
	out := []summaryPeopleEntryJSON{}
	data := meta(facesExtractor)
	people := listAt(data, "people")
	if len(people) == 0 {
		return out, nil
	}
	crops, err := s.faceCrops(ctx, it.ID)
	if err != nil {
		return nil, err
	}
	faces := map[string]int{}
	for _, f := range listAt(data, "faces") {
		if id := strAt(f, "person_id"); id != "" {
			faces[id]++
		}
	}
	ran := it.Runs()[facesExtractor].RanAt
	if ran.IsZero() && it.LastHarvested != nil {
		ran = *it.LastHarvested
	}
	ran = ran.UTC()
	global, err := store.ItemPeople(s.DB.WithContext(ctx), it.ID)
	if err != nil {
		return nil, err
	}
	across := make(map[string]store.ItemPerson, len(global))
	for _, g := range global {
		across[g.LocalPerson] = g
	}
	entry := map[string]int{} // person id -> its entry in out
	for _, p := range people {
		id := strAt(p, "person_id")
		if id == "" {
			continue
		}
		local := id
		known, _ := at(p, "is_known").(bool)
		person := summaryPersonJSON{PersonID: id, Name: strAt(p, "name"), IsKnown: known, NumFaces: faces[local],
			CreatedAt: ran, UpdatedAt: ran}
		if g, ok := across[local]; ok {
			person.PersonID, person.Name, person.IsKnown = g.PersonID, g.Name, g.IsKnown
			person.CreatedAt, person.UpdatedAt = g.CreatedAt.UTC(), g.UpdatedAt.UTC()
		}
		n, _ := numAt(p, "appearances")
		if i, ok := entry[person.PersonID]; ok {
			// Another of the item's own persons is the same person.
			out[i].Appearances += n
			out[i].Person.NumFaces += person.NumFaces
			continue
		}
		if full, ok := crops[strAt(p, "face_img_path")]; ok {
			w, _ := intAt(p, "face_img_width")
			h, _ := intAt(p, "face_img_height")
			person.FaceImgPath, person.FaceImgURL, person.FaceImgWidth, person.FaceImgHeight = full, artifactURL(full), w, h
			person.FaceImgSmallPath, person.FaceImgSmallURL = full, artifactURL(full)
			person.FaceImgSmallWidth, person.FaceImgSmallHeight = w, h
		}
		entry[person.PersonID] = len(out)
		out = append(out, summaryPeopleEntryJSON{Appearances: n, Person: person})
		if len(out) == maxSummaryEntries {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Appearances > out[j].Appearances })
	return out, nil
}

// faceCrops maps vendor_faces' own names of its crops to their artifact
// paths (which start with the item's artifact directory).
func (s *Server) faceCrops(ctx context.Context, itemID string) (map[string]string, error) {
	paths, err := store.ArtifactPaths(s.DB.WithContext(ctx), itemID, facesExtractor)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	marker := "/" + facesExtractor + "/"
	for _, p := range paths {
		if i := strings.Index(p, marker); i >= 0 {
			out[p[i+len(marker):]] = p
		}
	}
	return out, nil
}
