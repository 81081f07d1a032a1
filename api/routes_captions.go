package api

// captionRoutes lists the routes of an item's captions (captions.go):
// extracted ones (subtitle tracks, sidecar and caption files, speech) and
// uploaded ones.
func (s *Server) captionRoutes() []Route {
	return []Route{
		{get, "/api/data/v3/items/:item_id/captions", "captions:read", s.listCaptions},
		{get, "/api/data/v3/items/:item_id/captions/download", "captions:read", s.downloadCaption},
		{post, "/api/data/v3/items/:item_id/captions", "captions:write", s.uploadCaption},
		{del, "/api/data/v3/items/:item_id/captions", "captions:write", s.deleteCaption},
	}
}
