-- A page of the item documents of one location or one container, in the
-- default order (by id), is read from an index in that order: the first
-- rows of the index range are the page. Before, an administrator's search
-- filtered on a location (no visibility classes to narrow it) either
-- walked the primary key until it met the location's documents, which
-- read every other document when the location was small or new (207 ms
-- for a location of one document among 120,000), or fetched all of the
-- location's documents through (vis, location_id) and sorted them, which
-- took 10 to 20 ms a search for a location of 10,000 to 20,000 documents
-- while it was being harvested (its statistics, older than the harvest,
-- say it is small). With these indexes either page is a few index
-- entries, whatever the sizes and however old the statistics; a filter on
-- one location or container is an equality for that (query.go, termCond).
-- Each costs a document written one more b-tree entry.

-- +goose Up
CREATE INDEX search_documents_location_page ON search_documents (location_id, id);
CREATE INDEX search_documents_container_page ON search_documents (container_id, id);

-- +goose Down
DROP INDEX search_documents_location_page;
DROP INDEX search_documents_container_page;
