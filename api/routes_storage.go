package api

import "net/http"

// storageRoutes lists the routes of the storage area: locations, their
// containers, the upload store, items and their artifacts.
func (s *Server) storageRoutes() []Route {
	return []Route{
		// Locations (locations.go)
		{post, "/api/data/v3/locations", "locations:write", s.createLocation},
		{get, "/api/data/v3/locations", "locations:read", s.listLocations},
		{get, "/api/data/v3/locations/:id", "locations:read", s.getLocation},
		{put, "/api/data/v3/locations/:id", "locations:write", s.putLocation},
		{del, "/api/data/v3/locations/:id", "locations:write", s.deleteLocation},

		// Containers (containers.go)
		{get, "/api/data/locations/:id/containers", "containers:read", s.listLocationContainers},
		{put, "/api/data/containers", "containers:write", s.putContainer},
		{get, "/api/data/containers/enabled", "containers:read", s.enabledContainers},
		{get, "/api/data/v3/containers/:id/name", "containers:read", s.containerName},

		// Upload store (uploads.go)
		{post, "/files/uploadstore/*path", "uploads:write", s.uploadFile},
		{del, "/files/uploadstore/*path", "uploads:write", s.deleteUpload},

		// Items and artifacts (items.go, artifacts.go)
		{get, "/api/data/items/:id", "items:read", s.getItem},
		{get, "/api/data/items/:id/content", "items:read", s.itemContent}, // content.go
		{http.MethodHead, "/api/data/items/:id/content", "items:read", s.itemContent},
		{del, "/api/data/items/:id", "items:write", s.deleteItem},
		{get, "/api/data/artifacts/*path", "items:read", s.serveArtifact},
	}
}
