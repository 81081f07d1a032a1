// Package api is the HTTP interface of metaharvest: a gin router whose every
// route is listed once in routes.go with the scope it requires, handlers as
// methods on *Server returning error, one error renderer, and the OpenAPI
// document (openapi.yaml, embedded) that describes every route.
package api
