package api

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
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

func (s *Server) listKeywordGroups(c *gin.Context) error {
	rows, err := store.KeywordGroups(s.db(c), 0)
	if err != nil {
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
	g, err := store.KeywordGroup(s.db(c), c.Param("id"))
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
	err := s.audited(c, "keywordgroup", "create", g.ID, "", func(tx *store.DB) error {
		return store.CreateKeywordGroup(tx, &g, maxKeywordGroups)
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
	err := s.audited(c, "keywordgroup", "update", c.Param("id"), "", func(tx *store.DB) error {
		var err error
		if g, err = store.LockKeywordGroup(tx, c.Param("id")); err != nil {
			return err
		}
		g.Name, g.Color, g.Words = req.Name, req.Color, req.Words
		return store.SaveKeywordGroup(tx, &g)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, keywordGroupOut(g))
	return nil
}

func (s *Server) deleteKeywordGroup(c *gin.Context) error {
	id := c.Param("id")
	err := s.audited(c, "keywordgroup", "delete", id, "", func(tx *store.DB) error {
		return store.DeleteKeywordGroup(tx, id)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": id, "deleted": true})
	return nil
}
