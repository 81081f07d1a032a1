// Package testsvc is what the tests' helpers (testdb, testredis,
// testbucket, testmeili, the browser tests' Chromium) say when a service
// or tool a test needs is not there: at once, after one short connect
// attempt rather than a driver's long timeout and retries, in a sentence
// naming the service, where it was looked for, and how to start it
// (`make services`, which starts Postgres and Redis, installs the test
// servers and Chromium, and prints the line that points go test at them;
// for a program that is missing, deploy/setup.sh --s3, which it runs,
// installs it).
package testsvc
