// Package models holds the persistent shape of metaharvest: GORM structs that
// map the tables, and the numbered SQL migrations (embedded) that create them.
// Structs here carry no behaviour beyond (un)marshalling column types.
package models
