package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Reference pictures a person is taught from (docs/people.md): the api
// stores them pending; every worker with facial recognition looks for
// pending ones and describes each exactly as a harvest of the picture
// would (the vendor_faces extractor of this process: its face finder, its
// crop, the vision sidecar), keeping the largest face described. The
// descriptor, its code and the face's crop are recorded on the reference
// (ready), or why there is none (failed); the assigners then name the
// matching faces of the archive.

// referencesPoll is how often a worker looks for reference pictures to
// describe.
const referencesPoll = 2 * time.Second

// facesExtractor describes faces (extractors/faces).
const facesExtractor = "vendor_faces"

// referenceTimeout bounds the description of one picture (the sidecar may
// have to start first).
const referenceTimeout = 2 * time.Minute

// describeReferences describes pending reference pictures until ctx ends.
func (h *Handler) describeReferences(ctx context.Context) {
	t := time.NewTicker(referencesPoll)
	defer t.Stop()
	for {
		n, err := h.DescribeReferences(ctx)
		if err != nil && ctx.Err() == nil {
			h.Logger.Warn("describe reference pictures", slog.String("error", err.Error()))
		}
		if n > 0 && h.assigner != nil {
			h.assigner.Wake()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// DescribeReferences describes the pending reference pictures, one
// transaction each, until none is left that no other worker holds, and
// returns how many it described (ready or failed).
func (h *Handler) DescribeReferences(ctx context.Context) (int, error) {
	n := 0
	// A look first, outside any transaction: most polls find nothing.
	if pending, err := store.ReferencesPending(h.DB.WithContext(ctx)); err != nil || !pending {
		return 0, err
	}
	for ctx.Err() == nil {
		did, err := h.describeReference(ctx)
		if err != nil || !did {
			return n, err
		}
		n++
	}
	return n, ctx.Err()
}

// describeReference describes one pending reference picture, holding its
// row meanwhile; false when none is pending. A transient failure (the
// sidecar restarting, the artifact store away) leaves it pending.
func (h *Handler) describeReference(ctx context.Context) (bool, error) {
	did := false
	err := h.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		ref, ok, err := store.TakePendingReference(tx)
		if err != nil || !ok {
			return err
		}
		did = true
		desc, model, crop, problem, err := h.describePicture(ctx, ref)
		if err != nil {
			return err
		}
		now := h.Now().UTC()
		if problem != "" {
			return store.FailedReference(tx, ref.ID, problem, now)
		}
		vec, err := facedesc.Dequantize(desc)
		if err != nil {
			return store.FailedReference(tx, ref.ID, "the face's descriptor cannot be read", now)
		}
		return store.DescribedReference(tx, ref.ID, desc, model, faceindex.Encode(vec).Bytes(), crop, now)
	})
	return did, err
}

// describePicture runs vendor_faces on a reference picture and returns
// the largest face's descriptor, the model that made it and the key of
// its crop, or the problem
// that makes the picture useless as a reference; err is for failures
// worth another try.
func (h *Handler) describePicture(ctx context.Context, ref store.PendingReference) (desc []byte, model, crop, problem string, err error) {
	if ref.Picture == "" {
		return nil, "", "", "the picture was not stored", nil
	}
	tmp := filepath.Join(h.Config.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, "", "", "", fmt.Errorf("reference %d: %w", ref.ID, err)
	}
	// Named like a harvest's work directory: cleanWork removes it if this
	// process is killed meanwhile.
	work, err := os.MkdirTemp(tmp, "artifacts-reference-")
	if err != nil {
		return nil, "", "", "", fmt.Errorf("reference %d: %w", ref.ID, err)
	}
	defer os.RemoveAll(work)
	src, err := h.Files.Artifacts.Open(ctx, ref.Picture, true)
	switch {
	case errors.Is(err, blobstore.ErrNotFound), errors.Is(err, blobstore.ErrBadKey):
		return nil, "", "", "the picture is gone from the artifact store", nil
	case err != nil:
		return nil, "", "", "", fmt.Errorf("reference %d: %w", ref.ID, err)
	}
	local := filepath.Join(work, "picture"+path.Ext(ref.Picture))
	size, err := copyToFile(local, src)
	src.Close()
	if err != nil {
		return nil, "", "", "", fmt.Errorf("reference %d: %w", ref.ID, err)
	}
	mime := "image/jpeg"
	if path.Ext(ref.Picture) == ".png" {
		mime = "image/png"
	}
	in := &extractors.Input{ItemID: "reference-" + strconv.FormatInt(ref.ID, 10), Name: path.Base(ref.Picture), Path: local,
		Size: size, MIME: mime, ArtifactDir: filepath.Join(work, "out")}
	o := extractors.RunOne(ctx, h.Extractors, facesExtractor, in, referenceTimeout)
	switch {
	case o.Err != nil && (extractors.IsTransient(o.Err) || ctx.Err() != nil):
		return nil, "", "", "", fmt.Errorf("reference %d: %w", ref.ID, o.Err)
	case errors.Is(o.Err, extractors.ErrUnavailable):
		return nil, "", "", "faces cannot be described on this deployment: " + o.Err.Error(), nil
	case o.Err != nil:
		return nil, "", "", "the picture cannot be read: " + o.Err.Error(), nil
	case o.Data["recognition"] == false:
		return nil, "", "", "faces cannot be described on this deployment (facial recognition is off)", nil
	}
	best := -1
	for i, f := range o.Faces {
		if len(f.Descriptor) == 0 {
			continue
		}
		if best < 0 || f.Box.Width*f.Box.Height > o.Faces[best].Box.Width*o.Faces[best].Box.Height {
			best = i
		}
	}
	if best < 0 {
		if found(o.Data["count"]) {
			return nil, "", "", "a face was found but could not be described (too small, turned away or blurred): send a clearer picture", nil
		}
		return nil, "", "", "no face was found in the picture", nil
	}
	f := o.Faces[best]
	if f.Thumbnail != "" {
		key := store.ReferencePrefix + ref.PersonID + "/" + strconv.FormatInt(ref.ID, 10) + "-face.jpg"
		if err := h.Files.Artifacts.PutFile(ctx, key, filepath.Join(in.ArtifactDir, facesExtractor, filepath.FromSlash(f.Thumbnail))); err != nil {
			return nil, "", "", "", fmt.Errorf("reference %d: face crop: %w", ref.ID, err)
		}
		crop = key
	}
	return f.Descriptor, f.Model, crop, "", nil
}

// found reports whether a count of faces is above zero.
func found(count any) bool {
	switch n := count.(type) {
	case int:
		return n > 0
	case float64:
		return n > 0
	}
	return false
}

// copyToFile writes r to a new file at p and returns its size.
func copyToFile(p string, r io.Reader) (int64, error) {
	out, err := os.Create(p)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
