package api

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads JPEG headers
	_ "image/png"  // and PNG headers
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/api/logoprovider"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// Logo training: a brand's reference logos are stored in the logo bucket
// (LOGO_BUCKET...) and passed, by URL, to the logo provider
// (LOGO_PROVIDER_URL with LOGO_PROVIDER_KEY, api/logoprovider). Training
// is possible on a deployment that has all three (OPTIONS says so).
// Requests are readable by their requester and administrators.

// Limits of a training request.
const (
	maxLogos        = 20
	maxLogoBytes    = 10 << 20
	maxLogoPixels   = 50_000_000
	maxLogoName     = 255
	maxLogoWebsite  = 2048
	logoFormMemory  = 8 << 20 // parts beyond this go to temporary files
	logoObjectsPath = "logo-training"
)

// initLogoTraining builds the provider and the bucket from the
// configuration; either is nil when not configured.
func (s *Server) initLogoTraining() error {
	if s.Config.LogoProviderKey != "" && s.Config.LogoProviderURL != "" {
		p, err := logoprovider.NewHTTP(s.Config.LogoProviderURL, s.Config.LogoProviderKey)
		if err != nil {
			return err
		}
		s.logoProvider = p
	}
	if b := s.Config.LogoBucket; b.Name != "" {
		bucket, err := storage.OpenBucket(b.S3Config(), b.PublicURL)
		if err != nil {
			return fmt.Errorf("logo bucket: %w", err)
		}
		s.logoBucket = bucket
	}
	return nil
}

func (s *Server) canTrain() bool { return s.logoProvider != nil && s.logoBucket != nil }

type logoImageJSON struct {
	LogoTrainingImageID string    `json:"logo_training_image_id"`
	PublicURL           string    `json:"public_url"`
	FilePath            string    `json:"file_path"`
	CreatedAt           time.Time `json:"created_at"`
}

type logoTrainingJSON struct {
	LogoTrainingRequestID      string           `json:"logo_training_request_id"`
	Name                       string           `json:"name"`
	Website                    string           `json:"website"`
	TrainingComplete           bool             `json:"training_complete"`
	CreatedAt                  time.Time        `json:"created_at"`
	LastCheckedForCompletionAt *time.Time       `json:"last_checked_for_completion_at"`
	RequestedBy                *userSummaryJSON `json:"requested_by,omitempty"`
	LogoImages                 []logoImageJSON  `json:"logo_images,omitempty"`
}

func logoTrainingOut(r models.LogoTrainingRequest) logoTrainingJSON {
	return logoTrainingJSON{LogoTrainingRequestID: r.ID, Name: r.Name, Website: r.Website,
		TrainingComplete: r.TrainingComplete, CreatedAt: r.CreatedAt.UTC(), LastCheckedForCompletionAt: utcPtr(r.LastCheckedForCompletionAt)}
}

// logoTrainingDetail is a request with who asked and its images.
func (s *Server) logoTrainingDetail(c *gin.Context, r models.LogoTrainingRequest) (logoTrainingJSON, error) {
	db := s.db(c)
	out := logoTrainingOut(r)
	users, err := store.UserSummaries(db, []string{r.RequestedBy})
	if err != nil {
		return out, err
	}
	by := userSummaryOut(r.RequestedBy, users[r.RequestedBy])
	out.RequestedBy = &by
	images, err := store.LogoImages(db, r.ID)
	if err != nil {
		return out, err
	}
	out.LogoImages = make([]logoImageJSON, len(images))
	for i, im := range images {
		out.LogoImages[i] = logoImageJSON{LogoTrainingImageID: im.ID, PublicURL: im.PublicURL, FilePath: im.FilePath,
			CreatedAt: im.CreatedAt.UTC()}
	}
	return out, nil
}

func (s *Server) loadLogoTraining(c *gin.Context) (models.LogoTrainingRequest, error) {
	v, err := s.viewer(c)
	if err != nil {
		return models.LogoTrainingRequest{}, err
	}
	return store.LogoTraining(s.db(c), v, c.Param("id"))
}

// OPTIONS /api/data/train/logos -> {can_train_logos}: true when this
// deployment has a provider (URL and key; the key's validity is not
// checked) and a bucket.
func (s *Server) canTrainLogos(c *gin.Context) error {
	c.JSON(http.StatusOK, gin.H{"can_train_logos": s.canTrain()})
	return nil
}

// GET /api/data/train/logos
func (s *Server) listLogoTrainings(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.LogoTrainings(s.db(c), v)
	if err != nil {
		return err
	}
	out := make([]logoTrainingJSON, len(rows))
	for i, r := range rows {
		out[i] = logoTrainingOut(r)
	}
	c.JSON(http.StatusOK, gin.H{"logo_training_requests": out})
	return nil
}

// GET /api/data/train/logos/{id}
func (s *Server) getLogoTraining(c *gin.Context) error {
	r, err := s.loadLogoTraining(c)
	if err != nil {
		return err
	}
	out, err := s.logoTrainingDetail(c, r)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// GET /api/data/train/logos/{id}/status: asks the provider about a
// pending request and records the check (and the completion); a complete
// one is answered as it is. A check changes the request
// (last_checked_for_completion_at), so it is audited like any change:
// logotraining check while the training runs, complete when it is done.
func (s *Server) logoTrainingStatus(c *gin.Context) error {
	r, err := s.loadLogoTraining(c)
	if err != nil {
		return err
	}
	if !r.TrainingComplete {
		if s.logoProvider == nil {
			return apperr.New(apperr.CodeNotConfigured, "no logo provider is configured on this deployment")
		}
		complete, err := s.logoProvider.Complete(c.Request.Context(), r.ProviderRequestID)
		if err != nil {
			s.Logger.WarnContext(c.Request.Context(), "logo provider status", slog.String("request_id", requestIDOf(c)),
				slog.String("error", err.Error()))
			return apperr.New(apperr.CodeProviderError, "the logo provider did not answer")
		}
		now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres keeps it
		action := "check"
		if complete {
			action = "complete"
		}
		err = s.audited(c, "logotraining", action, r.ID, "", func(tx *store.DB) error {
			return store.CheckedLogoTraining(tx, r.ID, complete, now)
		})
		if err != nil {
			return err
		}
		r.TrainingComplete, r.LastCheckedForCompletionAt = complete, &now
	}
	c.JSON(http.StatusOK, gin.H{"logo_training_request_id": r.ID, "training_complete": r.TrainingComplete,
		"last_checked_for_completion_at": utcPtr(r.LastCheckedForCompletionAt)})
	return nil
}

// logoUpload is a reference logo read from the form and checked.
type logoUpload struct {
	data []byte
	ext  string
	mime string
}

// readLogo reads one form file and checks by content that it is a JPEG
// or PNG picture of bounded size (its header only is decoded).
func readLogo(fh *multipart.FileHeader) (logoUpload, string) {
	if fh.Size > maxLogoBytes {
		return logoUpload{}, fmt.Sprintf("%s is over %d bytes", fh.Filename, maxLogoBytes)
	}
	f, err := fh.Open()
	if err != nil {
		return logoUpload{}, fmt.Sprintf("%s cannot be read", fh.Filename)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLogoBytes+1))
	if err != nil || len(data) > maxLogoBytes {
		return logoUpload{}, fmt.Sprintf("%s cannot be read or is over %d bytes", fh.Filename, maxLogoBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case err != nil || (format != "jpeg" && format != "png"):
		return logoUpload{}, fmt.Sprintf("%s is not a JPEG or PNG picture", fh.Filename)
	case cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxLogoPixels:
		return logoUpload{}, fmt.Sprintf("%s has no size or more than %d pixels", fh.Filename, maxLogoPixels)
	}
	if format == "png" {
		return logoUpload{data: data, ext: ".png", mime: "image/png"}, ""
	}
	return logoUpload{data: data, ext: ".jpg", mime: "image/jpeg"}, ""
}

// POST /api/data/train/logos, multipart: name, website, logos (one or
// more JPEG or PNG files): the logos go to the bucket, the training to the
// provider; 201 with the request.
func (s *Server) createLogoTraining(c *gin.Context) error {
	if err := c.Request.ParseMultipartForm(logoFormMemory); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err // 413
		}
		return apperr.BadRequest(apperr.CodeBadForm, "the body must be a multipart/form-data form with name, website and logos")
	}
	defer c.Request.MultipartForm.RemoveAll()
	form := c.Request.MultipartForm
	name := strings.TrimSpace(first(form.Value["name"]))
	website := strings.TrimSpace(first(form.Value["website"]))
	files := form.File["logos"]
	problems := map[string]string{}
	required(problems, map[string]string{"name": name})
	if utf8.RuneCountInString(name) > maxLogoName {
		problems["name"] = fmt.Sprintf("must be at most %d characters", maxLogoName)
	}
	if website != "" {
		u, err := url.Parse(website)
		if utf8.RuneCountInString(website) > maxLogoWebsite || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems["website"] = fmt.Sprintf("must be an http(s) URL of at most %d characters", maxLogoWebsite)
		}
	}
	switch {
	case len(files) == 0:
		problems["logos"] = "at least one JPEG or PNG logo is required"
	case len(files) > maxLogos:
		problems["logos"] = fmt.Sprintf("at most %d logos", maxLogos)
	}
	var logos []logoUpload
	if _, bad := problems["logos"]; !bad {
		for _, fh := range files {
			l, problem := readLogo(fh)
			if problem != "" {
				problems["logos"] = problem
				break
			}
			logos = append(logos, l)
		}
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	if !s.canTrain() {
		return apperr.New(apperr.CodeNotConfigured,
			"logo training needs a logo provider and an object-storage bucket, which this deployment does not have")
	}
	ctx := c.Request.Context()
	r := models.LogoTrainingRequest{ID: ids.New(), Name: name, Website: website, RequestedBy: principalOf(c).User.ID}
	images := make([]models.LogoTrainingImage, len(logos))
	urls := make([]string, len(logos))
	for i, l := range logos {
		im := models.LogoTrainingImage{ID: ids.New(), RequestID: r.ID}
		im.FilePath = logoObjectsPath + "/" + r.ID + "/" + im.ID + l.ext
		if err := s.logoBucket.Put(ctx, im.FilePath, bytes.NewReader(l.data), int64(len(l.data)), l.mime); err != nil {
			s.removeLogos(c, images[:i])
			return err
		}
		// When it was stored: the images list in the order they were sent.
		im.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
		im.PublicURL = s.logoBucket.URL(im.FilePath)
		images[i], urls[i] = im, im.PublicURL
	}
	providerID, err := s.logoProvider.Submit(ctx, logoprovider.Training{Name: name, Website: website, Images: urls})
	if err != nil {
		s.removeLogos(c, images)
		s.Logger.WarnContext(ctx, "logo provider submit", slog.String("request_id", requestIDOf(c)), slog.String("error", err.Error()))
		return apperr.New(apperr.CodeProviderError, "the logo provider did not accept the training")
	}
	r.ProviderRequestID = providerID
	err = s.audited(c, "logotraining", "create", r.ID, "", func(tx *store.DB) error {
		return store.CreateLogoTraining(tx, &r, images)
	})
	if err != nil {
		return err
	}
	out, err := s.logoTrainingDetail(c, r)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, out)
	return nil
}

// removeLogos removes stored logos of a request that failed; failures are
// logged (an orphan object is harmless).
func (s *Server) removeLogos(c *gin.Context, images []models.LogoTrainingImage) {
	for _, im := range images {
		if err := s.logoBucket.Remove(c.Request.Context(), im.FilePath); err != nil {
			s.Logger.WarnContext(c.Request.Context(), "remove logo", slog.String("request_id", requestIDOf(c)),
				slog.String("path", im.FilePath), slog.String("error", err.Error()))
		}
	}
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
