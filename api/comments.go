package api

import (
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/safemd"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Comments on items and compilations. Bodies are markdown, stored as
// written and sanitised on the way out (internal/safemd). An update adds
// a version (parent_id = the comment's first id) and history lists the
// versions by date; only the author or an administrator updates or
// deletes. A comment is readable by whoever may see its target: the item
// (404 unknown, 403 not visible) or the compilation (404 unless public,
// theirs, or they are an administrator).

// Limits of the reference (target_type, target_id) and of this server.
const (
	maxCommentTarget = 32
	maxCommentBody   = 10000
	commentsDefLimit = 20
	commentsMaxLimit = 1000
)

// Comment target types.
const (
	targetItem        = "item"
	targetCompilation = "compilation"
)

// timeMarker is hh:mm:ss:ms, 00:00:00:00 to 99:59:59:99 (ms in hundredths).
var timeMarker = regexp.MustCompile(`^[0-9]{2}:[0-5][0-9]:[0-5][0-9]:[0-9]{2}$`)

type commentJSON struct {
	ID         string          `json:"id"`
	ParentID   string          `json:"parent_id,omitempty"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	Body       string          `json:"body"`
	CTime      time.Time       `json:"ctime"`
	Author     userSummaryJSON `json:"author"`
	Deleted    bool            `json:"deleted"`
	TimeMarker string          `json:"time_marker"`
}

// commentsOut renders comments with their authors (one query for all).
func (s *Server) commentsOut(c *gin.Context, rows []models.Comment) ([]commentJSON, error) {
	var authorIDs []string
	for _, r := range rows {
		authorIDs = append(authorIDs, r.AuthorID)
	}
	authors, err := store.UserSummaries(s.db(c), authorIDs)
	if err != nil {
		return nil, err
	}
	out := make([]commentJSON, len(rows))
	for i, r := range rows {
		out[i] = commentJSON{ID: r.ID, ParentID: r.ParentID, TargetType: r.TargetType, TargetID: r.TargetID,
			Body: safemd.Sanitize(r.Body), CTime: r.CTime.UTC(), Deleted: r.Deleted, TimeMarker: r.TimeMarker,
			Author: userSummaryOut(r.AuthorID, authors[r.AuthorID])}
	}
	return out, nil
}

// respondComments answers a page of comments.
func (s *Server) respondComments(c *gin.Context, page int, rows []models.Comment) error {
	out, err := s.commentsOut(c, rows)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"page": page, "comments": out})
	return nil
}

func (s *Server) respondComment(c *gin.Context, status int, row models.Comment) error {
	out, err := s.commentsOut(c, []models.Comment{row})
	if err != nil {
		return err
	}
	c.JSON(status, out[0])
	return nil
}

// checkCommentTarget validates a target and answers as the target itself
// would for the caller: 404 unknown, 403 (item) or 404 (compilation) when
// the caller may not see it.
func (s *Server) checkCommentTarget(c *gin.Context, targetType, targetID string) error {
	problems := map[string]string{}
	required(problems, map[string]string{"target_type": targetType, "target_id": targetID})
	if utf8.RuneCountInString(targetType) > maxCommentTarget {
		problems["target_type"] = "must be at most 32 characters"
	}
	if utf8.RuneCountInString(targetID) > maxCommentTarget {
		problems["target_id"] = "must be at most 32 characters"
	}
	if _, ok := problems["target_type"]; !ok && targetType != targetItem && targetType != targetCompilation {
		problems["target_type"] = "must be item or compilation"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	if targetType == targetItem {
		_, err := s.loadVisibleItem(c, targetID)
		return err
	}
	_, err := s.loadViewableCompilation(c, targetID)
	return err
}

func checkCommentText(body, marker string) error {
	problems := map[string]string{}
	required(problems, map[string]string{"body": body})
	if utf8.RuneCountInString(body) > maxCommentBody {
		problems["body"] = "must be at most 10000 characters"
	}
	if marker != "" && !timeMarker.MatchString(marker) {
		problems["time_marker"] = "must be hh:mm:ss:ms from 00:00:00:00 to 99:59:59:99"
	}
	return invalidIf(problems)
}

// commentPage reads page (zero-based) and limit.
func commentPage(c *gin.Context) (int, store.Page, error) {
	page, err := queryInt(c, "page", 0, 0, 1<<31-1)
	if err != nil {
		return 0, store.Page{}, err
	}
	limit, err := queryInt(c, "limit", commentsDefLimit, 1, commentsMaxLimit)
	if err != nil {
		return 0, store.Page{}, err
	}
	if page > (1<<31-1)/limit {
		return 0, store.Page{}, apperr.InvalidField("page", "is too large")
	}
	return page, store.Page{Limit: limit, Offset: page * limit}, nil
}

// GET /api/data/comments?target_type=&target_id=&page=&limit=
func (s *Server) listComments(c *gin.Context) error {
	tt, tid := strings.TrimSpace(c.Query("target_type")), strings.TrimSpace(c.Query("target_id"))
	if err := s.checkCommentTarget(c, tt, tid); err != nil {
		return err
	}
	page, p, err := commentPage(c)
	if err != nil {
		return err
	}
	rows, _, err := store.TargetComments(s.db(c), tt, tid, p)
	if err != nil {
		return err
	}
	return s.respondComments(c, page, rows)
}

// POST /api/data/comments {target_type, target_id, body, time_marker?}
func (s *Server) createComment(c *gin.Context) error {
	var req struct {
		TargetType string `json:"target_type"`
		TargetID   string `json:"target_id"`
		Body       string `json:"body"`
		TimeMarker string `json:"time_marker"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.TargetType, req.TargetID = strings.TrimSpace(req.TargetType), strings.TrimSpace(req.TargetID)
	if err := checkCommentText(req.Body, req.TimeMarker); err != nil {
		return err
	}
	if err := s.checkCommentTarget(c, req.TargetType, req.TargetID); err != nil {
		return err
	}
	row := models.Comment{ID: ids.New(), TargetType: req.TargetType, TargetID: req.TargetID, Body: req.Body,
		TimeMarker: req.TimeMarker, AuthorID: principalOf(c).User.ID}
	err := s.audited(c, "comment", "create", row.ID, row.TargetID, func(tx *store.DB) error {
		return store.CreateComment(tx, &row)
	})
	if err != nil {
		return err
	}
	return s.respondComment(c, http.StatusCreated, row)
}

// loadOwnComment loads a comment whose target the caller may see, and
// answers 403 unless the caller wrote it or is an administrator.
func (s *Server) loadOwnComment(c *gin.Context, id string) (models.Comment, error) {
	row, err := s.loadReadableComment(c, id)
	if err != nil {
		return row, err
	}
	if p := principalOf(c); !p.IsAdmin() && row.AuthorID != p.User.ID {
		return row, apperr.Forbidden("only its author or an administrator may change a comment")
	}
	return row, nil
}

func (s *Server) loadReadableComment(c *gin.Context, id string) (models.Comment, error) {
	row, err := store.Comment(s.db(c), id)
	if err != nil {
		return row, err
	}
	return row, s.checkCommentTarget(c, row.TargetType, row.TargetID)
}

// PUT /api/data/comments {id, body, target_type, target_id, author: {id},
// time_marker?}: a new version of the comment, answered with its
// parent_id. target and author, when sent, must be the comment's own (a
// comment does not move nor change hands); time_marker absent keeps it.
func (s *Server) updateComment(c *gin.Context) error {
	var req struct {
		ID         string  `json:"id"`
		Body       string  `json:"body"`
		TargetType string  `json:"target_type"`
		TargetID   string  `json:"target_id"`
		TimeMarker *string `json:"time_marker"`
		Author     *struct {
			ID string `json:"id"`
		} `json:"author"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.ID) == "" {
		return apperr.InvalidField("id", "is required")
	}
	row, err := s.loadOwnComment(c, req.ID)
	if err != nil {
		return err
	}
	problems := map[string]string{}
	if req.TargetType != "" && req.TargetType != row.TargetType {
		problems["target_type"] = "is not the comment's"
	}
	if req.TargetID != "" && req.TargetID != row.TargetID {
		problems["target_id"] = "is not the comment's"
	}
	if req.Author != nil && req.Author.ID != "" && req.Author.ID != row.AuthorID {
		problems["author.id"] = "is not the comment's author"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	marker := row.TimeMarker
	if req.TimeMarker != nil {
		marker = *req.TimeMarker
	}
	if err := checkCommentText(req.Body, marker); err != nil {
		return err
	}
	next := models.Comment{ID: ids.New()}
	err = s.audited(c, "comment", "update", row.RootID, next.ID, func(tx *store.DB) error {
		var err error
		next, err = store.AddCommentVersion(tx, row, next.ID, req.Body, marker)
		return err
	})
	if err != nil {
		return err
	}
	return s.respondComment(c, http.StatusOK, next)
}

// DELETE /api/data/comments/{id}
func (s *Server) deleteComment(c *gin.Context) error {
	row, err := s.loadOwnComment(c, c.Param("id"))
	if err != nil {
		return err
	}
	err = s.audited(c, "comment", "delete", row.RootID, "", func(tx *store.DB) error {
		return store.DeleteComment(tx, row.RootID)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": c.Param("id"), "deleted": true})
	return nil
}

// GET /api/data/comments/{id}/history?page=&limit=: every version, oldest
// first.
func (s *Server) commentHistory(c *gin.Context) error {
	row, err := s.loadReadableComment(c, c.Param("id"))
	if err != nil {
		return err
	}
	page, p, err := commentPage(c)
	if err != nil {
		return err
	}
	rows, _, err := store.CommentHistory(s.db(c), row.RootID, p)
	if err != nil {
		return err
	}
	return s.respondComments(c, page, rows)
}
