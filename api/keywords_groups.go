package api

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/wordmatch"
	"github.com/metaharvest/metaharvest/models"
)

// Keyword groups (DECISIONS.md): named, coloured lists of words and
// phrases, shared by the whole platform, looked for in every item's text
// by the keyword hits. Names are unique whatever their case (409).

// Limits of keyword groups: what one hits request matches is at most
// maxKeywordGroups x maxKeywordWords phrases.
const (
	maxKeywordGroups     = 500
	maxKeywordWords      = 500
	maxKeywordWordLength = 100 // characters; openapi.yaml publishes it (checkBody enforces it)
)

func init() {
	// The audit catalogue (audit.go) learns the keyword group actions here,
	// beside the handlers that record them.
	auditCatalogue["keywordgroup"] = []string{"create", "update", "delete"}
}

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

type keywordGroupJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Color     string    `json:"color"`
	Words     []string  `json:"words"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func keywordGroupOut(g models.KeywordGroup) keywordGroupJSON {
	words := []string(g.Words)
	if words == nil {
		words = []string{}
	}
	// Microseconds, as Postgres keeps them: a group reads the same times
	// on creation and later.
	return keywordGroupJSON{ID: g.ID, Name: g.Name, Color: g.Color, Words: words,
		CreatedAt: g.CreatedAt.UTC().Truncate(time.Microsecond), UpdatedAt: g.UpdatedAt.UTC().Truncate(time.Microsecond)}
}

// keywordGroupRequest is the body of create and update: the whole group.
type keywordGroupRequest struct {
	Name  string   `json:"name"`
	Color string   `json:"color"`
	Words []string `json:"words"`
}

// validate trims the name and words, lower-cases the colour, and drops
// words that fold to the same phrase as an earlier one ("Café", "cafe").
func (r *keywordGroupRequest) validate() error {
	problems := map[string]string{}
	r.Name = strings.TrimSpace(r.Name)
	required(problems, map[string]string{"name": r.Name, "color": r.Color})
	if utf8.RuneCountInString(r.Name) > DefaultMaxLength {
		problems["name"] = fmt.Sprintf("must be at most %d characters", DefaultMaxLength)
	}
	if _, missing := problems["color"]; !missing && !hexColor.MatchString(r.Color) {
		problems["color"] = "must be a colour written #rrggbb (hexadecimal)"
	}
	r.Color = strings.ToLower(r.Color)
	if len(r.Words) > maxKeywordWords {
		problems["words"] = fmt.Sprintf("must hold at most %d words", maxKeywordWords)
		return invalidIf(problems)
	}
	f := wordmatch.NewFolder()
	seen := map[string]bool{}
	words := make([]string, 0, len(r.Words))
	for i, w := range r.Words {
		w = strings.TrimSpace(w)
		key := f.Key(w)
		field := fmt.Sprintf("words[%d]", i)
		switch {
		case utf8.RuneCountInString(w) > maxKeywordWordLength:
			problems[field] = fmt.Sprintf("must be at most %d characters", maxKeywordWordLength)
		case key == "":
			problems[field] = "needs a letter or a digit"
		case !seen[key]:
			seen[key] = true
			words = append(words, w)
		}
		if len(problems) >= maxLengthProblems {
			break
		}
	}
	r.Words = words
	return invalidIf(problems)
}

func keywordGroupNameTaken(err error, name string) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return apperr.Conflict("name_taken", "a keyword group named %q exists", name)
	}
	return err
}

func loadKeywordGroup(tx *gorm.DB, id string, lock bool) (models.KeywordGroup, error) {
	var g models.KeywordGroup
	q := tx.Where("id = ?", id)
	if lock {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	err := q.Take(&g).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return g, apperr.NotFound("keyword group", truncateID(id))
	}
	return g, err
}

func (s *Server) listKeywordGroups(c *gin.Context) error {
	var rows []models.KeywordGroup
	if err := s.DB.WithContext(c.Request.Context()).Order("lower(name), id").Find(&rows).Error; err != nil {
		return err
	}
	out := make([]keywordGroupJSON, len(rows))
	for i, g := range rows {
		out[i] = keywordGroupOut(g)
	}
	c.JSON(http.StatusOK, gin.H{"groups": out})
	return nil
}

func (s *Server) getKeywordGroup(c *gin.Context) error {
	g, err := loadKeywordGroup(s.DB.WithContext(c.Request.Context()), c.Param("id"), false)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, keywordGroupOut(g))
	return nil
}

func (s *Server) createKeywordGroup(c *gin.Context) error {
	var req keywordGroupRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	g := models.KeywordGroup{ID: ids.New(), Name: req.Name, Color: req.Color, Words: req.Words,
		CreatedBy: principalOf(c).User.ID}
	err := s.audited(c, "keywordgroup", "create", g.ID, "", func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&models.KeywordGroup{}).Count(&n).Error; err != nil {
			return err
		}
		if n >= maxKeywordGroups {
			return apperr.Conflict("too_many_keyword_groups", "the platform has %d keyword groups, the most it keeps", n)
		}
		return keywordGroupNameTaken(tx.Create(&g).Error, g.Name)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, keywordGroupOut(g))
	return nil
}

// PUT /api/data/keywords/groups/{id} {name, color, words}: replaces the
// group's name, colour and words.
func (s *Server) putKeywordGroup(c *gin.Context) error {
	var req keywordGroupRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	var g models.KeywordGroup
	err := s.audited(c, "keywordgroup", "update", c.Param("id"), "", func(tx *gorm.DB) error {
		var err error
		if g, err = loadKeywordGroup(tx, c.Param("id"), true); err != nil {
			return err
		}
		g.Name, g.Color, g.Words = req.Name, req.Color, req.Words
		return keywordGroupNameTaken(tx.Select("name", "color", "words", "updated_at").Save(&g).Error, g.Name)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, keywordGroupOut(g))
	return nil
}

func (s *Server) deleteKeywordGroup(c *gin.Context) error {
	id := c.Param("id")
	err := s.audited(c, "keywordgroup", "delete", id, "", func(tx *gorm.DB) error {
		res := tx.Delete(&models.KeywordGroup{}, "id = ?", id)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return apperr.NotFound("keyword group", truncateID(id))
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": id, "deleted": true})
	return nil
}
