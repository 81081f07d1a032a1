-- An activity row was also indexed by (item_id, request_id), for the jobs
-- that touched an item and the item's rows in a job. Item ids are digests:
-- every harvested file inserted its row's entry at a random place of that
-- index, a page of its own once the index outgrows memory's hot pages
-- (measured, one run each: on a platform of a million items a harvest of
-- 10k files took 1.46x the time of one on an empty platform without the
-- index against 1.74x with it). The
-- same columns the other way round keep a job's rows together: a harvest
-- appends to its own part of the index. The item's rows in a job are found
-- by both columns as before; the jobs that touched an item are the jobs of
-- its container (jobs_container) that have a row of it, one probe each.

-- +goose Up
DROP INDEX activities_item;
CREATE INDEX activities_request_item ON activities (request_id, item_id);

-- +goose Down
DROP INDEX activities_request_item;
CREATE INDEX activities_item ON activities (item_id, request_id);
