package api

// insightRoutes lists the routes that read what the extractors found in an
// item: its summary (summary_item.go), keyword groups and their hits
// (keywords_groups.go, keywords_hits.go) and adult-content histograms
// (adult.go).
func (s *Server) insightRoutes() []Route {
	return []Route{
		{get, "/api/data/v3/summary/items/:id", "items:read", s.itemSummary},

		{get, "/api/data/keywords/groups", "keywords:read", s.listKeywordGroups},
		{post, "/api/data/keywords/groups", "keywords:write", s.createKeywordGroup},
		{get, "/api/data/keywords/groups/:id", "keywords:read", s.getKeywordGroup},
		{put, "/api/data/keywords/groups/:id", "keywords:write", s.putKeywordGroup},
		{del, "/api/data/keywords/groups/:id", "keywords:write", s.deleteKeywordGroup},
		{get, "/api/data/keywords/hits/:item_id", "keywords:read", s.keywordHits},

		{get, "/api/data/items/:id/adult", "adult:read", s.adultSummary},
		{get, "/api/data/items/:id/adult/:category", "adult:read", s.adultCategory},
	}
}
