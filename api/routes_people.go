package api

// peopleRoutes lists the routes of people across the archive (people.go)
// and of teaching them from pictures (people_references.go).
func (s *Server) peopleRoutes() []Route {
	return []Route{
		{get, "/api/data/people", "people:read", s.listPeople},
		{post, "/api/data/people", "people:write", s.teachPerson},
		{get, "/api/data/people/:id", "people:read", s.getPerson},
		{patch, "/api/data/people/:id", "people:write", s.patchPerson},
		{del, "/api/data/people/:id", "people:write", s.deletePerson},
		{post, "/api/data/people/:id/merge", "people:write", s.mergePeople},
		{post, "/api/data/people/:id/faces", "people:write", s.moveFace},
		{del, "/api/data/people/:id/faces/:item_id/:face", "people:write", s.rejectFace},
		{get, "/api/data/people/:id/references", "people:read", s.listReferences},
		{post, "/api/data/people/:id/references", "people:write", s.addReferences},
		{del, "/api/data/people/:id/references/:ref", "people:write", s.deleteReference},
		{get, "/api/data/people/:id/references/:ref/:file", "people:read", s.referenceFile},
	}
}
