// The vision sidecar is Node, not Go. This file makes deploy/vision a
// module of its own, so that the main module's ./... (go test, go vet,
// staticcheck) leaves out what npm installs in node_modules: some
// packages ship Go sources (flatted does).
module metaharvest.invalid/vision-sidecar
