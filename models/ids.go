package models

import "github.com/metaharvest/metaharvest/internal/ids"

// ContainerID is the "container hash id": derived from the location and the
// container name, so discovering a container twice yields one row.
func ContainerID(locationID, name string) string { return ids.Derived("container", locationID, name) }

// ItemID is derived from the container and the file path (32 characters, the
// limit comments and other clients rely on), so harvesting a file twice
// yields one item.
func ItemID(containerID, path string) string { return ids.Derived("item", containerID, path) }
