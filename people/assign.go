package people

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Assigner gives the faces of pending items their persons (see the
// package documentation). Every worker runs one; they take turns through
// the people lock.
type Assigner struct {
	DB     *store.DB
	Logger *slog.Logger
	Rule   Rule
	// Poll is how often the pending list is looked at (time.Second when 0).
	Poll time.Duration
	// Batch is how many items one transaction takes (50 when 0).
	Batch int
	// Now is the clock of new persons (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex // one round at a time in this process
	index *faceindex.Index
	seq   int64               // the index holds every code up to this sequence number
	refs  map[int64]reference // the described reference pictures, by id
	wake  chan struct{}       // Wake
	once  sync.Once
}

func (a *Assigner) init() {
	a.once.Do(func() {
		a.wake = make(chan struct{}, 1)
		if a.Logger == nil {
			a.Logger = slog.New(slog.DiscardHandler)
		}
	})
}

func (a *Assigner) now() time.Time {
	if a.Now != nil {
		return a.Now().UTC()
	}
	return time.Now().UTC()
}

// Wake asks for a round now (a worker that just stored faces).
func (a *Assigner) Wake() {
	a.init()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Run assigns until ctx ends: whenever woken, and every Poll.
func (a *Assigner) Run(ctx context.Context) {
	a.init()
	poll := a.Poll
	if poll <= 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := a.Drain(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("assign faces to people", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-t.C:
		}
	}
}

// Drain assigns until no item is pending and every described reference
// picture has named its faces (or another process holds the lock, or ctx
// ends).
func (a *Assigner) Drain(ctx context.Context) error {
	a.init()
	for ctx.Err() == nil {
		pending, err := store.PeoplePending(a.DB.WithContext(ctx))
		if err != nil {
			return err
		}
		if !pending {
			if pending, err = store.ReferencesToApply(a.DB.WithContext(ctx)); err != nil || !pending {
				return err
			}
		}
		n, err := a.Round(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
	return ctx.Err()
}

// Round names the faces that match reference pictures described since,
// then assigns the faces of up to Batch pending items, in one transaction,
// and returns how many references and items it finished (0 when none
// waits or another process holds the lock).
func (a *Assigner) Round(ctx context.Context) (int, error) {
	a.init()
	a.mu.Lock()
	defer a.mu.Unlock()
	done := 0
	err := a.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		ok, err := store.TryLockPeople(tx)
		if err != nil || !ok {
			return err
		}
		if err := a.catchUp(tx); err != nil {
			return err
		}
		applied, err := a.applyReferences(tx)
		if err != nil {
			return err
		}
		done = applied
		batch := a.Batch
		if batch <= 0 {
			batch = 50
		}
		items, err := store.PendingPeopleItems(tx, batch)
		if err != nil || len(items) == 0 {
			return err
		}
		touched, err := a.assign(tx, items)
		if err != nil {
			return err
		}
		if _, err := store.RecountPeople(tx, touched); err != nil {
			return err
		}
		if err := search.MarkDirty(tx, items...); err != nil {
			return err
		}
		if err := store.DonePeopleItems(tx, items); err != nil {
			return err
		}
		done += len(items)
		return nil
	})
	if err != nil {
		// The index may hold codes of faces this transaction did not
		// keep: it is built again from the database next time.
		a.index = nil
		return 0, err
	}
	return done, nil
}

// catchUp brings the index up to date with person_faces (and the
// reference pictures), building it when there is none. tx holds the
// people lock: no code changes meanwhile.
func (a *Assigner) catchUp(tx *store.DB) error {
	if a.index == nil {
		a.index, a.seq, a.refs = faceindex.New(), 0, nil
	}
	for {
		rows, err := store.FaceCodesAfter(tx, a.seq, 10000)
		if err != nil {
			return err
		}
		for _, r := range rows {
			a.seq = r.Seq
			if r.Code == nil {
				a.index.Remove(r.ID)
				continue
			}
			c, err := faceindex.FromBytes(r.Code)
			if err != nil {
				a.index.Remove(r.ID)
				continue
			}
			a.index.Add(r.ID, c)
		}
		if len(rows) < 10000 {
			break
		}
	}
	return a.loadReferences(tx)
}

// reference is a described reference picture: its person, descriptor and
// the model that made it.
type reference struct {
	person  string
	vec     []float32
	model   string
	applied bool
}

// loadReferences brings the described reference pictures up to date
// (their persons change with merges; descriptors are read once).
func (a *Assigner) loadReferences(tx *store.DB) error {
	known := make(map[int64]string, len(a.refs))
	for id, r := range a.refs {
		known[id] = r.model
	}
	rows, err := store.ReadyReferences(tx, known)
	if err != nil {
		return err
	}
	refs := make(map[int64]reference, len(rows))
	for _, r := range rows {
		ref, ok := a.refs[r.ID]
		if !ok || ref.model != r.Model {
			v, err := facedesc.Dequantize(r.Descriptor)
			if err != nil {
				continue // a descriptor that cannot be read names nobody
			}
			ref.vec, ref.model = v, r.Model
		}
		ref.person, ref.applied = r.PersonID, r.Applied
		refs[r.ID] = ref
	}
	a.refs = refs
	return nil
}

// ApplyCandidates is how many nearest faces of a reference picture the
// index proposes when it names the faces already in the archive.
const ApplyCandidates = 512

// applyReferences names the faces of the archive that match a reference
// picture described since the last round: each face within the
// threshold of it joins its person unless a user put the face where it is,
// marked it "not this person", or named its person (see store.ClaimFaces);
// of the faces of one frame, only the nearest. It returns how many
// references it applied.
func (a *Assigner) applyReferences(tx *store.DB) (int, error) {
	var todo []int64
	for id, r := range a.refs {
		if !r.applied {
			todo = append(todo, id)
		}
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i] < todo[j] })
	touched := map[string]bool{}
	var items []string
	for _, id := range todo {
		ref := a.refs[id]
		hits := a.index.Search(faceindex.Encode(ref.vec), ApplyCandidates)
		ids := make([]int64, 0, len(hits))
		for _, h := range hits {
			if h.ID > 0 {
				ids = append(ids, h.ID)
			}
		}
		cands, err := store.Candidates(tx, ids)
		if err != nil {
			return 0, err
		}
		type frameKey struct {
			item string
			ms   int64
		}
		best := map[frameKey]store.Candidate{}
		bestSim := map[frameKey]float64{}
		for _, c := range cands {
			if c.ID <= 0 || c.PersonID == ref.person || c.Model != ref.model {
				continue // descriptors of different models never compare
			}
			v, err := facedesc.Dequantize(c.Descriptor)
			if err != nil || len(v) != len(ref.vec) {
				continue
			}
			sim := facedesc.Cosine(ref.vec, v)
			if sim < a.Rule.Threshold {
				continue
			}
			k := frameKey{c.ItemID, -1}
			if c.TimeMS != nil {
				k.ms = *c.TimeMS
			}
			if prev, ok := bestSim[k]; !ok || sim > prev || (sim == prev && c.ID < best[k].ID) {
				best[k], bestSim[k] = c, sim
			}
		}
		claim := make([]int64, 0, len(best))
		for _, c := range best {
			claim = append(claim, c.ID)
		}
		claimed, err := store.ClaimFaces(tx, ref.person, claim)
		if err != nil {
			return 0, err
		}
		if len(claimed) > 0 {
			touched[ref.person] = true
		}
		for _, f := range claimed {
			touched[f.From] = true
			items = append(items, f.ItemID)
		}
		if err := store.AppliedReference(tx, id); err != nil {
			return 0, err
		}
		ref.applied = true
		a.refs[id] = ref
	}
	if len(touched) > 0 {
		persons := make([]string, 0, len(touched))
		for p := range touched {
			persons = append(persons, p)
		}
		sort.Strings(persons)
		if _, err := store.RecountPeople(tx, persons); err != nil {
			return 0, err
		}
		if err := search.MarkDirty(tx, items...); err != nil {
			return 0, err
		}
	}
	return len(todo), nil
}

// itemFaces is vendor_faces' view of an item's faces: which of its own
// persons each face is of, and in which frame.
type itemFaces struct {
	count  map[string]int            // local person -> faces
	frames map[string]map[int64]bool // local person -> frame times (ms; -1 a picture)
	span   map[string][2]int64       // local person -> first, last ms
	total  int                       // faces in the list
}

func parseFaces(raw json.RawMessage) itemFaces {
	out := itemFaces{count: map[string]int{}, frames: map[string]map[int64]bool{}, span: map[string][2]int64{}}
	var faces []struct {
		PersonID string   `json:"person_id"`
		Time     *float64 `json:"time"`
	}
	_ = json.Unmarshal(raw, &faces) // data that is not a list of faces has none
	out.total = len(faces)
	for _, f := range faces {
		if f.PersonID == "" {
			continue
		}
		ms := int64(-1)
		if f.Time != nil && !math.IsNaN(*f.Time) && !math.IsInf(*f.Time, 0) {
			ms = int64(math.Round(*f.Time * 1000))
		}
		out.count[f.PersonID]++
		if out.frames[f.PersonID] == nil {
			out.frames[f.PersonID] = map[int64]bool{}
		}
		out.frames[f.PersonID][ms] = true
		sp, ok := out.span[f.PersonID]
		if !ok {
			sp = [2]int64{ms, ms}
		}
		out.span[f.PersonID] = [2]int64{min(sp[0], ms), max(sp[1], ms)}
	}
	return out
}

// together reports whether two of the item's own persons share a frame:
// then they are two people.
func (f itemFaces) together(a, b string) bool {
	if a == b {
		return false
	}
	fa, fb := f.frames[a], f.frames[b]
	if len(fa) > len(fb) {
		fa, fb = fb, fa
	}
	for t := range fa {
		if fb[t] {
			return true
		}
	}
	return false
}

type faceKey struct {
	item, extractor string
	face            int
}

// assign reconciles the faces of items with their descriptors and returns
// the persons whose faces changed.
func (a *Assigner) assign(tx *store.DB, itemIDs []string) ([]string, error) {
	items, err := store.PeopleItems(tx, itemIDs)
	if err != nil {
		return nil, err
	}
	descs, err := store.FaceDescriptorsOf(tx, itemIDs...)
	if err != nil {
		return nil, err
	}
	old, err := store.PersonFacesOf(tx, itemIDs)
	if err != nil {
		return nil, err
	}
	byItem := map[string][]store.FaceDescriptor{}
	for _, d := range descs {
		byItem[d.ItemID] = append(byItem[d.ItemID], d)
	}
	if err := a.redescribeReferences(tx, descs); err != nil {
		return nil, err
	}
	oldByKey := map[faceKey]store.PersonFace{}
	for _, f := range old {
		oldByKey[faceKey{f.ItemID, f.Extractor, f.Face}] = f
	}
	touched := map[string]bool{}
	kept := map[faceKey]bool{}
	for _, it := range items {
		if !it.Live {
			continue // its faces go below
		}
		if err := a.assignItem(tx, it, byItem[it.ID], oldByKey, kept, touched); err != nil {
			return nil, err
		}
	}
	live := map[string]int{} // live item -> its faces in vendor_faces' data
	for _, it := range items {
		if it.Live {
			live[it.ID] = parseFaces(it.Faces).total
		}
	}
	var gone []int64
	for k, f := range oldByKey {
		if f.Code == nil && k.face < live[k.item] {
			// An unknown face (its person deleted) has no descriptor and
			// stays, unknown, while its item shows it.
			continue
		}
		if !kept[k] {
			gone = append(gone, f.ID)
			if f.PersonID != nil {
				touched[*f.PersonID] = true
			}
		}
	}
	if err := store.DeletePersonFaces(tx, gone); err != nil {
		return nil, err
	}
	for _, id := range gone {
		a.index.Remove(id)
	}
	out := make([]string, 0, len(touched))
	for id := range touched {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

// redescribeReferences sends the reference pictures described by another
// model than the newest of descs back to be described (by the workers,
// with the model they run now): a taught person is then found among faces
// of the new model too. Until then they name no face of the new model.
func (a *Assigner) redescribeReferences(tx *store.DB, descs []store.FaceDescriptor) error {
	var newest *store.FaceDescriptor
	for i, d := range descs {
		if newest == nil || d.CreatedAt.After(newest.CreatedAt) {
			newest = &descs[i]
		}
	}
	if newest == nil {
		return nil
	}
	stale := false
	for _, r := range a.refs {
		stale = stale || r.model != newest.Model
	}
	if !stale {
		return nil
	}
	ids, err := store.RedescribeReferences(tx, newest.Model, newest.CreatedAt)
	if err != nil {
		return err
	}
	for _, id := range ids {
		delete(a.refs, id)
	}
	if len(ids) > 0 {
		a.Logger.Info("reference pictures of another face model to describe again", slog.Int("references", len(ids)),
			slog.String("model", newest.Model))
	}
	return nil
}

// SameFaceOverlap: a face described again by another model (whose codes
// do not compare with the old one's) is the same face, keeping its
// person, when it has the same index, the same frame and its box covers
// the old one's by at least this intersection over union.
const SameFaceOverlap = 0.5

// sameFace reports whether the face d, described now, is the face prev
// was assigned from: the code within SameFaceBits when one model made
// both, the frame and box (SameFaceOverlap) when the model changed.
func sameFace(prev store.PersonFace, d store.FaceDescriptor, code faceindex.Code) bool {
	if prev.Model == d.Model {
		pc, err := faceindex.FromBytes(prev.Code)
		return err == nil && faceindex.Distance(pc, code) <= SameFaceBits
	}
	if (prev.TimeMS == nil) != (d.TimeMS == nil) || (prev.TimeMS != nil && *prev.TimeMS != *d.TimeMS) {
		return false
	}
	return overlap(prev.BoxLeft, prev.BoxTop, prev.BoxWidth, prev.BoxHeight, d.Left, d.Top, d.Width, d.Height) >= SameFaceOverlap
}

// overlap is the intersection over union of two boxes (left, top, width,
// height); 0 when either is empty.
func overlap(l1, t1, w1, h1, l2, t2, w2, h2 float64) float64 {
	if !(w1 > 0 && h1 > 0 && w2 > 0 && h2 > 0) {
		return 0
	}
	iw := math.Min(l1+w1, l2+w2) - math.Max(l1, l2)
	ih := math.Min(t1+h1, t2+h2) - math.Max(t1, t2)
	if !(iw > 0 && ih > 0) {
		return 0
	}
	inter := iw * ih
	return inter / (w1*h1 + w2*h2 - inter)
}

// assignItem gives each described face of a live item its person.
func (a *Assigner) assignItem(tx *store.DB, it store.PeopleItem, descs []store.FaceDescriptor,
	old map[faceKey]store.PersonFace, kept map[faceKey]bool, touched map[string]bool) error {
	faces := parseFaces(it.Faces)
	described := map[string]int{} // local person -> described faces
	for _, d := range descs {
		described[d.PersonID]++
	}
	given := map[string]int{} // local person -> weight handed out
	// persons of this item so far, and their local persons: a person is
	// never given to two local persons that share a frame.
	locals := map[string][]string{}
	allowed := func(person, local string) bool {
		for _, l := range locals[person] {
			if faces.together(l, local) {
				return false
			}
		}
		return true
	}
	type todo struct {
		d     store.FaceDescriptor
		row   store.PersonFace
		vec   []float32
		model string
		code  faceindex.Code
		excl  []string
	}
	var fresh []todo
	for _, d := range descs {
		k := faceKey{d.ItemID, d.Extractor, d.Face}
		kept[k] = true
		prev, had := old[k]
		row := store.PersonFace{ItemID: d.ItemID, Extractor: d.Extractor, Face: d.Face, ContainerID: it.ContainerID,
			LocalPerson: d.PersonID, TimeMS: d.TimeMS, Area: d.Width * d.Height, Thumbnail: d.Thumbnail,
			DescribedAt: d.CreatedAt, Model: d.Model, BoxLeft: d.Left, BoxTop: d.Top, BoxWidth: d.Width, BoxHeight: d.Height}
		// The described faces of a local person stand for all its faces.
		n, dn := max(1, faces.count[d.PersonID]), max(1, described[d.PersonID])
		row.Weight = n / dn
		if given[d.PersonID] == 0 {
			row.Weight += n % dn
		}
		given[d.PersonID] += row.Weight
		if sp, ok := faces.span[d.PersonID]; ok && sp[0] >= 0 {
			row.FirstMS, row.LastMS = &sp[0], &sp[1]
		}
		if had {
			row.ID = prev.ID
		}
		if had && prev.Code == nil {
			// Its person was deleted: the face stays unknown and keeps no
			// descriptor.
			if err := store.DeleteFaceDescriptor(tx, d.ItemID, d.Extractor, d.Face); err != nil {
				return err
			}
			if _, err := store.SavePersonFace(tx, row); err != nil {
				return err
			}
			continue
		}
		vec, err := facedesc.Dequantize(d.Descriptor)
		if err != nil {
			continue // a descriptor that cannot be read joins nobody
		}
		code := faceindex.Encode(vec)
		row.Code = code.Bytes()
		if had && prev.PersonID != nil && prev.Code != nil {
			if sameFace(prev, d, code) {
				// The same face harvested again (or described again by
				// another model) keeps its person.
				row.PersonID, row.Pinned = prev.PersonID, prev.Pinned
				id, err := store.SavePersonFace(tx, row)
				if err != nil {
					return err
				}
				a.index.Add(id, code)
				locals[*row.PersonID] = append(locals[*row.PersonID], d.PersonID)
				if prev.DescribedAt != d.CreatedAt || prev.Weight != row.Weight {
					touched[*row.PersonID] = true
				}
				continue
			}
		}
		if had && prev.PersonID != nil {
			touched[*prev.PersonID] = true
		}
		fresh = append(fresh, todo{d: d, row: row, vec: vec, model: d.Model, code: code, excl: prev.Exclusions})
	}
	for _, f := range fresh {
		excluded := map[string]bool{}
		for _, p := range f.excl {
			excluded[p] = true
		}
		d, err := a.nearest(tx, f.vec, f.model, f.code, func(p string) bool { return !excluded[p] && allowed(p, f.d.PersonID) })
		if err != nil {
			return err
		}
		person := d.Person
		if person == "" {
			person = ids.New()
			if err := store.NewPerson(tx, person, a.now()); err != nil {
				return err
			}
		}
		if len(d.Merge) > 0 {
			into, merged, err := a.mergeBridged(tx, person, d.Merge, f.d.ItemID)
			if err != nil {
				return err
			}
			for _, m := range merged {
				locals[into] = append(locals[into], locals[m]...)
				delete(locals, m)
				touched[m] = true
			}
			// What this round read before of the persons merged now
			// names the person left (store.MergePeople moved their faces
			// and their "not this person" marks).
			rename := func(id string) string {
				if slices.Contains(merged, id) {
					return into
				}
				return id
			}
			for k, f := range old {
				if f.PersonID != nil && slices.Contains(merged, *f.PersonID) {
					f.PersonID = &into
				}
				if slices.ContainsFunc(f.Exclusions, func(id string) bool { return slices.Contains(merged, id) }) {
					f.Exclusions = renamed(f.Exclusions, rename)
				}
				old[k] = f
			}
			for k := range fresh {
				fresh[k].excl = renamed(fresh[k].excl, rename)
			}
			person = into
		}
		f.row.PersonID = &person
		id, err := store.SavePersonFace(tx, f.row)
		if err != nil {
			return err
		}
		a.index.Add(id, f.code)
		locals[person] = append(locals[person], f.d.PersonID)
		touched[person] = true
	}
	return nil
}

// renamed is ids with each id renamed, in a new slice.
func renamed(ids []string, rename func(string) string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = rename(id)
	}
	return out
}

// mergeBridged makes person and the persons a new face of item bridges
// one person (Rule.MergeBridged), leaving out those users told apart:
// no hidden person is merged (nor anyone into one), two named or taught
// persons are never merged, nor two persons one of whose faces was marked
// "not this person" for the other or seen in the same frame as the
// other's (store.PersonsApart). The bridged persons are taken best first,
// each only if it may go with every person taken before it. The person
// left is the named one, else the one with most faces, else the oldest;
// it returns it and the persons merged into it (deleted).
func (a *Assigner) mergeBridged(tx *store.DB, person string, bridged []string, item string) (string, []string, error) {
	rows, err := store.BridgedPersons(tx, append([]string{person}, bridged...))
	if err != nil {
		return "", nil, err
	}
	by := make(map[string]store.BridgedPerson, len(rows))
	for _, r := range rows {
		by[r.ID] = r
	}
	first, ok := by[person]
	if !ok || first.Hidden {
		return person, nil, nil
	}
	group := []store.BridgedPerson{first}
	known := first.IsKnown
next:
	for _, id := range bridged {
		p, ok := by[id]
		if !ok || p.Hidden || (p.IsKnown && known) {
			continue
		}
		for _, g := range group {
			small, big := g, p // the query reads the faces of the first
			if small.Faces > big.Faces {
				small, big = big, small
			}
			apart, err := store.PersonsApart(tx, small.ID, big.ID)
			if err != nil {
				return "", nil, err
			}
			if apart {
				continue next
			}
		}
		group = append(group, p)
		known = known || p.IsKnown
	}
	if len(group) == 1 {
		return person, nil, nil
	}
	sort.Slice(group, func(i, j int) bool {
		x, y := group[i], group[j]
		switch {
		case x.IsKnown != y.IsKnown:
			return x.IsKnown
		case x.Faces != y.Faces:
			return x.Faces > y.Faces
		case !x.CreatedAt.Equal(y.CreatedAt):
			return x.CreatedAt.Before(y.CreatedAt)
		}
		return x.ID < y.ID
	})
	into, all := group[0].ID, make([]string, len(group))
	for i, g := range group {
		all[i] = g.ID
	}
	from := all[1:]
	// Their items' documents carry the persons' ids and names.
	if err := search.MarkDirtyWhere(tx, store.PersonItemsCond, models.Strings(all)); err != nil {
		return "", nil, err
	}
	if err := store.MergePeople(tx, into, from, a.now()); err != nil {
		return "", nil, err
	}
	for id, r := range a.refs {
		if slices.Contains(from, r.person) {
			r.person = into
			a.refs[id] = r
		}
	}
	a.Logger.Info("merged persons bridged by a new face", slog.String("into", into),
		slog.Any("merged", from), slog.String("item", item))
	return into, from, nil
}

// nearest is what the face of vec (code) does under the Rule: the person
// it joins ("" a new person) and the persons it bridges. Reference
// pictures come first: a face within the threshold of a person's
// reference picture joins that person (the nearest such) whatever faces
// are nearer. Only descriptors of the face's model compare: faces and
// references of another model are left out.
func (a *Assigner) nearest(tx *store.DB, vec []float32, model string, code faceindex.Code, allowed func(string) bool) (Decision, error) {
	var taught string
	var refSims map[string][]float64
	if len(a.refs) > 0 {
		refSims = map[string][]float64{}
		for _, r := range a.refs {
			if r.model == model && len(r.vec) == len(vec) {
				refSims[r.person] = append(refSims[r.person], facedesc.Cosine(vec, r.vec))
			}
		}
		taught, _ = (Rule{Threshold: a.Rule.Threshold}).Choose(refSims, allowed)
		if taught != "" && !a.Rule.MergeBridged {
			return Decision{Person: taught}, nil
		}
	}
	hits := a.index.Search(code, a.Rule.candidates())
	if len(hits) == 0 {
		return Decision{Person: taught}, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	cands, err := store.Candidates(tx, ids)
	if err != nil {
		return Decision{}, err
	}
	found := map[int64]bool{}
	sims := map[string][]float64{}
	for _, c := range cands {
		found[c.ID] = true
		if c.Model != model {
			continue // described by another model: never compared
		}
		v, err := facedesc.Dequantize(c.Descriptor)
		if err != nil || len(v) != len(vec) {
			continue
		}
		sims[c.PersonID] = append(sims[c.PersonID], facedesc.Cosine(vec, v))
	}
	for _, h := range hits {
		if !found[h.ID] {
			// Gone since the index learnt of it (its item deleted), or
			// unknown now: never proposed again.
			a.index.Remove(h.ID)
		}
	}
	if taught != "" {
		// The taught person absorbs the persons the face bridges when
		// its reference pictures are reached as their faces must be.
		d := Decision{Person: taught}
		if a.Rule.bridges(refSims[taught]) {
			d.Merge = a.Rule.Bridged(sims, allowed, taught)
		}
		return d, nil
	}
	return a.Rule.Decide(sims, allowed), nil
}
