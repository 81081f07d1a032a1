package api

// collaborationRoutes lists what people do together on top of harvested
// items: compilations, comments, custom fields and their values, and logo
// training requests.
func (s *Server) collaborationRoutes() []Route {
	return []Route{
		// Compilations (compilations.go)
		{get, "/api/data/compilations", "compilations:read", s.listCompilations},
		{post, "/api/data/compilations", "compilations:write", s.createCompilation},
		{get, "/api/data/compilations/:id", "compilations:read", s.getCompilation},
		{put, "/api/data/compilations/:id", "compilations:write", s.putCompilation},
		{del, "/api/data/compilations/:id", "compilations:write", s.deleteCompilation},
		{post, "/api/data/compilations/:id/items", "compilations:write", s.addCompilationItem},
		{del, "/api/data/compilations/:id/items/:item_id", "compilations:write", s.removeCompilationItem},
		{put, "/api/data/compilations/:id/order-items", "compilations:write", s.orderCompilationItems},
		{post, "/api/data/compilations/:id/clone", "compilations:write", s.cloneCompilation},

		// Comments (comments.go)
		{get, "/api/data/comments", "comments:read", s.listComments},
		{post, "/api/data/comments", "comments:write", s.createComment},
		{put, "/api/data/comments", "comments:write", s.updateComment},
		{del, "/api/data/comments/:id", "comments:write", s.deleteComment},
		{get, "/api/data/comments/:id/history", "comments:read", s.commentHistory},

		// Custom fields (fields.go)
		{get, "/api/data/v3/fields", "fields:read", s.listFields},
		{post, "/api/data/v3/fields", "fields:write", s.createField},
		{put, "/api/data/v3/fields/order", "fields:write", s.orderFields},
		{get, "/api/data/v3/fields/:id", "fields:read", s.getField},
		{patch, "/api/data/v3/fields/:id", "fields:write", s.patchField},
		{del, "/api/data/v3/fields/:id", "fields:write", s.deleteField},

		// Field values (fielddata.go)
		{put, "/api/data/v3/fielddata", "fielddata:write", s.bulkFieldData},
		{get, "/api/data/v3/fielddata/:item_id", "fielddata:read", s.itemFieldData},
		{get, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:read", s.getFieldData},
		{post, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.createFieldData},
		{put, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.putFieldData},
		{del, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.deleteFieldData},

		// Logo training (logotraining.go)
		{options, "/api/data/train/logos", "logos:read", s.canTrainLogos},
		{get, "/api/data/train/logos", "logos:read", s.listLogoTrainings},
		{post, "/api/data/train/logos", "logos:write", s.createLogoTraining},
		{get, "/api/data/train/logos/:id", "logos:read", s.getLogoTraining},
		{get, "/api/data/train/logos/:id/status", "logos:read", s.logoTrainingStatus},
	}
}
