package api

// activityRoutes lists the routes of the activity area: harvest job reports,
// extractor settings and profiles, and the data summary.
func (s *Server) activityRoutes() []Route {
	const (
		job  = "/api/data/v3/activity/request/:request_id"
		item = "/api/data/v3/activity/item/:item_id"
	)
	return []Route{
		// Harvest job reports (activity.go, jobstatus.go)
		{get, job, "activity:read", s.requestStatus},
		{get, job + "/extractors", "activity:read", s.requestExtractors},
		{get, job + "/extractors/:extractor", "activity:read", s.requestExtractorErrors},
		{get, job + "/extractors/:extractor/errors/:error_md5/files", "activity:read", s.requestErrorFiles},
		{get, job + "/items", "activity:read", s.requestItems},
		{post, "/api/data/v3/activity/bulk/extractors", "activity:read", s.bulkRequestExtractors},
		{get, item, "activity:read", s.itemJobs},
		{get, item + "/:request_id", "activity:read", s.itemActivities},
		{get, item + "/:request_id/extractors", "activity:read", s.itemExtractors},
		{get, item + "/:request_id/extractors/:extractor", "activity:read", s.itemExtractorErrors},

		// Extractor settings and profiles (extractors.go)
		{get, "/api/data/extractors", "extractors:read", s.listExtractors},
		{put, "/api/data/extractors/:name", "extractors:write", s.putExtractor},
		{get, "/api/data/extractor-profiles", "extractors:read", s.listProfiles},
		{post, "/api/data/extractor-profiles", "extractors:write", s.createProfile},
		{get, "/api/data/extractor-profiles/:id", "extractors:read", s.getProfile},
		{put, "/api/data/extractor-profiles/:id", "extractors:write", s.putProfile},
		{del, "/api/data/extractor-profiles/:id", "extractors:write", s.deleteProfile},

		// Data summary (datasummary.go)
		{get, "/api/data/summary/data", "summary:read", s.dataSummary},
	}
}
