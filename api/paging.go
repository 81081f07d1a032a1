package api

import (
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

// queryInt reads an optional integer query parameter within [min, max].
func queryInt(c *gin.Context, name string, def, min, max int) (int, error) {
	raw, ok := c.GetQuery(name)
	if !ok || raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, apperr.InvalidField(name, "must be an integer")
	}
	if n < min || n > max {
		return 0, apperr.InvalidField(name, fmt.Sprintf("must be between %d and %d", min, max))
	}
	return n, nil
}

// queryBool reads an optional boolean query parameter.
func queryBool(c *gin.Context, name string) (bool, error) {
	raw, ok := c.GetQuery(name)
	if !ok || raw == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return false, apperr.InvalidField(name, "must be true or false")
	}
	return b, nil
}

// Page is a window of a list addressed by offset, with opaque tokens for
// the pages before and after it.
type Page struct {
	Limit  int
	Offset int
}

// tokenPage reads limit, offset and page-token (or page_token) as the
// activity and custom field endpoints define them. A token wins over offset.
func tokenPage(c *gin.Context, defLimit, maxLimit int) (Page, error) {
	limit, err := queryInt(c, "limit", defLimit, 1, maxLimit)
	if err != nil {
		return Page{}, err
	}
	offset, err := queryInt(c, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return Page{}, err
	}
	token := c.Query("page-token")
	if token == "" {
		token = c.Query("page_token")
	}
	if token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(token)
		n, err2 := strconv.Atoi(string(raw))
		if err != nil || err2 != nil || n < 0 {
			return Page{}, apperr.InvalidField("page-token", "is not a token this server issued")
		}
		offset = n
	}
	return Page{Limit: limit, Offset: offset}, nil
}

// Tokens returns next and previous page tokens given the total count; an
// empty token means no page in that direction.
func (p Page) Tokens(total int64) (next, prev string) {
	if int64(p.Offset+p.Limit) < total {
		next = encodeOffset(p.Offset + p.Limit)
	}
	if p.Offset > 0 {
		prev = encodeOffset(max(0, p.Offset-p.Limit))
	}
	return next, prev
}

func encodeOffset(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(n)))
}
